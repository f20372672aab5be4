"""Does the beam pay? Dev curves and training diagnostics of update strategies.

    python scripts/beam_curves.py --treebank en_ewt --variant star \
        --runs greedy:perceptron:1,greedy:pa:1,dlaso:pa:20 --epochs 40 --out results/full/beam/ewt-star

Every run trains `TransitionParser` (whole documents, SB predicted) from the same start on the
training documents of one treebank in one variant, with 10-fold jackknifed tags of the library's
perceptron tagger (the tags a parser gets at test time), and parses the dev documents (tagged by
a tagger trained on all training documents) after every epoch. A run stops after `--epochs` or
when dev (F1 + LAS) / 2 has not improved for `--patience` epochs ("until flat").

Per epoch it records the dev scores (boundary P/R/F1, UAS/LAS) and the training diagnostics the
engine reports (`updates.train_document`): violations (updates) per document, the share of gold
transitions the updates covered, the summed step size τ of the learner, and the documents whose
search ended with an unfinished best item (the finished-vs-unfinished comparison at the end of a
document). Writes one JSON per run, curves.png and summary.md (each run at its best epoch; the
gap of every beam run to the best greedy run at its own best epoch) beside them.
"""
import argparse
import dataclasses
import json
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy
import spacy
from tqdm import tqdm

from spacy_joint_sbd.corpus import DocRecord, read_conllu
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.corpus.variants import apply_variant
from spacy_joint_sbd.pipeline.joint.doc_encoding import encode_records
from spacy_joint_sbd.scoring import score_records
from spacy_joint_sbd.tagger import encode_doc, jackknife, train_tagger
from spacy_joint_sbd.transition import DEFAULT_ATTRS, TransitionParser

STATS = ("violations", "errors", "used", "n_gold", "tau", "end_unfinished")


def load_split(ud: Path, treebank: str, split: str, variant: str) -> List[DocRecord]:
    """The non-empty documents of one treebank split in one variant."""
    recs = [apply_variant(r, variant) for r in read_conllu(ud / treebank / f"{split}.conllu")]
    return [r for r in recs if len(r.words)]


def tag_records(train: List[DocRecord], evals: Dict[str, List[DocRecord]], folds: int = 10, jackknifed: bool = True,
                epochs: int = 6, columns: Optional[Dict[str, List[numpy.ndarray]]] = None
                ) -> Tuple[List[DocRecord], Dict[str, List[DocRecord]], Dict[str, float]]:
    """Replace gold XPOS by the perceptron tagger's: training documents get `folds`-fold jackknifed tags
    (or, with `jackknifed=False`, the tags of a tagger trained on them: better than at test time),
    the evaluation sets tags of a tagger trained on every training document. Documents without
    gold XPOS (ATIS) are tagged, never learnt from. `columns` ("train" and each eval name → one
    (n, c) uint64 array per document, e.g. contextual cluster ids) are extra tagger features.
    Returns the tag accuracy of each set too."""
    vocab = spacy.blank("en").vocab

    def attrs(recs, name):
        enc = [encode_doc(record_to_doc(vocab, r)) for r in recs]
        if columns is None:
            return enc
        return [numpy.concatenate([a, numpy.asarray(c, dtype=numpy.uint64)], axis=1) for a, c in zip(enc, columns[name])]

    data = list(zip(attrs(train, "train"), [r.xpos for r in train]))
    ok = [all(r.xpos) for r in train]
    labels = sorted({t for (_, tags), good in zip(data, ok) if good for t in tags})
    tagger = train_tagger([d for d, good in zip(data, ok) if good], epochs=epochs, labels=labels)
    jk = (jackknife(data, folds=min(folds, len(data)), epochs=epochs, learn=ok) if jackknifed
          else [tagger.predict(d) for d, _ in data])
    tagged = {name: [tagger.predict(a) for a in attrs(recs, name)] for name, recs in evals.items()}

    def acc(pred, gold):
        pairs = [(p, g) for ps, gs, good in zip(pred, gold, [all(g) for g in gold]) if good for p, g in zip(ps, gs)]
        return round(100 * sum(p == g for p, g in pairs) / len(pairs), 2) if pairs else None

    tag_acc = {("jackknifed_train" if jackknifed else "train"): acc(jk, [r.xpos for r in train]),
               **{name: acc(tagged[name], [r.xpos for r in evals[name]]) for name in evals}}
    return ([dataclasses.replace(r, xpos=t) for r, t in zip(train, jk)],
            {name: [dataclasses.replace(r, xpos=t) for r, t in zip(evals[name], tagged[name])] for name in evals},
            tag_acc)


def tagged_data(ud: Path, treebank: str, train_split: str, dev_split: str, variant: str,
                folds: int) -> Tuple[List[DocRecord], List[DocRecord], List[DocRecord], Dict]:
    """(train records with jackknifed tags, dev records with predicted tags, dev gold, tag accuracy)."""
    train, dev = load_split(ud, treebank, train_split, variant), load_split(ud, treebank, dev_split, variant)
    train_tagged, evals, tag_acc = tag_records(train, {"dev": dev}, folds)
    return train_tagged, evals["dev"], dev, tag_acc


def engine_docs(parser: TransitionParser, records: List[DocRecord], columns: Optional[List[numpy.ndarray]] = None) -> List:
    """The engine's documents of `records`, with extra uint64 feature columns appended if given."""
    docs = encode_records(records, parser.labels, DEFAULT_ATTRS)
    return _with_columns(docs, columns) if columns is not None else docs


def train_epoch(parser: TransitionParser, tdocs: List, update: str, beam: int, epoch: int) -> Dict:
    """One pass over the documents in the epoch's order; the engine's summed diagnostics, the number of
    documents and the CPU seconds."""
    t0 = time.process_time()
    totals = dict.fromkeys(STATS, 0)
    totals["docs"] = 0
    for i in numpy.random.RandomState(epoch).permutation(len(tdocs)):
        doc = tdocs[i]
        if len(doc) == 0:
            continue
        stats = parser.engine.train(doc.attrs, parser.oracle(doc), update, beam, parser.learner, parser._fixed(doc))
        totals["docs"] += 1
        for k in STATS:
            totals[k] += stats.get(k, 0)
    totals["cpu_s"] = time.process_time() - t0
    return totals


def predict(parser: TransitionParser, ddocs: List, gold: List[DocRecord], beam: int,
            sb_bias: float = 0.0) -> Tuple[List[DocRecord], float]:
    """The parses of `ddocs` as records beside `gold`, and the parse's CPU seconds."""
    t0 = time.process_time()
    parses = parser.parse(ddocs, beam_width=beam, sb_bias=sb_bias)
    parse_s = time.process_time() - t0
    return [dataclasses.replace(g, heads=[int(h) for h in p.heads],
                                deps=[parser.labels.decode(int(lab)) for lab in p.labels],
                                sent_starts=[bool(s) for s in p.sent_starts]) for p, g in zip(parses, gold)], parse_s


def run(name: str, update: str, learner: str, beam: int, train: List[DocRecord], dev: List[DocRecord],
        gold: List[DocRecord], epochs: int, patience: int, out: Path, meta: Dict,
        extra: Optional[Tuple[List[str], List[numpy.ndarray], List[numpy.ndarray]]] = None) -> Dict:
    """One dev curve. `extra` = (column names, per-train-doc and per-dev-doc uint64 column arrays)
    appended to the engine's attributes (e.g. the context clusters of `context_features.py`)."""
    names = list(extra[0]) if extra else []
    parser = TransitionParser.from_records(train, learner=learner, attrs=(*DEFAULT_ATTRS, *names))
    tdocs = engine_docs(parser, train, extra[1] if extra else None)
    ddocs = engine_docs(parser, dev, extra[2] if extra else None)
    curve, best, since = [], -1.0, 0
    for epoch in tqdm(range(1, epochs + 1), desc=name):
        totals = train_epoch(parser, tdocs, update, beam, epoch)
        docs = totals["docs"]
        preds, parse_s = predict(parser, ddocs, gold, beam)
        sc = score_records(preds, gold).scores()
        row = {"epoch": epoch, "train_cpu_s": round(totals["cpu_s"], 1),
               "dev_tokens_per_s": round(sum(map(len, ddocs)) / parse_s),
               "violations_per_doc": round(totals["violations"] / docs, 1),
               "gold_used_pct": round(100 * totals["used"] / max(totals["n_gold"], 1), 1),
               "tau_per_doc": round(totals["tau"] / docs, 4), "end_unfinished_docs": totals["end_unfinished"],
               **{k: round(100 * sc[f"sents_{k}"], 2) for k in "prf"},
               "uas": round(100 * sc["dep_uas"], 2), "las": round(100 * sc["dep_las"], 2)}
        curve.append(row)
        tqdm.write(f"{name} {epoch}: F1 {row['f']:.2f} LAS {row['las']:.2f} viol/doc {row['violations_per_doc']}")
        objective = (row["f"] + row["las"]) / 2
        best, since = (objective, 0) if objective > best else (best, since + 1)
        result = {"name": name, "update": update, "learner": learner, "beam": beam, **meta, "curve": curve,
                  "best_epoch": max(curve, key=lambda c: (c["f"] + c["las"]) / 2)["epoch"]}
        (out / f"{name}.json").write_text(json.dumps(result, indent=1))
        if since >= patience:
            break
    return result


def _with_columns(docs: List, cols: List[numpy.ndarray]) -> List:
    return [dataclasses.replace(d, attrs=numpy.ascontiguousarray(numpy.hstack([d.attrs, c])), oracle_cache={})
            for d, c in zip(docs, cols)]


def plot(out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    for r in runs:
        ep = [c["epoch"] for c in r["curve"]]
        axes[0].plot(ep, [c["las"] for c in r["curve"]], label=r["name"])
        axes[1].plot(ep, [c["f"] for c in r["curve"]], label=r["name"])
        axes[2].plot(ep, [c["violations_per_doc"] for c in r["curve"]], label=r["name"])
    for ax, title in zip(axes, ("dev LAS", "dev boundary F1", "updates (violations) per document")):
        ax.set_title(title)
        ax.set_xlabel("epoch")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    if runs:
        fig.suptitle(f"{runs[0]['treebank']} {runs[0]['variant']}: {runs[0]['train_split']} -> {runs[0]['dev_split']}, "
                     "jackknifed perceptron tags")
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=110)


def summary(out: Path) -> str:
    """summary.md: every run at its best dev epoch, and each beam run against the best greedy run."""
    runs = [json.loads(p.read_text()) for p in sorted(out.glob("*.json"))]
    if not runs:
        return ""

    def at_best(r):
        return next(c for c in r["curve"] if c["epoch"] == r["best_epoch"])

    lines = [f"# {runs[0]['treebank']} {runs[0]['variant']}: dev curves of the update strategies",
             "", f"Train {runs[0]['train_split']} ({runs[0]['train_docs']} documents) -> {runs[0]['dev_split']} "
             f"({runs[0]['dev_docs']} documents); jackknifed perceptron tags (XPOS accuracy {runs[0]['tag_accuracy']}). "
             "Best epoch = highest dev (F1 + LAS) / 2; a run stops when that is flat for the patience.", "",
             "| run | epochs run | best epoch | F1 | LAS | UAS | updates / doc (first, last) | tau / doc (last) "
             "| docs ending unfinished (last) | train CPU s / epoch | dev tokens/s |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        b, c0, cl = at_best(r), r["curve"][0], r["curve"][-1]
        train_s = sum(c["train_cpu_s"] for c in r["curve"]) / len(r["curve"])
        lines.append(f"| {r['name']} | {len(r['curve'])} | {r['best_epoch']} | {b['f']:.2f} | {b['las']:.2f} | {b['uas']:.2f} "
                     f"| {c0['violations_per_doc']}, {cl['violations_per_doc']} | {cl['tau_per_doc']} "
                     f"| {cl['end_unfinished_docs']} | {train_s:.1f} | {b['dev_tokens_per_s']} |")
    greedy = [r for r in runs if r["update"] == "greedy"]
    if greedy:
        g = max(greedy, key=lambda r: (at_best(r)["f"] + at_best(r)["las"]) / 2)
        gb = at_best(g)
        lines += ["", f"Against the best greedy run ({g['name']}, epoch {g['best_epoch']}):", ""]
        for r in runs:
            if r["update"] != "greedy":
                b = at_best(r)
                lines.append(f"- {r['name']} (epoch {r['best_epoch']}): LAS {b['las'] - gb['las']:+.2f}, "
                             f"boundary F1 {b['f'] - gb['f']:+.2f}")
    text = "\n".join(lines) + "\n"
    (out / "summary.md").write_text(text)
    return text


def add_data_args(ap: argparse.ArgumentParser, runs: str, epochs: int, patience: int) -> None:
    """The options every experiment script of the project shares."""
    ap.add_argument("--ud", type=Path, default=Path("../../assets/ud"))
    ap.add_argument("--treebank", default="en_ewt")
    ap.add_argument("--train-split", default="train")
    ap.add_argument("--dev-split", default="dev")
    ap.add_argument("--variant", default="star")
    ap.add_argument("--runs", default=runs, help="UPDATE:LEARNER:BEAM items, comma-separated")
    ap.add_argument("--epochs", type=int, default=epochs)
    ap.add_argument("--patience", type=int, default=patience)
    ap.add_argument("--limit", type=int, default=0, help="first N training and dev documents (smoke runs)")
    ap.add_argument("--out", type=Path, required=True)


def parse_runs(ap: argparse.ArgumentParser, text: str) -> List[Tuple[str, str, int]]:
    """`UPDATE:LEARNER:BEAM,...` as tuples; a malformed item is a usage error."""
    runs = []
    for item in text.split(","):
        try:
            update, learner, beam = item.split(":")
            runs.append((update, learner, int(beam)))
        except ValueError:
            ap.error(f"--runs item {item!r} is not UPDATE:LEARNER:BEAM")
    return runs


def load(args: argparse.Namespace) -> Tuple[List[DocRecord], List[DocRecord], List[DocRecord], Dict]:
    """(train, tagged dev, gold dev, meta) of the data options, `--limit` applied."""
    if args.limit < 0 or args.epochs < 1:
        raise SystemExit("--limit must be >= 0 and --epochs >= 1")
    args.out.mkdir(parents=True, exist_ok=True)
    train, dev, gold, tag_acc = tagged_data(args.ud, args.treebank, args.train_split, args.dev_split, args.variant, 10)
    if args.limit:
        train, dev, gold = train[: args.limit], dev[: args.limit], gold[: args.limit]
    print(f"tags (XPOS accuracy): {tag_acc}")
    return train, dev, gold, {"treebank": args.treebank, "variant": args.variant, "train_split": args.train_split,
                              "dev_split": args.dev_split, "tag_accuracy": tag_acc, "train_docs": len(train),
                              "dev_docs": len(dev)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_args(ap, runs="greedy:perceptron:1,greedy:pa:1,dlaso:pa:20", epochs=40, patience=10)
    args = ap.parse_args()
    runs = parse_runs(ap, args.runs)
    train, dev, gold, meta = load(args)
    for update, learner, beam in runs:
        run(f"{update}-{learner}-beam{beam}", update, learner, beam, train, dev, gold, args.epochs, args.patience,
            args.out, meta)
        plot(args.out)
        summary(args.out)


if __name__ == "__main__":
    main()
