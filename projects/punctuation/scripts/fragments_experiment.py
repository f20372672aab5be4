"""Replication of Li, Che & Liu (punctuation fragments): one-, two- and three-stage parsing.

Run from the project directory (``spacy project run fragments``, or by hand)::

    python scripts/fragments_experiment.py run   --out results/fragments --data ../../assets/ud [--quick]
    python scripts/fragments_experiment.py table --out results/fragments
    python scripts/fragments_experiment.py plot  --out results/fragments

`run` trains, per data set, the one-stage graph parser (whole sentences), the two-stage parser
(FRG + INTER) and the three-stage parser (IF/WF classifier + WF-parser, with the one-stage parser
as its ALL-parser), all of the same order, and parses the test set with gold sentence boundaries:

    ewt   EWT train -> EWT test
    gum   GUM train -> GUM dev
    zh    GSDSimp dev -> GSDSimp test  (no train split here: trained on dev, tested on test)

Tags. Training uses gold XPOS/UPOS. English test tags are *predicted* by the spaCy tagger of
``--tagger`` (trained on EWT train) on the gold tokens, UPOS mapped from the predicted XPOS
(the UPOS most often seen with it in training); Chinese test tags are gold (the outputs say so).

The library does the work: gold sentences (`DocRecord.iter_sentence_slices`), tagging
(`corpus.tagging`), the parsers (`graph.parser`, `graph.staged_parsers`), head counts
(`scoring.count_heads`), tests (`significance`); matplotlib (the library's ``experiments`` extra)
draws the plot.

It writes ``metrics/<dataset>.json`` (scores, per-document and per-sentence counts and parse
times, training times, Tables I/II/IV counts); `table` renders ``results.md`` from them (with
Wilcoxon signed-rank tests, `significance`, over sentences and documents) and `plot` the parse
time against sentence length (``parse_time.png``, bins of 10 up to 110 tokens, Figure 3).
"""
import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from spacy_joint_sbd import significance
from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.corpus.tagging import load_tagger, predict_tags
from spacy_joint_sbd.graph.parser import GraphParser
from spacy_joint_sbd.graph.split_punct import DEFAULT_SPLIT, analyse, segment, sub_root_types, table1_stats
from spacy_joint_sbd.graph.staged_parsers import ThreeStageParser, TwoStageParser, sub_root_counts
from spacy_joint_sbd.scoring import HeadCounts, count_heads

DATA = "../../assets/ud"
TAGGER = "../../training/ewt-plain/tagger_parser/model-best"
DATASETS = {
    "ewt": ("en_ewt/train", "en_ewt/test", "predicted", "EWT train → EWT test"),
    "gum": ("en_gum/train", "en_gum/dev", "predicted", "GUM train → GUM dev"),
    "zh": ("zh_gsdsimp/dev", "zh_gsdsimp/test", "gold", "GSDSimp dev → test (trained on dev)"),
}
METHODS = ("one", "two", "three", "three_gold", "three_all")
BINS = list(range(10, 111, 10))
PAPER = {  # CoNLL 2009 Chinese test, Tables III-V
    "one": (75.76, 80.55), "two": (76.13, 81.20), "three": (75.87, 80.97),
    "three_gold": (76.45, 81.62), "three_all": (75.61, 80.48),
}
PAPER_TABLE4 = {"recall": 81.4, "precision": 85.0, "recall1": 84.0, "recall2": 26.3}
PAPER_TABLE2 = {"if_recall": 46.4, "if_precision": 28.1, "wf_recall": 84.8, "wf_precision": 92.5,
                "accuracy": 80.4}


# -- data --------------------------------------------------------------------------------------

def sentences(records, limit: int = 0) -> List[dict]:
    """Gold sentences with their document id (the first `limit` ones if `limit`)."""
    out = []
    for rec in records:
        for sl in rec.iter_sentence_slices():
            if limit and len(out) == limit:
                return out
            out.append({"doc_id": sl.doc_id, "start": sl.start, "words": sl.words, "tags": sl.xpos,
                        "upos": sl.upos, "heads": sl.heads, "deps": sl.deps})
    return out


def as_tuples(sents: Sequence[dict]) -> List[tuple]:
    return [(s["words"], s["tags"], s["upos"], s["heads"], s["deps"]) for s in sents]


def upos_map(sents: Sequence[dict]) -> Dict[str, str]:
    """The UPOS most often seen with each XPOS."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for s in sents:
        for x, u in zip(s["tags"], s["upos"]):
            counts[x][u] += 1
    return {x: c.most_common(1)[0][0] for x, c in counts.items()}


def tag_sentences(sents: List[dict], records: Sequence, tagger_path: str, mapping: Dict[str, str]) -> None:
    """Replace the test sentences' tags by the spaCy tagger's (on gold tokens, one Doc per gold
    sentence), in place; the gold ones are kept as ``gold_tags`` / ``gold_upos``."""
    by_id = {rec.doc_id: rec for rec in records}
    needed = [by_id[d] for d in dict.fromkeys(s["doc_id"] for s in sents)]
    tagged = predict_tags(load_tagger(tagger_path), needed, by_sentence=True, batch_size=256,
                          upos_map=lambda words, xpos: [mapping.get(x, "X") for x in xpos])
    tagged = {rec.doc_id: rec for rec in tagged}
    for s in sents:
        rec, a = tagged[s["doc_id"]], s["start"]
        b = a + len(s["words"])
        s["gold_tags"], s["gold_upos"] = s["tags"], s["upos"]
        s["tags"], s["upos"] = rec.xpos[a:b], rec.upos[a:b]


# -- evaluation --------------------------------------------------------------------------------

def score_method(parse: Callable[[dict], tuple], sents: Sequence[dict]) -> dict:
    """Parse every sentence (timed); LAS/UAS with and without punctuation, per sentence and
    per document."""
    per_sent = []
    docs: Dict[str, Dict[str, int]] = {}
    tot = HeadCounts()
    for s in sents:
        t0 = time.perf_counter()
        heads, labels = parse(s)
        secs = time.perf_counter() - t0
        c = count_heads(heads, labels, s["heads"], s["deps"], s.get("gold_upos", s["upos"]))
        tot.add(c)
        per_sent.append({"doc_id": s["doc_id"], "n": len(heads), "uas": c.uas, "las": c.las,
                         "seconds": secs})
        d = docs.setdefault(s["doc_id"], {"doc_id": s["doc_id"], "uas": 0, "las": 0, "tokens": 0})
        d["uas"] += c.uas
        d["las"] += c.las
        d["tokens"] += len(heads)
    n, n_np = max(tot.tokens, 1), max(tot.tokens_nopunct, 1)
    return {"las": tot.las / n, "uas": tot.uas / n, "las_nopunct": tot.las_nopunct / n_np,
            "uas_nopunct": tot.uas_nopunct / n_np, "tokens": tot.tokens,
            "parse_seconds": sum(p["seconds"] for p in per_sent),
            "per_doc": list(docs.values()), "per_sentence": per_sent}


def classifier_counts(three: ThreeStageParser, sents: Sequence[dict]) -> Dict[str, int]:
    """Table II counts: gold / predicted IF and WF."""
    c = Counter()
    for s in sents:
        frags = segment(s["words"], three.chars)
        pred = three.classifier.predict(s["words"], s["tags"], s["upos"], frags)
        gold = [f.well_formed for f in analyse(s["words"], s["heads"], three.chars)]
        for p, g in zip(pred, gold):
            c["total"] += 1
            c["correct"] += p == g
            c["gold_wf" if g else "gold_if"] += 1
            c["pred_wf" if p else "pred_if"] += 1
            c["both_wf" if g else "both_if"] += p == g
    return dict(c)


def run_dataset(name: str, args) -> dict:
    train_path, test_path, tag_mode, desc = DATASETS[name]
    data = Path(args.data)
    train_records = read_conllu(data / f"{train_path}.conllu")
    test_records = read_conllu(data / f"{test_path}.conllu")
    stats = {"train": table1_stats(train_records), "test": table1_stats(test_records)}
    train_records = train_records[:args.limit_train_docs or None]
    test_records = test_records[:args.limit_eval_docs or None]
    train = sentences(train_records, args.quick_train if args.quick else 0)
    test = sentences(test_records, args.quick_test if args.quick else 0)
    if tag_mode == "predicted":
        tag_sentences(test, test_records, args.tagger, upos_map(train))
    log = (lambda *a: print(f"[{name}]", *a, file=sys.stderr, flush=True))
    tuples = as_tuples(train)
    kw = {"n_rows": args.n_rows, "label_rows": args.label_rows}
    log(f"{len(train)} training / {len(test)} test sentences; order {args.order}, {args.epochs} epochs")
    one = GraphParser(args.order, **kw)
    t0 = time.perf_counter()
    one.train_sentences(tuples, epochs=args.epochs, seed=args.seed)
    train_times = {"one": {"all": time.perf_counter() - t0}}
    log("one-stage trained", train_times["one"])
    two = TwoStageParser(args.order, chars=DEFAULT_SPLIT, **kw)
    train_times["two"] = two.train(tuples, epochs=args.epochs, seed=args.seed)
    log("two-stage trained", train_times["two"])
    three = ThreeStageParser(args.order, chars=DEFAULT_SPLIT, all_parser=one, **kw)
    t3 = three.train(tuples, epochs=args.epochs, seed=args.seed, train_all=False)
    t3["all"] = train_times["one"]["all"]
    train_times["three"] = t3
    log("three-stage trained", t3)

    flags = {id(s): three.wf_flags(s["words"], s["tags"], s["upos"], segment(s["words"], three.chars))
             for s in test}
    sub_roots = Counter()

    def parse_two(s):
        d = two.parse_detail(s["words"], s["tags"], s["upos"])
        sub_roots.update(sub_root_counts(d["sub_roots"], sub_root_types(
            s["heads"], segment(s["words"], two.chars))))
        return d["heads"], d["labels"]

    parsers = {
        "one": lambda s: one.parse(s["words"], s["tags"], s["upos"]),
        "two": parse_two,
        "three": lambda s: three.parse(s["words"], s["tags"], s["upos"], flags=flags[id(s)]),
        "three_gold": lambda s: three.parse(s["words"], s["tags"], s["upos"], "gold", s["heads"]),
        "three_all": lambda s: three.parse(s["words"], s["tags"], s["upos"], "all"),
    }
    methods = {}
    for m in METHODS:
        methods[m] = score_method(parsers[m], test)
        methods[m]["train_seconds"] = sum(train_times[m.split("_")[0]].values())
        log(m, f"LAS {100 * methods[m]['las']:.2f} UAS {100 * methods[m]['uas']:.2f}",
            f"parse {methods[m]['parse_seconds']:.1f}s")
    return {
        "dataset": name, "description": desc, "train": train_path, "test": test_path,
        "test_tags": "predicted (spaCy tagger, EWT train; UPOS mapped from XPOS)"
        if tag_mode == "predicted" else "gold tags", "train_tags": "gold",
        "sentence_boundaries": "gold", "order": args.order, "epochs": args.epochs,
        "quick": bool(args.quick or args.limit_train_docs or args.limit_eval_docs),
        "train_seconds": train_times, "table1": stats,
        "sub_roots": dict(sub_roots), "classifier": classifier_counts(three, test),
        "methods": methods,
    }


# -- tables and plot ---------------------------------------------------------------------------

def _pct(x: float) -> str:
    return f"{100 * x:.2f}"


def _pvalues(m: dict, a: str, b: str, measure: str) -> Dict[str, float]:
    """One-sided Wilcoxon p-values that method a beats b, over sentences and documents."""
    xs = [s[measure] / s["n"] for s in m["methods"][a]["per_sentence"] if s["n"]]
    ys = [s[measure] / s["n"] for s in m["methods"][b]["per_sentence"] if s["n"]]
    out = {"sent": significance.wilcoxon_greater(xs, ys)}
    try:
        dx, dy = significance.paired(m["methods"][a], m["methods"][b], measure)
        out["doc"] = significance.wilcoxon_greater(dx, dy) if len(dx) > 1 else float("nan")
    except ValueError:
        out["doc"] = float("nan")
    return out


def load_metrics(out: Path) -> Dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "metrics").glob("*.json"))}


def markdown(metrics: Dict[str, dict]) -> str:
    lines = ["# Punctuation fragments: one-, two- and three-stage parsing (Li, Che & Liu)", "",
             "Generated by `python scripts/fragments_experiment.py table` (project `punctuation`) from "
             "`metrics/*.json`. LAS/UAS in % over all tokens (punctuation included, as in "
             "CoNLL 2009; `np` = punctuation excluded), gold sentence boundaries. p: one-sided "
             "Wilcoxon signed-rank test against one-stage, over sentences / documents. The paper's "
             "numbers are on the CoNLL 2009 Chinese test set with a Carreras-style parser. Times are "
             "wall-clock seconds of one process on a shared machine (other jobs running): compare "
             "methods within a run, not across runs. Three-stage training time includes the "
             "ALL-parser (= the one-stage parser); its parse time excludes the IF/WF classifier, "
             "as in the paper's Figure 3.", ""]
    for name, m in metrics.items():
        ms = m["methods"]
        lines += [f"## {name}: {m['description']}", "",
                  f"Order-{m['order']} graph parser, {m['epochs']} perceptron epochs; training tags "
                  f"{m['train_tags']}, test tags **{m['test_tags']}**; sentence boundaries "
                  f"{m['sentence_boundaries']}." + (" **Quick run (subsets).**" if m["quick"] else ""),
                  "", "| Method | LAS | UAS | LAS np | UAS np | p LAS (sent/doc) | p UAS (sent/doc) "
                  "| train s | parse s | paper LAS | paper UAS |",
                  "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"]
        labels = {"one": "One-stage", "two": "Two-stage", "three": "Three-stage (WF-classifier)",
                  "three_gold": "Three-stage, WF-gold", "three_all": "Three-stage, WF-all"}
        for k in METHODS:
            r = ms[k]
            if k == "one":
                pl = pu = "–"
            else:
                a, b = _pvalues(m, k, "one", "las"), _pvalues(m, k, "one", "uas")
                pl = f"{a['sent']:.3g} / {a['doc']:.3g}"
                pu = f"{b['sent']:.3g} / {b['doc']:.3g}"
            paper = PAPER[k]
            lines.append(f"| {labels[k]} | {_pct(r['las'])} | {_pct(r['uas'])} | "
                         f"{_pct(r['las_nopunct'])} | {_pct(r['uas_nopunct'])} | {pl} | {pu} | "
                         f"{r['train_seconds']:.1f} | {r['parse_seconds']:.1f} | {paper[0]} | {paper[1]} |")
        t1 = m["table1"]
        lines += ["", "Table I (split punctuation , : ; . ? ! and full-width forms):", "",
                  "| Split | Sent | Frag | WF | Sub-root | Sub-root#2 | WF % | #2 % |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for split, s in t1.items():
            lines.append(f"| {split} | {s['sentences']:,} | {s['fragments']:,} | {s['wf']:,} | "
                         f"{s['sub_roots']:,} | {s['sub_roots_type2']:,} | {100 * s['wf_share']:.1f} | "
                         f"{100 * s['type2_share']:.1f} |")
        c = m["classifier"]
        div = lambda a, b: 100 * a / b if b else 0.0  # noqa: E731
        lines += ["", "Table II (IF/WF classifier on the test set; paper: IF R/P 46.4/28.1, "
                  "WF R/P 84.8/92.5, accuracy 80.4):", "",
                  "| IF recall | IF precision | WF recall | WF precision | Accuracy |",
                  "|---:|---:|---:|---:|---:|",
                  f"| {div(c.get('both_if', 0), c.get('gold_if', 0)):.1f} | "
                  f"{div(c.get('both_if', 0), c.get('pred_if', 0)):.1f} | "
                  f"{div(c.get('both_wf', 0), c.get('gold_wf', 0)):.1f} | "
                  f"{div(c.get('both_wf', 0), c.get('pred_wf', 0)):.1f} | "
                  f"{div(c.get('correct', 0), c.get('total', 0)):.1f} |"]
        s = m["sub_roots"]
        lines += ["", "Table IV (FRG-parser sub-roots on the test set):", "",
                  "| | Gold | System | Correct | Recall | Precision | paper R / P |",
                  "|---|---:|---:|---:|---:|---:|---|",
                  f"| Sub-root | {s.get('gold', 0)} | {s.get('system', 0)} | {s.get('correct', 0)} | "
                  f"{div(s.get('correct', 0), s.get('gold', 0)):.1f} | "
                  f"{div(s.get('correct', 0), s.get('system', 0)):.1f} | 81.4 / 85.0 |",
                  f"| Sub-root#1 | {s.get('gold1', 0)} | – | {s.get('correct1', 0)} | "
                  f"{div(s.get('correct1', 0), s.get('gold1', 0)):.1f} | – | 84.0 / – |",
                  f"| Sub-root#2 | {s.get('gold2', 0)} | – | {s.get('correct2', 0)} | "
                  f"{div(s.get('correct2', 0), s.get('gold2', 0)):.1f} | – | 26.3 / – |"]
        lines += ["", "Parse time (ms per sentence, mean) by sentence length:", "",
                  "| Length | Sentences | " + " | ".join(labels[k] for k in ("one", "two", "three")) + " |",
                  "|---|---:|---:|---:|---:|"]
        for lo, hi, n, means in time_bins(m, (1, 21, 41, 61, 10 ** 6)):
            label = f"{lo}–{hi - 1}" if hi < 10 ** 6 else f"≥ {lo}"
            lines.append(f"| {label} | {n} | " + " | ".join(
                f"{1000 * means[k]:.1f}" if n else "–" for k in ("one", "two", "three")) + " |")
        lines.append("")
    return "\n".join(lines)


def time_bins(m: dict, edges: Sequence[int]):
    """``(lo, hi, n_sentences, {method: mean seconds})`` for lengths in [lo, hi)."""
    for lo, hi in zip(edges, edges[1:]):
        means = {}
        n = 0
        for k in ("one", "two", "three"):
            xs = [p["seconds"] for p in m["methods"][k]["per_sentence"] if lo <= p["n"] < hi]
            n = len(xs)
            means[k] = sum(xs) / len(xs) if xs else float("nan")
        yield lo, hi, n, means


def plot(metrics: Dict[str, dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(metrics), figsize=(5 * len(metrics), 4), squeeze=False)
    edges = [1] + [b + 1 for b in BINS]
    for ax, (name, m) in zip(axes[0], metrics.items()):
        for k, label in (("one", "one-stage"), ("two", "two-stage"), ("three", "three-stage")):
            xs, ys = [], []
            for lo, hi, n, means in time_bins(m, edges):
                if n:
                    xs.append((lo + hi - 1) / 2)
                    ys.append(1000 * means[k])
            ax.plot(xs, ys, marker="o", label=label)
        ax.set_title(f"{name}: {m['description']}" + (" (quick)" if m["quick"] else ""), fontsize=9)
        ax.set_xlabel("sentence length (tokens, bins of 10, ≤ 110)")
        ax.set_ylabel("parse time per sentence (ms)")
        ax.set_xlim(0, 110)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- CLI ---------------------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python scripts/fragments_experiment.py",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "table", "plot", "all"),
                    help="run: train and score (then table and plot); table / plot: from metrics")
    ap.add_argument("--out", default="results/fragments", help="output folder")
    ap.add_argument("--data", default=DATA, help="folder with en_ewt/, en_gum/, zh_gsdsimp/")
    ap.add_argument("--tagger", default=TAGGER, help="spaCy pipeline with an EWT tagger")
    ap.add_argument("--datasets", default="ewt,gum,zh")
    ap.add_argument("--order", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-rows", type=int, default=1 << 21)
    ap.add_argument("--label-rows", type=int, default=1 << 18)
    ap.add_argument("--quick", action="store_true", help="small subsets, 2 epochs (smoke run)")
    ap.add_argument("--quick-train", type=int, default=1000)
    ap.add_argument("--quick-test", type=int, default=300)
    ap.add_argument("--limit-train-docs", type=int, default=0, help="first N training documents (0: all)")
    ap.add_argument("--limit-eval-docs", type=int, default=0, help="first N test documents (0: all)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.quick:
        args.epochs = min(args.epochs, 2)
    if args.command in ("run", "all"):
        (out / "metrics").mkdir(parents=True, exist_ok=True)
        for name in args.datasets.split(","):
            result = run_dataset(name, args)
            (out / "metrics" / f"{name}.json").write_text(json.dumps(result, indent=1))
    metrics = load_metrics(out)
    if not metrics:
        print(f"no metrics in {out / 'metrics'}", file=sys.stderr)
        return 1
    if args.command in ("run", "all", "table"):
        (out / "results.md").write_text(markdown(metrics))
        print(f"wrote {out / 'results.md'}")
    if args.command in ("run", "all", "plot"):
        plot(metrics, out / "parse_time.png")
        print(f"wrote {out / 'parse_time.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
