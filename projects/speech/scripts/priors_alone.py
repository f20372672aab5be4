"""Boundary models on their own: each prior's boundaries where p >= 0.5, on every set.

    python scripts/priors_alone.py results/priors_alone.json --prior NAME=PIPELINE ... --ud UD_DIR --text TEXT_DIR

The joint pipeline must beat each source of evidence alone: this scores each
source (a `boundary_prior` from `train-prior`, a `senter_prior` from `spacy train`) as
`prior_ablation.score_prior_alone` does (token-level P / R / F1, each document's first token
excluded, expected calibration error, words/s wall clock), on the sets of `prior_ablation.sets`.
"""
import argparse
import json
import sys
from pathlib import Path

import spacy

sys.path.insert(0, str(Path(__file__).parent))
from prior_ablation import score_prior_alone, sets  # noqa: E402

from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401,E402  (factories)
from spacy_joint_sbd.pipeline.senter_prior import SenterPrior  # noqa: F401,E402


def prior(spec: str):
    name, sep, path = spec.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PIPELINE, got {spec!r}")
    return name, path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("output", type=Path)
    ap.add_argument("--prior", type=prior, action="append", required=True, help="NAME=PIPELINE")
    ap.add_argument("--ud", type=Path, required=True)
    ap.add_argument("--text", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated set names (default: all)")
    args = ap.parse_args()
    priors = {name: spacy.load(path) for name, path in args.prior}
    first = next(iter(priors.values()))
    data = sets(first, args.ud, args.text)
    names = [n for n in data if not args.only or n in args.only.split(",")]
    results = {"priors": {name: str(Path(path).name) for name, path in args.prior}, "sets": {}}
    for set_name in names:
        golds, _ = data[set_name]()
        results["sets"][set_name] = {name: score_prior_alone(nlp, golds) for name, nlp in priors.items()}
        print(set_name, json.dumps(results["sets"][set_name]), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
