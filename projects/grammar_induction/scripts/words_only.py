"""Words-only decoding for the supervised graph parser (`sprawl_decoder` / `constrained_parser`):
decode the tree with punctuation as tokens (the old way: a mark can be the hub that makes strict
trivially true) and with the words only, marks stripped and re-attached afterwards (the paper's
way, `words_only=True`). One `GraphParser` (first or second order, `--order`) trained on gold
trees with gold tags; both decodings of the same scores under none and the five constraints.

Scores: UAS-P (heads of words, punctuation tokens not scored; a word whose predicted head is a
mark is wrong, as in the punctuation project's tables) and "forgiving" UAS-P (§3.2: a word's head
is its nearest non-punctuation ancestor), plus the number of words attached to punctuation.
Writes <name>.{json,md} to --output (--name, default words_only).

    python scripts/words_only.py --train TRAIN.conllu --test TEST.conllu --output results/full/words_only [--order 2 --name words_only_order2]
"""
import argparse
import time
from pathlib import Path
from typing import Dict, Optional, Sequence

from common import fmt_p, write_json
from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.graph.constraints import ALL_CONSTRAINTS
from spacy_joint_sbd.graph.parser import GraphParser, sentence_tuples
from spacy_joint_sbd.graph.punct_fragments import strip_punct
from spacy_joint_sbd.significance import wilcoxon_greater


def run(args: argparse.Namespace) -> Dict:
    train = read_conllu(args.train)
    if args.max_train_docs:
        train = train[:args.max_train_docs]
    test = read_conllu(args.test)
    t0 = time.time()
    parser = GraphParser(args.order, args.n_rows)
    parser.train(train, epochs=args.epochs)
    model = parser.averaged()
    train_s = time.time() - t0
    out: Dict = {"train": args.train, "test": args.test, "epochs": args.epochs, "order": args.order,
                 "tags": "gold", "train_seconds": round(train_s, 1), "results": {}}
    per_doc: Dict[str, Dict[str, Dict[str, list]]] = {}
    for words_only in (False, True):
        mode = "words_only" if words_only else "punct_in_tree"
        for c in ALL_CONSTRAINTS:
            strict_c = forg_c = n = to_punct = 0
            docs: Dict[str, list] = {}
            for rec in test:
                for words, tags, upos, gold, _ in sentence_tuples([rec]):
                    heads, _ = model.parse(words, tags, upos, c, words_only)
                    is_punct = [u == "PUNCT" for u in upos]
                    gw, _ = strip_punct(gold, is_punct)
                    fw, _ = strip_punct(heads, is_punct)
                    sc = sum(1 for i, p in enumerate(is_punct) if not p and heads[i] == gold[i])
                    to_punct += sum(1 for i, p in enumerate(is_punct) if not p and heads[i] >= 0 and is_punct[heads[i]])
                    fc = sum(a == b for a, b in zip(fw, gw))
                    strict_c += sc
                    forg_c += fc
                    n += len(gw)
                    d = docs.setdefault(rec.doc_id, [0, 0])
                    d[0] += sc
                    d[1] += len(gw)
            per_doc.setdefault(mode, {})[c] = docs
            out["results"].setdefault(mode, {})[c] = {
                "uas_p": 100.0 * strict_c / n, "forgiving_uas_p": 100.0 * forg_c / n, "words": n,
                "words_attached_to_punct": to_punct}
            print(f"{mode} {c}: UAS-P {100.0 * strict_c / n:.2f}, forgiving {100.0 * forg_c / n:.2f}, "
                  f"to punct {to_punct}", flush=True)

    def p(a: Dict[str, list], b: Dict[str, list]) -> float:
        ids = sorted(i for i in a if a[i][1])
        return wilcoxon_greater([a[i][0] / a[i][1] for i in ids], [b[i][0] / b[i][1] for i in ids])

    for mode in per_doc:
        for c in ALL_CONSTRAINTS[1:]:
            r = out["results"][mode][c]
            r["gain"] = r["uas_p"] - out["results"][mode]["none"]["uas_p"]
            r["p_greater"] = p(per_doc[mode][c], per_doc[mode]["none"])
            r["p_less"] = p(per_doc[mode]["none"], per_doc[mode][c])
    for c in ALL_CONSTRAINTS:
        out["results"]["words_only"][c]["p_vs_punct_in_tree_greater"] = p(per_doc["words_only"][c], per_doc["punct_in_tree"][c])
        out["results"]["words_only"][c]["p_vs_punct_in_tree_less"] = p(per_doc["punct_in_tree"][c], per_doc["words_only"][c])
    return out


ORDER_NAMES = {1: "First-order", 2: "Second-order (adjacent siblings)"}


def markdown(res: Dict) -> str:
    r = res["results"]
    lines = [f"# Supervised graph parser: punctuation in the tree vs words only ({Path(res['test']).parent.name})", "",
             f"{ORDER_NAMES[res['order']]} GraphParser, {res['epochs']} epochs, **gold tags**, trained on `{res['train']}`, "
             f"tested on `{res['test']}`. UAS-P: heads of words (marks not scored; a word headed by a "
             f"mark is wrong); forgiving: §3.2 (nearest non-punctuation ancestor). In brackets: gain over "
             f"the same decoding mode unconstrained, with one-sided Wilcoxon p over documents (better / worse).", "",
             "| decoding | punct in tree: UAS-P | forgiving | words -> punct | words only: UAS-P | forgiving | words -> punct | p (words only better) | p (worse) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in ALL_CONSTRAINTS:
        a, b = r["punct_in_tree"][c], r["words_only"][c]
        ga = "" if c == "none" else f" ({a['gain']:+.2f}; {fmt_p(a['p_greater'])} / {fmt_p(a['p_less'])})"
        gb = "" if c == "none" else f" ({b['gain']:+.2f}; {fmt_p(b['p_greater'])} / {fmt_p(b['p_less'])})"
        lines.append(f"| {c} | {a['uas_p']:.2f}{ga} | {a['forgiving_uas_p']:.2f} | {a['words_attached_to_punct']} | "
                     f"{b['uas_p']:.2f}{gb} | {b['forgiving_uas_p']:.2f} | {b['words_attached_to_punct']} | "
                     f"{fmt_p(b['p_vs_punct_in_tree_greater'])} | {fmt_p(b['p_vs_punct_in_tree_less'])} |")
    lines += ["", f"Training: {res['train_seconds']} s.", ""]
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--n-rows", type=int, default=1 << 22)
    ap.add_argument("--max-train-docs", type=int, default=0, help="0: all")
    ap.add_argument("--order", type=int, choices=(1, 2), default=1)
    ap.add_argument("--name", default="words_only", help="output file stem")
    args = ap.parse_args(argv)
    res = run(args)
    out = Path(args.output)
    write_json(out / f"{args.name}.json", res)
    (out / f"{args.name}.md").write_text(markdown(res), encoding="utf8")


if __name__ == "__main__":
    main()
