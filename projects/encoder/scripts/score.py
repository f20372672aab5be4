"""The encoder alone: its boundaries where the calibrated p >= 0.5, on the speech project's sets.

    python scripts/score.py PIPELINE OUT.json --ud UD_DIR --text TEXT_DIR [--only ami-dev-star,...]

PIPELINE holds `encoder_boundaries` (`encoder_pipeline.py`). The sets and the scoring are
`projects/speech`'s (`prior_ablation.sets`, `score_prior_alone`): token-level P / R / F1 with each
document's first token left out, expected calibration error, words/s.
"""
import argparse
import json
import sys
from pathlib import Path

import spacy

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "speech" / "scripts"))
from prior_ablation import score_prior_alone, sets  # noqa: E402

from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401,E402  (the factory)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline")
    ap.add_argument("output", type=Path)
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--text", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated set names (default: all)")
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    data = sets(nlp, args.ud, args.text)
    names = [n for n in data if not args.only or n in args.only.split(",")]
    out = {"pipeline": Path(args.pipeline).name, "sets": {}}
    for name in names:
        golds, _ = data[name]()
        out["sets"][name] = score_prior_alone(nlp, golds)
        print(name, json.dumps(out["sets"][name]), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
