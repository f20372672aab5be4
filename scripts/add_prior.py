"""Add a trained boundary_prior to a joint pipeline and choose its weight and SB biases on dev.

    python scripts/add_prior.py training/default/model-best training/prior --dev corpus/en_ewt/dev.spacy \
        --text-dev ../shared/data/text/ami/dev --out training/default/model-prior

The prior goes right before `joint_sbd_parser` (a `boundary_prior`, a `senter_prior` or an
`encoder_boundaries`; each in turn when several pipelines are given, the last blended with those
before it by `--blend`; `--punct-blends` tries the encoder's own blend on punctuated Docs too,
`encoder_boundaries`' `blend_punctuated`, each value with the weight and biases it gets;
`--parser-features own` lets a parser trained on the encoder's probabilities (train_default --prior)
read the encoder's own on every Doc while the blends feed its `prior_weight`: `own_features`);
`operating_point.tune_prior` chooses `prior_weight`,
`sb_bias` (EWT dev plain; with `--raw-dev CONLLU`, the mean F1 of that and of the treebank's dev
documents rebuilt as raw text, `corpus.raw_text`, through the whole pipeline as users run it) and `sb_bias_unpunctuated`
(EWT dev star + the star variant of the running-text dev folder, mean F1), keeping w = 0 unless
dev gains; the choice is written into the saved pipeline's config and into `--metrics`.

A blank line is a boundary (`newline_boundaries` in `paragraph` mode first in the pipeline;
`--newlines ignore` leaves it out; `segment --newlines` overrides it at run time).

Then `token._.sent_start_prob` is calibrated (`pipeline.joint.calibration`) at that operating point:
fitted on EWT dev plain (punctuated regime) and EWT dev star + the running-text dev share
(unpunctuated), saved with the parser. `--metrics` gets its expected calibration error per set,
cross-fitted over documents (2 folds: each document scored by a calibrator that never saw it);
`--curves DIR` gets the reliability diagram of those cross-fitted probabilities.

The saved vocab keeps only the pipeline's labels (`persist.saved_strings`): the 309,000 strings
of its training and dev text cost `spacy.load` 0.4 s and nothing reads them.
"""
import argparse
import json
from pathlib import Path
from typing import List, Optional

import numpy
import spacy

from spacy_joint_sbd.corpus.raw_text import raw_documents
from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.corpus.running_text import iter_text_docs
from spacy_joint_sbd.context.kmeans import float_product
from spacy_joint_sbd.pipeline.joint import calibration
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)
from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (registers the factory)
from spacy_joint_sbd.context.numpy_gemm import use_numpy_gemm
from spacy_joint_sbd.operating_point import PRIOR_PUNCT_SHIFTS, PRIOR_WEIGHTS, tune_prior
from spacy_joint_sbd.persist.saved_strings import pipeline_labels, trim_strings
from spacy_joint_sbd.pipeline.senter_prior import SenterPrior  # noqa: F401  (registers the factory)


PRIOR_COMPONENTS = ("boundary_prior", "senter_prior", "encoder_boundaries")
"""Components that write `doc._.boundary_probs` for the parser."""


def add_priors(nlp, paths: List[Path], blend: Optional[float] = None) -> None:
    """Replace the pipeline's priors (e.g. one it was trained with: train_default --prior) by the
    prior component of each pipeline in `paths`, in order, right before the parser. A senter_prior
    keeps the numpy BLAS ops it was trained with (`numpy_gemm`) and gets `blend` if given."""
    for name in PRIOR_COMPONENTS:
        if name in nlp.pipe_names:
            nlp.remove_pipe(name)
    for path in paths:
        source = spacy.load(path)
        names = [n for n in source.pipe_names if n in PRIOR_COMPONENTS]
        if len(names) != 1 or names[0] in nlp.pipe_names:
            raise SystemExit(f"{path}: expected one prior component not yet added ({PRIOR_COMPONENTS}), found {names}")
        nlp.add_pipe(names[0], source=source, before="joint_sbd_parser")
        if names[0] == "senter_prior":
            gemm = nlp.config["nlp"].get("after_pipeline_creation") or {}
            use_numpy_gemm(nlp, [*gemm.get("components", []), "senter_prior"])
        if names[0] in ("senter_prior", "encoder_boundaries") and blend is not None:
            pipe = nlp.get_pipe(names[0])
            if names[0] == "senter_prior":
                pipe.blend = blend
            else:
                pipe.cfg["blend"] = float(blend)
            nlp.get_pipe_config(names[0])["blend"] = float(blend)


def set_encoder_setting(nlp, key: str, value, option: str) -> None:
    """An `encoder_boundaries` setting in the component and its config: `blend_punctuated` (the
    encoder's blend on Docs with sentence-final punctuation, None: its `blend`) or `own_features`
    (the parser's features from the encoder's own probabilities, its prior_weight from the blend).
    `option` names the command-line option that needs the encoder."""
    if "encoder_boundaries" not in nlp.pipe_names:
        raise SystemExit(f"{option} needs an encoder_boundaries pipeline among the priors")
    nlp.get_pipe("encoder_boundaries").cfg[key] = value
    nlp.get_pipe_config("encoder_boundaries")[key] = value


def set_blend_punctuated(nlp, value: Optional[float]) -> None:
    set_encoder_setting(nlp, "blend_punctuated", None if value is None else float(value), "--punct-blends")


def calibrate(nlp, sets, curves: Path = None) -> dict:
    """Fit the parser's calibration on `sets` ({name: gold docs}), set it, return ECE figures."""
    rows = {name: calibration.collect(nlp, docs) for name, docs in sets.items()}
    flat = [r for name in sets for r in rows[name]]
    crossed = calibration.cross_fitted(flat)
    report, start = {}, 0
    for name in sets:
        probs = crossed[start:start + len(rows[name])]
        start += len(rows[name])
        p = numpy.concatenate(probs) if probs else numpy.zeros(0)
        y = numpy.concatenate([r[1] for r in rows[name]]) if rows[name] else numpy.zeros(0)
        report[name] = {"ece": calibration.expected_calibration_error(p, y), "tokens": int(len(y)),
                        "reliability": calibration.reliability(p, y)}
        print(f"calibration {name}: ECE {report[name]['ece']:.4f} (cross-fitted, {len(y)} tokens)")
    coef = calibration.fit_regimes(flat)
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = coef
    if curves is not None:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        curves.mkdir(parents=True, exist_ok=True)
        fig, ax = plt.subplots(figsize=(5.5, 4.5))
        ax.plot([0, 1], [0, 1], ":", color="grey", label="perfectly calibrated")
        for name, r in report.items():
            ax.plot([b["mean_prob"] for b in r["reliability"]], [b["frequency"] for b in r["reliability"]], "o-",
                    ms=4, label=f"{name} (ECE {r['ece']:.3f})")
        ax.set_xlabel("mean sent_start_prob in the bin")
        ax.set_ylabel("share of tokens that start a gold sentence")
        ax.set_title("Calibrated sent_start_prob (cross-fitted on dev)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(curves / "calibration_reliability.png", dpi=120)
        plt.close(fig)
    return {"coefficients": coef, "features": list(calibration.FEATURES), "sets": report}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="a pipeline with a joint_sbd_parser")
    ap.add_argument("prior", type=Path, nargs="+",
                    help="pipelines holding a boundary_prior (train-prior), a senter_prior (spacy train) or an "
                         "encoder_boundaries (projects/encoder), added "
                         "before the parser in this order")
    ap.add_argument("--dev", type=Path, required=True, help="treebank dev documents (.spacy or .conllu)")
    ap.add_argument("--text-dev", type=Path, required=True, help="a running-text dev folder (e.g. AMI dev)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--metrics", type=Path, default=None)
    ap.add_argument("--curves", type=Path, default=None, help="folder for calibration_reliability.png")
    ap.add_argument("--weights", default=",".join(map(str, PRIOR_WEIGHTS)), help="prior weights tried besides 0")
    ap.add_argument("--raw-dev", type=Path, default=None,
                    help="a treebank dev .conllu: choose sb_bias on its documents as raw text too (users' view)")
    ap.add_argument("--punct-shifts", default=",".join(map(str, PRIOR_PUNCT_SHIFTS)),
                    help="shifts k tried for sb_bias (+ w*k) with the prior")
    ap.add_argument("--text-dev-every", type=int, default=1, help="every k-th document of --text-dev (a share)")
    ap.add_argument("--blend", type=float, default=None,
                    help="a senter_prior's or encoder_boundaries' blend with the probabilities of a prior before it "
                         "(1: replace them)")
    ap.add_argument("--punct-blends", default="",
                    help="encoder_boundaries' blends on punctuated Docs tried besides its blend "
                         "(`blend_punctuated`, e.g. 0,0.35); the best on dev is kept")
    ap.add_argument("--parser-features", default="blend", choices=("blend", "own"),
                    help="what a parser trained with prior features reads: the probabilities the priors "
                         "write (blend), or encoder_boundaries' own on every Doc (own: it was trained on "
                         "them; the blends feed its prior_weight only)")
    ap.add_argument("--newlines", default="paragraph", choices=("ignore", "line", "paragraph"),
                    help="newline_boundaries first in the pipeline: blank lines (paragraph) are boundaries")
    args = ap.parse_args()
    if args.blend is not None and not 0 <= args.blend <= 1:
        ap.error(f"--blend must be a number in [0, 1], got {args.blend}")
    nlp = spacy.load(args.pipeline)
    add_priors(nlp, args.prior, args.blend)
    if args.parser_features == "own":
        set_encoder_setting(nlp, "own_features", True, "--parser-features own")
    if args.newlines != "ignore" and "newline_boundaries" not in nlp.pipe_names:
        nlp.add_pipe("newline_boundaries", first=True, config={"mode": args.newlines})
    dev = {v: load_gold_docs(args.dev, nlp.vocab, v) for v in ("plain", "star")}
    text_dev = list(iter_text_docs([args.text_dev], nlp, variants=["star"], root=args.text_dev.parent, allow_dev=True))
    text_dev = text_dev[:: max(1, args.text_dev_every)]
    weights = [float(w) for w in args.weights.split(",") if w.strip()]
    raw = list(raw_documents(args.raw_dev)) if args.raw_dev else []
    shifts = [float(k) for k in args.punct_shifts.split(",") if k.strip()]
    punct_blends = [float(x) for x in args.punct_blends.split(",") if x.strip()]
    chosen, table, best, chosen_blend = None, None, -1.0, None
    for bp in ([None, *punct_blends] if punct_blends else [None]):
        if punct_blends:  # the encoder's blend on punctuated Docs (None: its blend), with the w and biases it gets
            set_blend_punctuated(nlp, bp)
        c, t = tune_prior(nlp, dev["plain"], [dev["star"], text_dev], weights=weights, punct_shifts=shifts,
                          punct_raw=raw)
        total = next(r["best_total"] for r in t if r["prior_weight"] == c["prior_weight"])
        if punct_blends:
            print(f"blend_punctuated {bp}: {c}, dev F1 punctuated + mean unpunctuated {total:.4f}")
        if total > best + 1e-9:
            chosen, table, best, chosen_blend = c, t, total, bp
    if punct_blends:
        set_blend_punctuated(nlp, chosen_blend)
    parser = nlp.get_pipe("joint_sbd_parser")
    config = nlp.get_pipe_config("joint_sbd_parser")
    for key, value in chosen.items():
        parser.cfg[key] = value
        config[key] = value
    print(f"chosen on dev: {chosen}" + (f", encoder blend_punctuated {chosen_blend}" if punct_blends else ""))
    calib = calibrate(nlp, {"EWT dev": dev["plain"], "EWT dev*": dev["star"], "text dev*": text_dev}, args.curves)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(args.out)
    before, after = trim_strings(args.out, pipeline_labels(nlp.pipe_labels))  # loads faster, predicts the same
    print(f"saved {args.out}; its vocab keeps {after:,} of {before:,} strings (the labels)")
    if args.metrics:
        args.metrics.parent.mkdir(parents=True, exist_ok=True)
        extra = {"blend_punctuated": chosen_blend} if punct_blends else {}
        if args.parser_features == "own":
            extra["own_features"] = True
        args.metrics.write_text(json.dumps({"chosen": chosen, **extra, "tuning": table, "calibration": calib}, indent=2))


if __name__ == "__main__":
    # tuning on the clusters of the float product, as every model before the int8 shortlist
    # (context.kmeans.float_product); the pipeline it saves searches with the shortlist
    with float_product():
        main()
