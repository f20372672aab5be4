"""Training noise: the default pipeline's recipe trained with several seeds, each scored on the same sets.

A change moving only float rounding moved the default pipeline's star and
ATIS boundary F1 by 1.2-1.3. The paired bootstrap over documents measures test-set noise, not this
training noise, so a lever is only worth calling when it beats the spread of retrainings. Each seed
reorders the training documents, redraws their variants (plain / star / lower / nopunct) and the
tagger's fold order; the data, epochs, beam, clusters, folds and bias grids stay the root project's
`train-default` (epochs, beam and clusters read from its project.yml vars by
`cheaper_context.recipe`, unless given). Each model is scored by the root project's
`scripts/default_scores.py` (gold tokens, the pipeline's own tags) without the boundary prior:
`cheaper_context.py --variants base` with several seeds trains and scores the whole default
pipeline, prior, weight and biases included.

    python scripts/seeds.py --root ../.. --seeds 0,1,2 --jobs 2 --out results/full/seeds
    python scripts/seeds.py --root ../.. --report-only --out results/full/seeds

Writes per seed `seed<k>/<set>.json` (and the model under `seed<k>/model`, deleted unless --keep),
`seeds.json` and `seeds.md` (per seed F1 / LAS, mean, sample standard deviation and range).
"""
import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List

SETS = ("ewt-test-plain", "ewt-test-star", "gum-dev-plain", "gum-dev-star", "atis-dev-stream")


def train_and_score(root: Path, out: Path, seed: int, epochs: int, beam: int, limit: int, context: str,
                    keep: bool) -> Dict:
    """Train the default recipe with `seed` (a subprocess in `root`), score it, return its scores."""
    d = out / f"seed{seed}"
    d.mkdir(parents=True, exist_ok=True)
    model = d / "model"
    t0 = time.time()
    train = [sys.executable, "scripts/train_default.py", "corpus/en_ewt/train.spacy", "corpus/en_gum/train.spacy",
             "corpus/en_atis/train.spacy", "--dev", "corpus/en_ewt/dev.spacy", "--out", str(model),
             "--metrics", str(d / "train.json"), "--epochs", str(epochs), "--beam", str(beam), "--seed", str(seed),
             "--limit", str(limit), "--context-clusters", context, "--folds", "5", "--eval-from", "5"]
    run(train, root, d / "train.log")
    minutes = (time.time() - t0) / 60
    run([sys.executable, "scripts/default_scores.py", str(model), "--metrics", str(d)], root, d / "score.log")
    if not keep:
        shutil.rmtree(model, ignore_errors=True)
    return {"seed": seed, "train_minutes": round(minutes, 1), **read_scores(d)}


def run(cmd: List[str], cwd: Path, log_path: Path) -> None:
    """Run `cmd` in `cwd` with its output in `log_path`; on failure stop naming the log and its end."""
    with open(log_path, "w") as log:
        code = subprocess.run(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT).returncode
    if code != 0:
        tail = log_path.read_text(errors="replace").splitlines()[-5:]
        raise SystemExit(f"{' '.join(cmd[1:3])} failed (exit {code}); see {log_path}:\n" + "\n".join(tail))


def read_scores(d: Path) -> Dict:
    scores = {}
    for s in SETS:
        p = d / f"{s}.json"
        if p.exists():
            r = json.loads(p.read_text())
            scores[s] = {"sents_f": r["sents_f"], "dep_las": r["dep_las"]}
    return {"scores": scores}


def spread(values: List[float]) -> Dict:
    return {"mean": statistics.fmean(values), "sd": statistics.stdev(values) if len(values) > 1 else None,
            "min": min(values), "max": max(values)}


def report(runs: List[Dict], out: Path) -> None:
    runs = sorted(runs, key=lambda r: r["seed"])
    incomplete = [r["seed"] for r in runs if set(r["scores"]) != set(SETS)]
    if incomplete:
        raise SystemExit(f"seeds {incomplete} have not been scored on every set: rerun them")
    summary = {s: {m: spread([100 * r["scores"][s][m] for r in runs]) for m in ("sents_f", "dep_las")} for s in SETS}
    (out / "seeds.json").write_text(json.dumps({"runs": runs, "summary": summary}, indent=2))
    lines = ["# Training noise of the default pipeline's recipe", "",
             f"{len(runs)} trainings that differ only in `--seed` (document order, variant draws, tagger folds); "
             "boundary F1 / LAS on gold tokens with the pipeline's own tags.", "",
             "| set | " + " | ".join(f"seed {r['seed']}" for r in runs) + " | mean | sd | range |",
             "|---|" + "---|" * (len(runs) + 3)]
    for s, m in summary.items():
        cells = [f"{100 * r['scores'][s]['sents_f']:.2f} / {100 * r['scores'][s]['dep_las']:.2f}" for r in runs]
        f, las = m["sents_f"], m["dep_las"]
        sd = "–" if f["sd"] is None else f"{f['sd']:.2f} / {las['sd']:.2f}"
        lines.append(f"| {s} | " + " | ".join(cells) + f" | {f['mean']:.2f} / {las['mean']:.2f} | {sd} | "
                     f"F1 {f['max'] - f['min']:.2f}, LAS {las['max'] - las['min']:.2f} |")
    lines += ["", "Wall-clock minutes of each training (other jobs shared the 2-core VM): "
              + ", ".join(f"seed {r['seed']}: {r['train_minutes']}" for r in runs) + "."]
    (out / "seeds.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path("../.."), help="the repository (its corpus/ and scripts/)")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--epochs", type=int, default=None, help="default: the root project's default_epochs")
    ap.add_argument("--beam", type=int, default=None, help="default: the root project's default_beam")
    ap.add_argument("--limit", type=int, default=0, help="first N documents of each training file (0: all)")
    ap.add_argument("--context-clusters", default=None,
                    help="as train_default.py's; default: the root project's default_context")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the trained models")
    ap.add_argument("--report-only", action="store_true", help="rewrite seeds.md from the per-seed JSONs")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    root, out = args.root.resolve(), args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.report_only:
        runs = []
        for d in sorted(out.glob("seed*")):
            train = d / "train.json"
            if not (d.is_dir() and d.name[4:].isdigit() and train.exists()):
                continue
            runs.append({"seed": int(d.name[4:]), **read_scores(d),
                         "train_minutes": json.loads(train.read_text()).get("minutes")})
        if not runs:
            ap.error(f"--report-only: no finished seed<k>/ folder (with train.json) in {out}")
    else:
        try:
            seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
        except ValueError:
            ap.error(f"--seeds must be ints separated by commas, got {args.seeds!r}")
        if len(set(seeds)) != len(seeds) or not seeds:
            ap.error(f"--seeds must be distinct, got {args.seeds!r}")
        if not (root / "corpus/en_ewt/train.spacy").exists():
            ap.error(f"{root}/corpus/en_ewt/train.spacy is missing: run the root project's `data` and `convert` first")
        if None in (args.epochs, args.beam, args.context_clusters):
            sys.path.insert(0, str(Path(__file__).parent))
            from cheaper_context import recipe  # the main job's recipe, read in one place (it imports SETS from here)

            r = recipe(root)
            args.epochs = int(r["epochs"]) if args.epochs is None else args.epochs
            args.beam = int(r["beam"]) if args.beam is None else args.beam
            args.context_clusters = r["context"] if args.context_clusters is None else args.context_clusters
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(lambda s: train_and_score(root, out, s, args.epochs, args.beam, args.limit,
                                                                 args.context_clusters, args.keep),
                                 seeds))
    report(runs, out)


if __name__ == "__main__":
    main()
