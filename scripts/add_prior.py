"""Add a trained boundary_prior to a joint pipeline and choose its weight and SB biases on dev.

    python scripts/add_prior.py training/default/model-best training/prior --dev corpus/en_ewt/dev.spacy \
        --text-dev ../shared/data/text/ami/dev --out training/default/model-prior

The prior goes right before `joint_sbd_parser`; `cli.tune_bias.tune_prior` chooses `prior_weight`,
`sb_bias` (EWT dev plain) and `sb_bias_unpunctuated` (EWT dev star + the star variant of the
running-text dev folder, mean F1), keeping w = 0 unless dev gains; the choice is written into the
saved pipeline's config and into `--metrics`.
"""
import argparse
import json
from pathlib import Path

import spacy

from spacy_joint_sbd.cli.tune_bias import PRIOR_WEIGHTS, tune_prior
from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.corpus.running_text import iter_text_docs
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="a pipeline with a joint_sbd_parser")
    ap.add_argument("prior", type=Path, help="a boundary_prior pipeline (train-prior)")
    ap.add_argument("--dev", type=Path, required=True, help="treebank dev documents (.spacy or .conllu)")
    ap.add_argument("--text-dev", type=Path, required=True, help="a running-text dev folder (e.g. AMI dev)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--metrics", type=Path, default=None)
    ap.add_argument("--weights", default=",".join(map(str, PRIOR_WEIGHTS)), help="prior weights tried besides 0")
    ap.add_argument("--text-dev-every", type=int, default=1, help="every k-th document of --text-dev (a share)")
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    nlp.add_pipe("boundary_prior", source=spacy.load(args.prior), before="joint_sbd_parser")
    dev = {v: load_gold_docs(args.dev, nlp.vocab, v) for v in ("plain", "star")}
    text_dev = list(iter_text_docs([args.text_dev], nlp, variants=["star"], root=args.text_dev.parent, allow_dev=True))
    text_dev = text_dev[:: max(1, args.text_dev_every)]
    weights = [float(w) for w in args.weights.split(",") if w.strip()]
    chosen, table = tune_prior(nlp, dev["plain"], [dev["star"], text_dev], weights=weights)
    parser = nlp.get_pipe("joint_sbd_parser")
    config = nlp.get_pipe_config("joint_sbd_parser")
    for key, value in chosen.items():
        parser.cfg[key] = value
        config[key] = value
    print(f"chosen on dev: {chosen}")
    nlp.to_disk(args.out)
    if args.metrics:
        args.metrics.parent.mkdir(parents=True, exist_ok=True)
        args.metrics.write_text(json.dumps({"chosen": chosen, "tuning": table}, indent=2))


if __name__ == "__main__":
    main()
