"""An encoder directory → a spaCy pipeline holding `encoder_boundaries` (what `score.py` scores
alone and the root project's `add_prior.py` puts before a joint parser).

    python scripts/encoder_pipeline.py ENCODER_DIR OUT_DIR [--like en_joint_sbd]

`--like PIPELINE` takes that pipeline's tokenizer (so tokens are the joint pipeline's); without it,
a blank English one.
"""
import argparse
from pathlib import Path

import spacy

from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (the factory)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("encoder", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--like", default=None)
    args = ap.parse_args()
    nlp = spacy.blank("en")
    if args.like:
        nlp.tokenizer = spacy.load(args.like).tokenizer
    nlp.add_pipe("encoder_boundaries").initialize(model_dir=args.encoder)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(args.out)
    print(f"{args.out}: {nlp.pipe_names}")


if __name__ == "__main__":
    main()
