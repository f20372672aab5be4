"""Cheaper sources of context for the default pipeline ("going past that needs a cheaper
source of context … measure what accuracy each option keeps").

    python scripts/cheaper_context.py --root ../.. [--variants combo,d2,base-s1] [--seeds 0] [--reps 5]

Each variant is the root project's default recipe (`train-default` with the epochs, beam and
context clusters of the root project.yml's vars, 5 folds; `prior-default`'s prior, weight and bias
choice; `evaluate-default`'s five sets) with one lever changed:
  ctx4   context clusters 16, 64, 256, 1,024 (the 4,096 set dropped: 1,360 centroids, not 5,456)
  ctx3   context clusters 16, 64, 256 (336 centroids)
  d2     the frozen tok2vec cut to its first 2 of 4 CNN layers (`context.tok2vec_depth`)
  d1     … to its first layer
  combo  ctx4 and d2 together
  b2, b4, b8 the joint parser trained and run at beam 2 / 4 / 8 (not context: the parser's own
         cost, which none of the others touches; the recipe's beam is 4)
  e7, e8 the joint parser trained for 7 / 8 epochs (the recipe's 5 are a share of the full 12 that
         fits the main job's 20 minutes; beam 4 freed about 2 minutes of it)
  base   the default recipe itself (another seed: `base-s1`; seed 0 is the main job's pipeline)
Every variant reuses the default pipeline's boundary prior (`training/default/prior` of the root
project, so run README's main command first) and is trained in the root project under
`training/cheaper_context/<variant>-s<seed>/`.
Then every pipeline, the default one (`training/default/model-prior`) included, is timed in one
process on the inputs of `bench/pipeline_speed.py`: GUM dev as raw text ("long") and 1,000 EWT
sentences of 10–40 words ("short"), tokenized first (not timed), then each component's `pipe` over
all of them (batches of 1,000). A component's time is its minimum CPU seconds over `--reps` rounds
(the VM's CPU times vary by ±25% from one run to the next); `all` is the sum of those minima.
Writes `<out>/<run>/metrics/*.json` (as `evaluate-default` writes them) and
`<out>/cheaper_context.{json,md}`.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

from seeds import SETS  # the five sets `evaluate-default` scores, as seeds.py reads them

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

VARIANTS: Dict[str, List[str]] = {
    "base": [],
    "ctx4": ["--context-clusters", "16,64,256,1024"],
    "ctx3": ["--context-clusters", "16,64,256"],
    "d2": ["--tok2vec-depth", "2"],
    "d1": ["--tok2vec-depth", "1"],
    "combo": ["--context-clusters", "16,64,256,1024", "--tok2vec-depth", "2"],
    "b2": ["--beam", "2"],  # after the recipe's own --beam: the last one counts
    "b4": ["--beam", "4"],
    "b8": ["--beam", "8"],
    "e7": ["--epochs", "7"],  # after the recipe's own --epochs, as the beams
    "e8": ["--epochs", "8"],
}


def recipe(root: Path) -> Dict[str, str]:
    """The main job's epochs, beam and context clusters, read from the root project.yml's vars (so
    that the variants follow the recipe README's main command trains)."""
    import srsly

    vars_ = srsly.read_yaml(root / "project.yml").get("vars", {})
    missing = [k for k in ("default_epochs", "default_beam", "default_context") if k not in vars_]
    if missing:
        raise SystemExit(f"{root / 'project.yml'}: vars {missing} missing (the main job's recipe)")
    return {"epochs": str(vars_["default_epochs"]), "beam": str(vars_["default_beam"]),
            "context": str(vars_["default_context"])}


def train(root: Path, name: str, seed: int, work: Path) -> Path:
    """Train, add the prior and score one variant (the root project's commands, one lever changed)."""
    py = sys.executable
    run = work / f"{name}-s{seed}"
    r = recipe(root)
    steps = [
        [py, "scripts/train_default.py", "corpus/en_ewt/train.spacy", "corpus/en_gum/train.spacy",
         "corpus/en_atis/train.spacy", "--dev", "corpus/en_ewt/dev.spacy", "--out", str(run / "model-best"),
         "--metrics", str(run / "report" / "metrics" / "train.json"), "--epochs", r["epochs"], "--beam", r["beam"],
         "--context-clusters", r["context"], "--folds", "5", "--eval-from", "5", "--seed", str(seed), *VARIANTS[name]],
        [py, "scripts/add_prior.py", str(run / "model-best"), str(root / "training" / "default" / "prior"),
         "--dev", "corpus/en_ewt/dev.spacy", "--text-dev", "../shared/data/text/ami/dev", "--text-dev-every", "3",
         "--weights", "0.3", "--raw-dev", "assets/ud/en_ewt/dev.conllu", "--punct-shifts", "0,1.5,2.5,3.5,5",
         "--out", str(run / "model-prior"), "--metrics", str(run / "report" / "metrics" / "prior.json"), "--curves", str(run / "report" / "curves")],
        [py, "scripts/default_scores.py", str(run / "model-prior"), "--report", str(run / "report")],
    ]
    for cmd in steps:
        print("$", " ".join(cmd[1:]), flush=True)
        subprocess.run(cmd, cwd=root, check=True)
    return run


def runs_of(variants: str, seeds: List[int]) -> List[Tuple[str, int]]:
    """(variant, seed) pairs, in order and each once: NAME takes every seed of `seeds`, NAME-sK
    only seed K (spaces around the commas ignored)."""
    pairs: List[Tuple[str, int]] = []
    for item in (v.strip() for v in variants.split(",")):
        if not item:
            continue
        name, _, seed = item.rpartition("-s")
        pairs.extend([(name, int(seed))] if name and seed.isdigit() else [(item, s) for s in seeds])
    return list(dict.fromkeys(pairs))


def scores(metrics: Path) -> Dict[str, Dict[str, float]]:
    out = {}
    for s in SETS:
        m = json.loads((metrics / f"{s}.json").read_text(encoding="utf-8"))
        m = m.get("scores", m)
        out[s] = {"f1": round(100 * m["sents_f"], 2), "las": round(100 * m["dep_las"], 2)}
    return out


def component_times(models: Dict[str, Path], reps: int) -> Dict[str, Dict[str, Dict[str, float]]]:
    """{model: {input: {component: min CPU s}}}, the models loaded together and timed in turn."""
    import spacy
    from pipeline_speed import UD, long_documents, short_texts
    from tqdm import tqdm

    inputs = {"long": [d["text"] for d in long_documents(UD / "en_gum" / "dev.conllu", None)],
              "short": [t["text"] for t in short_texts([UD / "en_ewt" / "test.conllu", UD / "en_ewt" / "dev.conllu"],
                                                       1000)[0]]}
    nlps = {name: spacy.load(path) for name, path in models.items()}
    for nlp in nlps.values():  # warm-up
        list(nlp.pipe(inputs["short"][:50]))
    best: Dict[str, Dict[str, Dict[str, float]]] = {m: {k: {} for k in inputs} for m in nlps}
    for _ in tqdm(range(reps), desc="rounds", file=sys.stderr, disable=None):
        for name, nlp in nlps.items():
            for kind, texts in inputs.items():
                docs = [nlp.make_doc(t) for t in texts]
                for comp, proc in nlp.pipeline:
                    start = time.process_time()
                    docs = list(proc.pipe(docs, batch_size=1000)) if hasattr(proc, "pipe") else [proc(d) for d in docs]
                    cpu = time.process_time() - start
                    prev = best[name][kind].get(comp)
                    best[name][kind][comp] = round(cpu if prev is None else min(prev, cpu), 3)
    for per in best.values():
        for kind in per:
            per[kind]["all"] = round(sum(per[kind].values()), 3)
    return best


def table(results: Dict) -> str:
    base = results["runs"]["default"]
    lines = ["| run | " + " | ".join(f"{s} F1 / LAS" for s in SETS) + " | tok2vec + tagger CPU s (long / short) | "
             "whole pipeline CPU s (long / short) |", "|---" * (len(SETS) + 3) + "|"]
    for name, run in results["runs"].items():
        cells = []
        for s in SETS:
            v, b = run["scores"][s], base["scores"][s]
            delta = "" if name == "default" else f" ({v['f1'] - b['f1']:+.2f} / {v['las'] - b['las']:+.2f})"
            cells.append(f"{v['f1']:.2f} / {v['las']:.2f}{delta}")
        t = results["cpu_s"][name]
        front = [round(t[k].get("tok2vec", 0) + t[k].get("perceptron_tagger", 0), 2) for k in ("long", "short")]
        cells.append(f"{front[0]} / {front[1]}")
        cells.append(f"{t['long']['all']} / {t['short']['all']}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", default="ctx4,ctx3,d2,d1,combo",
                    help=f"comma-separated, of {', '.join(VARIANTS)}; NAME-sSEED for one seed of one variant")
    ap.add_argument("--seeds", default="0", help="comma-separated training seeds")
    ap.add_argument("--reps", type=int, default=5, help="timing rounds (each component's minimum is kept)")
    ap.add_argument("--root", type=Path, default=ROOT, help="the root project (its data, corpus and main job)")
    ap.add_argument("--work", type=Path, default=None, help="default ROOT/training/cheaper_context")
    ap.add_argument("--out", type=Path, default=Path("results/full/cheaper_context"))
    ap.add_argument("--time-only", action="store_true", help="reuse the trained runs under --work")
    args = ap.parse_args()
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        ap.error(f"--seeds must be comma-separated integers, got {args.seeds!r}")
    if args.reps < 1 or not seeds:
        ap.error("--reps must be at least 1 and --seeds must name a seed")
    pairs = runs_of(args.variants, seeds)
    unknown = [n for n, _ in pairs if n not in VARIANTS]
    if unknown or not pairs:
        ap.error(f"--variants: unknown {unknown} (choose from {', '.join(VARIANTS)}, each alone or as NAME-sSEED)")
    names = list(dict.fromkeys(n for n, _ in pairs))
    root = args.root.resolve()
    default = root / "training" / "default"
    work = (args.work or root / "training" / "cheaper_context").resolve()
    if not (default / "model-prior").exists() or not (default / "prior").exists():
        ap.error("run README's main command first (training/default/model-prior and prior are reused)")
    runs = {f"{n}-s{s}": work / f"{n}-s{s}" for n, s in pairs}
    if args.time_only:
        missing = [k for k, v in runs.items() if not (v / "model-prior").exists()]
        if missing:
            ap.error(f"--time-only: no trained run {missing} under {work}")
    else:
        for name, seed in pairs:
            train(root, name, seed, work)
    models = {"default": default / "model-prior", **{k: v / "model-prior" for k, v in runs.items()}}
    results = {"what": "the default recipe with a cheaper source of context: five sets (gold tokens) "
                                    "and each component's CPU s (minimum over the rounds)",
               "recipe": recipe(root), "reps": args.reps, "variants": {n: VARIANTS[n] for n in names}, "runs": {}}
    reports = {"default": default / "report" / "metrics", **{k: v / "report" / "metrics" for k, v in runs.items()}}
    for name, metrics in reports.items():
        results["runs"][name] = {"scores": scores(metrics)}
        if name != "default":  # the five sets' metrics, named by the run (no machine path)
            dest = args.out / name / "metrics"
            dest.mkdir(parents=True, exist_ok=True)
            for s in SETS:
                m = json.loads((metrics / f"{s}.json").read_text(encoding="utf-8"))
                m["model"] = f"training/cheaper_context/{name}/model-prior"
                (dest / f"{s}.json").write_text(json.dumps(m, indent=2) + "\n", encoding="utf-8")
    results["cpu_s"] = component_times(models, args.reps)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "cheaper_context.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    r = results["recipe"]
    (args.out / "cheaper_context.md").write_text(
        f"The main job's recipe: {r['epochs']} epochs, beam {r['beam']}, context clusters {r['context']}; each run "
        f"changes what its name says.\n\n" + table(results), encoding="utf-8")
    print(table(results))


if __name__ == "__main__":
    main()
