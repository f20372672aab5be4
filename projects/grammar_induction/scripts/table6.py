"""Table 6 analogue (Spitkovsky et al. 2011, §8): grammar induction on every treebank of a UD
folder, gold UPOS tags, at each stage of training and with and without constrained inference:

1.  the weighted initializer (§3.1) on sentences of <= 15 words;
2.  Viterbi EM on <= 15 words (standard training);
3.  retraining on <= 45 words (standard training);
3'. the same scaffolding with constrained training (loose) and, in the second stage,
    lexicalization of frequent words (§6): "lexicalized and punctuated";
    (and, to attribute the net gain, 3'': constrained training without lexicalization);

each decoded unconstrained and under sprawl ("w/ Inference"). Net gain = 3' w/ inference - 3.
Trains on `train` where the treebank has one, else on `dev`; tests on `test` (on `dev` when there
is no `test`). Writes table6.json, table6.md and table6.png to --output.

    python scripts/table6.py --data-dir ../../../shared/data/ud --output results/full
"""
import argparse
import json
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from common import fmt_p, load, paired_p, predicted_tag_sentences, score, strip_per_doc, write_json
from spacy_joint_sbd.significance import wilcoxon_greater
from spacy_joint_sbd.dmv.model import induce

STAGES = [("1", "init"), ("2", "stage1"), ("3", "stage2"), ("3'", "punct")]
PAPER = {  # Table 6 (CoNLL sets; the later year where there are two): inference gain at stage 3, net gain
    "bg_btb": ("Bulgarian '6", 1.1, 1.6), "da_ddt": ("Danish '6", 0.9, 0.2),
    "de_gsd": ("German '6", 0.8, 1.6), "el_gdt": ("Greek '7", 0.5, 0.7),
    "en_ewt": ("English '7", 1.3, 2.8), "en_gum": ("English '7", 1.3, 2.8), "en_atis": ("English '7", 1.3, 2.8),
    "eu_bdt": ("Basque '7", 0.8, 0.6), "hu_szeged": ("Hungarian '7", 0.4, 1.4),
    "it_isdt": ("Italian '7", 0.1, -0.8), "ja_gsd": ("Japanese '6", 0.0, 0.1),
    "nl_alpino": ("Dutch '6", 1.0, 3.0), "pt_bosque": ("Portuguese '6", 0.7, 0.8),
    "sl_ssj": ("Slovenian '6", 2.0, 2.8), "sv_talbanken": ("Swedish '6", 0.5, 0.8),
    "tr_imst": ("Turkish '7", 0.2, 0.1),
}
"""The paper's row for each treebank's language (Chinese is not in its table)."""
INFERENCE = "sprawl"
TRAINING = "loose"


def splits(folder: Path) -> Optional[Tuple[Path, Path]]:
    """(train file, test file) of a treebank folder, or None when it cannot be split."""
    train = folder / "train.conllu"
    dev = folder / "dev.conllu"
    test = folder / "test.conllu"
    if train.exists():
        held = test if test.exists() else dev
        return (train, held) if held.exists() else None
    if dev.exists() and test.exists():
        return dev, test
    return None


def run_treebank(folder: Path, args: argparse.Namespace) -> Dict:
    tr_path, te_path = splits(folder)
    train = load(tr_path, "upos", args.max_train_sents)
    test = load(te_path, "upos", args.max_test_sents)
    t0 = time.time()
    standard = induce(train, "none", max_iter=args.max_iter, patience=args.patience)
    punct = induce(train, TRAINING, lex_min_count=args.lex_min_count, max_iter=args.max_iter,
                   patience=args.patience)
    # attribution: constrained training alone (unlexicalized), not a column of the paper's table
    punct_unlex = induce(train, TRAINING, max_iter=args.max_iter, patience=args.patience)
    train_s = time.time() - t0
    models = {"init": standard.init, "stage1": standard.stage1, "stage2": standard.stage2,
              "punct": punct.stage2, "punct_unlex": punct_unlex.stage2}
    full = {k: {c: score(m, test, c) for c in ("none", INFERENCE)} for k, m in models.items()}
    out: Dict = {"train": str(tr_path), "test": str(te_path), "train_sentences": len(train),
                 "test_sentences": len(test), "test_words": full["init"]["none"]["words"],
                 "documents": len(full["init"]["none"]["per_doc"]), "train_seconds": round(train_s, 1),
                 "lexicalized_classes": sum("|" in c for c in punct.stage2.classes),
                 "em_iterations": {f"standard {k}": len(v.xent) for k, v in standard.traces.items()}
                 | {f"punct {k}": len(v.xent) for k, v in punct.traces.items()},
                 "stages": {}}
    for key, res in full.items():
        base, inf = res["none"], res[INFERENCE]
        out["stages"][key] = {"none": strip_per_doc(base), INFERENCE: strip_per_doc(inf),
                              "gain": inf["acc"] - base["acc"], "p_greater": paired_p(inf, base),
                              "p_less": paired_p(base, inf)}
    u = full["punct_unlex"]["none"]
    out["training_gain_unlex"] = u["acc"] - full["stage2"]["none"]["acc"]
    out["training_unlex_p_greater"] = paired_p(u, full["stage2"]["none"])
    out["training_unlex_p_less"] = paired_p(full["stage2"]["none"], u)
    out["lexicalization_gain"] = full["punct"]["none"]["acc"] - u["acc"]
    if args.predicted_tags:
        pred, acc = predicted_tag_sentences(tr_path, te_path)
        if args.max_test_sents:
            pred = pred[:args.max_test_sents]
        ps = {k: {c: score(models[k], pred, c) for c in ("none", INFERENCE)} for k in ("stage2", "punct")}
        out["predicted"] = {"tagger_accuracy_words": acc,
                            "stage2": {c: strip_per_doc(v) for c, v in ps["stage2"].items()},
                            "punct": {c: strip_per_doc(v) for c, v in ps["punct"].items()},
                            "net_gain": ps["punct"][INFERENCE]["acc"] - ps["stage2"]["none"]["acc"],
                            "net_p_greater": paired_p(ps["punct"][INFERENCE], ps["stage2"]["none"]),
                            "net_p_less": paired_p(ps["stage2"]["none"], ps["punct"][INFERENCE])}
    a, b = full["punct"][INFERENCE], full["stage2"]["none"]
    out["net_gain"] = a["acc"] - b["acc"]
    out["net_p_greater"] = paired_p(a, b)
    out["net_p_less"] = paired_p(b, a)
    return out


def markdown(res: Dict) -> str:
    tbs = res["treebanks"]
    head = ["| Treebank | " + " | ".join(f"{s}. | w/ Inference" for s, _ in STAGES) +
            " | Net gain | p (gain > 0) | p (gain < 0) |",
            "|---|" + "---|---|" * len(STAGES) + "---|---|---|"]
    lines = ["# Table 6 analogue: DMV grammar induction per treebank (gold tags: UPOS)", "",
             f"Directed accuracy (%, root included, punctuation stripped) on each treebank's test "
             f"set (dev where none), all sentence lengths. Stages 1-3 unlexicalized, standard "
             f"training; 3' constrained training ({TRAINING}) and lexicalization of words seen >= "
             f"{res['lex_min_count']} times in the second stage; inference = {INFERENCE}. At most "
             f"{res['max_iter']} Viterbi-EM iterations per stage (patience {res['patience']}). "
             f"p: one-sided Wilcoxon signed-rank over test documents. **Gold tags.**", ""] + head
    avg = {k: [0.0, 0.0] for _, k in STAGES}
    net = []
    for name, r in tbs.items():
        cells = []
        for _, k in STAGES:
            st = r["stages"][k]
            cells.append(f"{st['none']['acc']:.1f} | {st[INFERENCE]['acc']:.1f} ({st['gain']:+.1f})")
            avg[k][0] += st["none"]["acc"]
            avg[k][1] += st[INFERENCE]["acc"]
        net.append(r["net_gain"])
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {r['net_gain']:+.1f} | "
                     f"{fmt_p(r['net_p_greater'])} | {fmt_p(r['net_p_less'])} |")
    n = len(tbs)
    if n:
        lines.append("| Average | " + " | ".join(
            f"{avg[k][0] / n:.1f} | {avg[k][1] / n:.1f} ({(avg[k][1] - avg[k][0]) / n:+.1f})"
            for _, k in STAGES) + f" | {sum(net) / n:+.1f} | | |")
    lines += ["", "## Signs", "", "| effect | improved | unchanged | worsened | significant gain (p<0.01) | significant loss (p<0.01) |",
              "|---|---|---|---|---|---|"]
    for label, k in STAGES:
        gains = [r["stages"][k]["gain"] for r in tbs.values()]
        sig_g = sum((r["stages"][k]["p_greater"] or 1) < 0.01 for r in tbs.values())
        sig_l = sum((r["stages"][k]["p_less"] or 1) < 0.01 for r in tbs.values())
        lines.append(f"| inference at stage {label} | {sum(g > 0 for g in gains)} | "
                     f"{sum(g == 0 for g in gains)} | {sum(g < 0 for g in gains)} | {sig_g} | {sig_l} |")
    sig_g = sum((r["net_p_greater"] or 1) < 0.01 for r in tbs.values())
    sig_l = sum((r["net_p_less"] or 1) < 0.01 for r in tbs.values())
    lines.append(f"| net gain (3' w/ inference vs 3) | {sum(g > 0 for g in net)} | "
                 f"{sum(g == 0 for g in net)} | {sum(g < 0 for g in net)} | {sig_g} | {sig_l} |")
    tg = [r["training_gain_unlex"] for r in tbs.values()]
    lines.append(f"| constrained training alone (3'' vs 3, both unconstrained inference) | "
                 f"{sum(g > 0 for g in tg)} | {sum(g == 0 for g in tg)} | {sum(g < 0 for g in tg)} | "
                 f"{sum((r['training_unlex_p_greater'] or 1) < 0.01 for r in tbs.values())} | "
                 f"{sum((r['training_unlex_p_less'] or 1) < 0.01 for r in tbs.values())} |")
    lines += ["", "## Across treebanks", "",
              "One-sided Wilcoxon signed-rank over the treebanks (one accuracy pair per treebank; "
              "the paper reports p ≈ 4.3e-7 for inference and 1.6e-5 for constrained training over "
              "its 18 languages, test not named):", "",
              "| effect | treebanks | mean gain | p (gain > 0) | p (gain < 0) |", "|---|---|---|---|---|"]
    for label, k in STAGES:
        xs = [r["stages"][k][INFERENCE]["acc"] for r in tbs.values()]
        ys = [r["stages"][k]["none"]["acc"] for r in tbs.values()]
        if n >= 2:
            lines.append(f"| inference at stage {label} | {n} | {(sum(xs) - sum(ys)) / n:+.2f} | "
                         f"{fmt_p(wilcoxon_greater(xs, ys))} | {fmt_p(wilcoxon_greater(ys, xs))} |")
    if n >= 2:
        xs = [r["stages"]["punct"][INFERENCE]["acc"] for r in tbs.values()]
        ys = [r["stages"]["stage2"]["none"]["acc"] for r in tbs.values()]
        lines.append(f"| net gain (3' w/ inference vs 3) | {n} | {sum(net) / n:+.2f} | "
                     f"{fmt_p(wilcoxon_greater(xs, ys))} | {fmt_p(wilcoxon_greater(ys, xs))} |")
        xs = [r["stages"]["punct_unlex"]["none"]["acc"] for r in tbs.values()]
        lines.append(f"| constrained training alone (3'' vs 3) | {n} | {sum(tg) / n:+.2f} | "
                     f"{fmt_p(wilcoxon_greater(xs, ys))} | {fmt_p(wilcoxon_greater(ys, xs))} |")
    both = [(name, r) for name, r in tbs.items() if name in PAPER]
    if both:
        lines += ["", "## Beside the paper's Table 6", "",
                  "The paper's row for the same language (CoNLL 2006/2007 data, its own trees and "
                  "tags); same sign = whether our effect has the paper's sign (a paper gain of "
                  "0.0 counts as matched only by |gain| < 0.05).", "",
                  "| Treebank | paper row | inference gain at 3: ours / paper | net gain: ours / paper | same sign (inference, net) |",
                  "|---|---|---|---|---|"]
        agree = [0, 0]
        for name, r in both:
            row, p_inf, p_net = PAPER[name]
            inf = r["stages"]["stage2"]["gain"]
            s_inf = (inf > 0) == (p_inf > 0) if p_inf != 0 else abs(inf) < 0.05
            s_net = (r["net_gain"] > 0) == (p_net > 0)
            agree[0] += s_inf
            agree[1] += s_net
            lines.append(f"| {name} | {row} | {inf:+.1f} / {p_inf:+.1f} | {r['net_gain']:+.1f} / {p_net:+.1f} | "
                         f"{'yes' if s_inf else 'no'}, {'yes' if s_net else 'no'} |")
        lines.append(f"| **same sign** | | {agree[0]} of {len(both)} | {agree[1]} of {len(both)} | |")
    lines += ["", "## Attribution of the net gain (not in the paper's table)", "",
              "3'' = constrained training (loose) without lexicalization. Net gain = (3'' - 3) "
              "constrained training + (3' - 3'') lexicalization + (3' w/ inference - 3') inference.", "",
              "| Treebank | 3 | 3'' | 3' | 3' w/ inference | training | lexicalization | inference | net |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, r in tbs.items():
        st = r["stages"]
        lines.append(f"| {name} | {st['stage2']['none']['acc']:.1f} | {st['punct_unlex']['none']['acc']:.1f} | "
                     f"{st['punct']['none']['acc']:.1f} | {st['punct'][INFERENCE]['acc']:.1f} | "
                     f"{r['training_gain_unlex']:+.1f} | {r['lexicalization_gain']:+.1f} | "
                     f"{st['punct']['gain']:+.1f} | {r['net_gain']:+.1f} |")
    if n:
        lines.append(f"| Average | | | | | {sum(tg) / n:+.1f} | "
                     f"{sum(r['lexicalization_gain'] for r in tbs.values()) / n:+.1f} | "
                     f"{sum(r['stages']['punct']['gain'] for r in tbs.values()) / n:+.1f} | {sum(net) / n:+.1f} |")
    if any("predicted" in r for r in tbs.values()):
        lines += ["", "## Predicted tags (one column per setting)", "",
                  "Test UPOS predicted by the library's perceptron tagger trained on the treebank's "
                  "training file (the DMV's own training data); models trained on gold tags; which "
                  "tokens are punctuation stays gold.", "",
                  "| Treebank | tagger acc. | 3 | 3 w/ inference | 3' | 3' w/ inference | net gain | p (gain > 0) | p (gain < 0) |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for name, r in tbs.items():
            pr = r.get("predicted")
            if not pr:
                continue
            lines.append(f"| {name} | {pr['tagger_accuracy_words']:.1f} | {pr['stage2']['none']['acc']:.1f} | "
                         f"{pr['stage2'][INFERENCE]['acc']:.1f} | {pr['punct']['none']['acc']:.1f} | "
                         f"{pr['punct'][INFERENCE]['acc']:.1f} | {pr['net_gain']:+.1f} | "
                         f"{fmt_p(pr['net_p_greater'])} | {fmt_p(pr['net_p_less'])} |")
        pn = [r["predicted"]["net_gain"] for r in tbs.values() if "predicted" in r]
        lines.append(f"| Average | | | | | | {sum(pn) / len(pn):+.1f} | | |")
        lines.append("")
        lines.append(f"Net gain with predicted tags: better on {sum(g > 0 for g in pn)}, worse on "
                     f"{sum(g < 0 for g in pn)} of {len(pn)} treebanks.")
    worse = [f"{name} ({', '.join(s for s, k in STAGES if r['stages'][k]['gain'] < 0)})"
             for name, r in tbs.items() if any(r["stages"][k]["gain"] < 0 for _, k in STAGES)]
    lines += ["", "Treebanks where constrained inference is below unconstrained at some stage: "
              + (", ".join(worse) if worse else "none") + ".", "",
              "| Treebank | train | test | train sents | test sents | test docs | lexicalized classes | training s |",
              "|---|---|---|---|---|---|---|---|"]
    for name, r in tbs.items():
        lines.append(f"| {name} | {Path(r['train']).name} | {Path(r['test']).name} | {r['train_sentences']} | "
                     f"{r['test_sentences']} | {r['documents']} | {r['lexicalized_classes']} | {r['train_seconds']} |")
    return "\n".join(lines) + "\n"


def plot(res: Dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(res["treebanks"])
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(names) + 2), 4.5))
    w = 0.27
    series = [("inference gain, stage 3", [res["treebanks"][n]["stages"]["stage2"]["gain"] for n in names]),
              ("inference gain, stage 3'", [res["treebanks"][n]["stages"]["punct"]["gain"] for n in names]),
              ("net gain (3' w/ inf. - 3)", [res["treebanks"][n]["net_gain"] for n in names])]
    for k, (label, ys) in enumerate(series):
        ax.bar([i + k * w for i in range(len(names))], ys, w, label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks([i + w for i in range(len(names))])
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("directed accuracy change (points)")
    ax.set_title("DMV with punctuation constraints per treebank — gold tags (Table 6 analogue)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def make_arg_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default="", help="folder of <treebank>/{train,dev,test}.conllu")
    ap.add_argument("--report-only", action="store_true",
                    help="only rewrite table6.md and table6.png from --output's table6.json")
    ap.add_argument("--output", required=True)
    ap.add_argument("--treebanks", default="all", help="comma-separated folder names or 'all'")
    ap.add_argument("--max-iter", type=int, default=40)
    ap.add_argument("--patience", type=int, default=10)
    ap.add_argument("--lex-min-count", type=int, default=100)
    ap.add_argument("--max-train-sents", type=int, default=0, help="0: all")
    ap.add_argument("--predicted-tags", action="store_true",
                    help="also score stages 3 and 3' with test UPOS from the library's tagger")
    ap.add_argument("--max-test-sents", type=int, default=0, help="0: all")
    return ap


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = make_arg_parser().parse_args(argv)
    if args.report_only:  # table6.md and .png again from the JSON in --output
        out = Path(args.output)
        res = json.loads((out / "table6.json").read_text(encoding="utf8"))
        (out / "table6.md").write_text(markdown(res), encoding="utf8")
        plot(res, out / "table6.png")
        return
    data = Path(args.data_dir)
    names: List[str] = (sorted(p.name for p in data.iterdir() if p.is_dir())
                        if args.treebanks == "all" else args.treebanks.split(","))
    res: Dict = {"tags": "gold upos", "max_iter": args.max_iter, "patience": args.patience,
                 "lex_min_count": args.lex_min_count, "training": TRAINING, "inference": INFERENCE,
                 "max_train_sents": args.max_train_sents, "treebanks": {}}
    for name in names:
        if splits(data / name) is None:
            print(f"{name}: no train/test split, skipped", flush=True)
            continue
        r = res["treebanks"][name] = run_treebank(data / name, args)
        print(f"{name}: " + ", ".join(f"{s} {r['stages'][k]['none']['acc']:.1f}/{r['stages'][k][INFERENCE]['acc']:.1f}"
                                      for s, k in STAGES) + f", net {r['net_gain']:+.1f} ({r['train_seconds']}s)",
              flush=True)
    out = Path(args.output)
    write_json(out / "table6.json", res)
    (out / "table6.md").write_text(markdown(res), encoding="utf8")
    plot(res, out / "table6.png")


if __name__ == "__main__":
    main()
