"""Table 4 analogue (Spitkovsky et al. 2011, §4): the supervised DMV and unsupervised DMVs
(standard training, and constrained training under each of the five constraints), each decoded
unconstrained and under each constraint; directed accuracy on all test words and on sentences
of at most ten words; gold tags. Writes table4.json, table4.md and table4.png to --output.

    python scripts/table4.py --train TRAIN.conllu --test TEST.conllu --output results/full
"""
import argparse
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from common import (BASELINES, fmt_p, load, load_punct_as_words, paired_p, predicted_tag_sentences,
                    score, score_baseline, score_forgiving, strip_per_doc, write_json)
from spacy_joint_sbd.dmv.model import induce, supervised
from spacy_joint_sbd.graph.constraints import ALL_CONSTRAINTS, CONSTRAINTS

PAPER = {  # Table 4 (WSJ∞, WSJ10), all with the weighted initializer; inference = sprawl
    ("supervised", "none"): (69.8, 83.6), ("supervised", "sprawl"): (73.0, 84.3),
    ("none", "none"): (52.0, 63.2), ("none", "sprawl"): (54.0, 63.6),
    ("loose", "none"): (55.6, 67.0), ("loose", "sprawl"): (57.4, 67.5),
    ("punct_as_words", "none"): (41.7, 54.8),
}
PAPER_ROWS = [("Supervised DMV", "supervised", "none"), ("w/ Constrained Inference", "supervised", "sprawl"),
              ("Punctuation as Words (forgiving scoring)", "punct_as_words", "none"),
              ("Standard Training", "none", "none"), ("w/ Constrained Inference", "none", "sprawl"),
              ("Constrained Training (loose)", "loose", "none"), ("w/ Constrained Inference", "loose", "sprawl")]


def run(args: argparse.Namespace) -> Dict:
    train = load(Path(args.train), args.tags, args.max_train_sents)
    test = load(Path(args.test), args.tags)
    trainings = ["supervised"] + [t for t in args.train_constraints.split(",") if t]
    out: Dict = {"tags": f"gold {args.tags}", "train": str(args.train), "test": str(args.test),
                 "max_iter": args.max_iter, "patience": args.patience, "lex_min_count": 0,
                 "train_sentences": len(train), "test_sentences": len(test), "rows": {}}
    full: Dict[str, Dict[str, Dict]] = {}
    pred_test = None
    if args.predicted_tags:
        if args.tags != "upos":
            raise SystemExit("--predicted-tags needs --tags upos (the tagger predicts UPOS)")
        pred_test, tag_acc = predicted_tag_sentences(Path(args.train), Path(args.test))
        out["predicted"] = {"tagger": "spacy_joint_sbd.tagger (perceptron, 5 epochs, trained on the training file)",
                            "tagger_accuracy_words": tag_acc, "rows": {}}
    for tr in trainings:
        t0 = time.time()
        if tr == "supervised":
            model, traces = supervised(train), {}
        else:
            ind = induce(train, tr, max_iter=args.max_iter, patience=args.patience)
            model = ind.stage2
            traces = {k: {"iterations": len(v.xent), "best_iteration": v.best_iteration,
                          "xent_bits": v.xent, "strict_fallbacks": v.fallbacks}
                      for k, v in ind.traces.items()}
        train_s = time.time() - t0
        full[tr] = {c: score(model, test, c) for c in ALL_CONSTRAINTS}
        base = full[tr]["none"]
        row = {"train_seconds": round(train_s, 1), "em": traces, "decode": {}}
        for c, res in full[tr].items():
            r = strip_per_doc(res)
            if c != "none":
                r["gain"] = res["acc"] - base["acc"]
                r["gain10"] = res["acc10"] - base["acc10"]
                r["p_greater"] = paired_p(res, base)
                r["p_less"] = paired_p(base, res)
            row["decode"][c] = r
        out["rows"][tr] = row
        if pred_test is not None:
            pr = {c: score(model, pred_test, c) for c in ("none", "sprawl")}
            out["predicted"]["rows"][tr] = {
                "none": strip_per_doc(pr["none"]), "sprawl": strip_per_doc(pr["sprawl"]),
                "gain": pr["sprawl"]["acc"] - pr["none"]["acc"],
                "p_greater": paired_p(pr["sprawl"], pr["none"]), "p_less": paired_p(pr["none"], pr["sprawl"])}
        print(f"{tr}: trained in {train_s:.0f}s; " + ", ".join(
            f"{c} {row['decode'][c]['acc']:.1f}" for c in ALL_CONSTRAINTS), flush=True)
    if args.punct_as_words:
        t0 = time.time()
        pw_test = load_punct_as_words(Path(args.test), args.tags)
        pw = induce([s for s, _, _ in load_punct_as_words(Path(args.train), args.tags, args.max_train_sents)],
                    "none", max_iter=args.max_iter, patience=args.patience).stage2
        res = score_forgiving(pw, pw_test)
        out["punct_as_words"] = {"train_seconds": round(time.time() - t0, 1), "decode": {"none": strip_per_doc(res)}}
        if "none" in full:
            out["punct_as_words"]["p_vs_standard_less"] = paired_p(full["none"]["none"], res)
        print(f"punctuation as words: {res['acc']:.1f}", flush=True)
    out["baselines"] = {}
    for kind, what in BASELINES.items():
        res = score_baseline(test, kind)
        out["baselines"][kind] = {**strip_per_doc(res), "what": what}
        if "none" in full:  # p that standard training beats the baseline, and the reverse
            out["baselines"][kind]["p_standard_better"] = paired_p(full["none"]["none"], res)
            out["baselines"][kind]["p_standard_worse"] = paired_p(res, full["none"]["none"])
    if "none" in full:
        out["training_vs_standard"] = {
            tr: {c: paired_p(full[tr][c], full["none"]["none"]) for c in ("none", "sprawl")}
            for tr in full if tr not in ("none", "supervised")}
    return out


def markdown(res: Dict) -> str:
    rows = res["rows"]
    lines = [f"# Table 4 analogue: DMV on {Path(res['test']).parent.name} ({res['tags']} tags)", "",
             f"Directed accuracy (%, root included, punctuation stripped), test `{res['test']}`, "
             f"{res['test_sentences']} sentences; trained on `{res['train']}` "
             f"({res['train_sentences']} sentences; unsupervised: two-stage scaffolding <= 15 "
             f"then <= 45 words, at most {res['max_iter']} Viterbi-EM iterations per stage, "
             f"patience {res['patience']}, unlexicalized). **Gold tags.**", "",
             "## In the paper's layout (inference = sprawl, constrained training = loose)", "",
             "| System | all words | <= 10 words | paper WSJ∞ | paper WSJ10 |", "|---|---|---|---|---|"]
    for label, tr, dc in PAPER_ROWS:
        if tr == "punct_as_words" and "punct_as_words" in res:
            d = res["punct_as_words"]["decode"]["none"]
            lines.append(f"| {label} | {d['acc']:.1f} | {d['acc10']:.1f} | 41.7 | 54.8 |")
            continue
        if tr not in rows:
            continue
        d = rows[tr]["decode"][dc]
        extra = "" if dc == "none" else f" ({d['gain']:+.1f}, p={fmt_p(d['p_greater'])})"
        pw, p10 = PAPER[(tr, dc)]
        lines.append(f"| {label} | {d['acc']:.1f}{extra} | {d['acc10']:.1f} | {pw} | {p10} |")
    for kind, b in res.get("baselines", {}).items():
        p = "" if "p_standard_worse" not in b else \
            f" (standard training worse: p={fmt_p(b['p_standard_worse'])}, better: p={fmt_p(b['p_standard_better'])})"
        lines.append(f"| Baseline: {b['what']}{p} | {b['acc']:.1f} | {b['acc10']:.1f} | – | – |")
    lines += ["", "p: one-sided Wilcoxon signed-rank over test documents (per-document directed "
              "accuracy), constrained inference better than the same model decoded unconstrained.", "",
              "## Every training x every decoding constraint (all words / <= 10 words)", "",
              "| training \\ decoding | " + " | ".join(ALL_CONSTRAINTS) + " |",
              "|---|" + "---|" * len(ALL_CONSTRAINTS)]
    for tr, row in rows.items():
        cells = []
        for c in ALL_CONSTRAINTS:
            d = row["decode"][c]
            cell = f"{d['acc']:.1f} / {d['acc10']:.1f}"
            if c != "none":
                cell += f" ({d['gain']:+.1f}{'*' if (d['p_greater'] or 1) < 0.01 else ''}" \
                        f"{'!' if (d['p_less'] or 1) < 0.01 else ''})"
            cells.append(cell)
        lines.append(f"| {tr} | " + " | ".join(cells) + " |")
    lines += ["", "In parentheses: gain over the same model decoded unconstrained (all words); `*`: "
              "significantly better, `!`: significantly worse (one-sided Wilcoxon over documents, "
              "p < 0.01). `strict` has no tree in most punctuated sentences (§2.2): those are "
              "decoded (and, in strict training, parsed) unconstrained; test sentences decoded "
              "unconstrained under strict: " + ", ".join(
                  f"{tr} {row['decode']['strict']['fallbacks']}" for tr, row in rows.items()) + "."]
    if res.get("training_vs_standard"):
        lines += ["", "## Constrained vs standard training (p that constrained training is better)", "",
                  "| training | decoded unconstrained | decoded sprawl (vs standard, unconstrained) |",
                  "|---|---|---|"]
        for tr, ps in res["training_vs_standard"].items():
            lines.append(f"| {tr} | {fmt_p(ps['none'])} | {fmt_p(ps['sprawl'])} |")
    if res.get("predicted"):
        pr = res["predicted"]
        lines += ["", "## Predicted test tags (one column per setting)", "",
                  f"Word classes of the test words predicted by {pr['tagger']}: UPOS accuracy "
                  f"{pr['tagger_accuracy_words']:.1f}% on the test words. Models trained on gold tags; "
                  "punctuation (which tokens are marks) stays gold. Decoding: none vs sprawl.", "",
                  "| training | gold tags | gold tags w/ sprawl | predicted tags | predicted w/ sprawl (gain, p better / worse) |",
                  "|---|---|---|---|---|"]
        for tr, r in pr["rows"].items():
            g = rows[tr]["decode"]
            lines.append(f"| {tr} | {g['none']['acc']:.1f} | {g['sprawl']['acc']:.1f} | {r['none']['acc']:.1f} | "
                         f"{r['sprawl']['acc']:.1f} ({r['gain']:+.1f}, {fmt_p(r['p_greater'])} / {fmt_p(r['p_less'])}) |")
    lines += ["", "Training seconds: " + ", ".join(f"{tr} {r['train_seconds']}" for tr, r in rows.items()), ""]
    return "\n".join(lines)


def plot(res: Dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(res["rows"])
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(ALL_CONSTRAINTS)
    for k, c in enumerate(ALL_CONSTRAINTS):
        ax.bar([i + k * width for i in range(len(rows))],
               [res["rows"][r]["decode"][c]["acc"] for r in rows], width, label=f"decode {c}")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(rows))])
    ax.set_xticklabels(["supervised" if r == "supervised" else f"train {r}" for r in rows])
    ax.set_ylabel("directed accuracy, all words (%)")
    ax.set_title(f"DMV on {Path(res['test']).parent.name} test — {res['tags']} tags (Table 4 analogue)")
    ax.legend(fontsize=8, ncol=3)
    lo = min(res["rows"][r]["decode"][c]["acc"] for r in rows for c in ALL_CONSTRAINTS)
    ax.set_ylim(max(0, lo - 5), None)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def make_arg_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--tags", default="upos", choices=["upos", "xpos"])
    ap.add_argument("--train-constraints", default="none," + ",".join(CONSTRAINTS),
                    help="unsupervised trainings to run (comma-separated; 'none' = standard)")
    ap.add_argument("--max-iter", type=int, default=40)
    ap.add_argument("--patience", type=int, default=10)
    ap.add_argument("--max-train-sents", type=int, default=0, help="0: all")
    ap.add_argument("--predicted-tags", action="store_true",
                    help="also score with test tags predicted by the library's tagger (UPOS only)")
    ap.add_argument("--no-punct-as-words", dest="punct_as_words", action="store_false",
                    help="skip the 'punctuation as words' baseline (§3.3)")
    return ap


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = make_arg_parser().parse_args(argv)
    for t in args.train_constraints.split(","):
        if t and t not in ALL_CONSTRAINTS:
            raise SystemExit(f"unknown constraint {t!r}")
    res = run(args)
    out = Path(args.output)
    write_json(out / "table4.json", res)
    (out / "table4.md").write_text(markdown(res), encoding="utf8")
    plot(res, out / "table4.png")


if __name__ == "__main__":
    main()
