"""The operating point of a trained joint parser: its SB biases (and the weight of a boundary
prior) chosen on dev.

The joint parser under-splits or over-splits by a margin that depends on the text: `sb_bias` is
added to the score of SB at every step, trading boundary precision for recall. Chosen on dev
boundary F1 it adds +1.8 F1 on EWT* test (projects/accuracy ablation, row 5). `spacy train`
cannot choose it (it only keeps the best epoch), so it is chosen after training: punctuated dev
text sets `sb_bias`, unpunctuated text `sb_bias_unpunctuated`, the bias the component uses for
Docs without sentence-final punctuation. A sweep (`sweep_sb_bias_scores` on gold tokens,
`sweep_raw_scores` on raw text) scores each bias of a grid, `best_bias` picks one, `set_sb_bias`
writes it; `tune_prior` chooses a prior's weight and the biases together; `tune_bias` does it all
for a saved pipeline (the `tune-bias` command). `Staged` runs the components before the parser
once per sweep.
"""
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.language import Language

from .corpus.docs import doc_to_record
from .corpus.raw_text import RawDoc, span_starts
from .corpus.readers import load_gold_docs, tokens_only
from .corpus.variants import VARIANTS
from .evaluation import PREDICT_BATCH, load_pipeline, predicted_records
from .persist.paths import atomic_dir
from .pipeline.joint.settings import is_finite_number
from .scoring import char_boundary_scores, score_records

PUNCT_GRID = (-0.2, -0.1, 0.0, 0.1, 0.2)
"""The `sb_bias` values tried on punctuated dev text."""
UNPUNCT_GRID = (-0.1, 0.0, 0.1, 0.2, 0.3, 0.4)
"""The `sb_bias_unpunctuated` values tried on unpunctuated dev text."""
KEYS = ("sb_bias", "sb_bias_unpunctuated")
UNPUNCTUATED_VARIANTS = ("star", "nopunct")
"""The corpus variants without punctuation: the component reads `sb_bias_unpunctuated` for them."""


def _joint_component(nlp: Language, component: str):
    if component not in nlp.pipe_names:
        raise ValueError(f"the pipeline has no component {component!r} (it has {nlp.pipe_names})")
    pipe = nlp.get_pipe(component)
    if not hasattr(pipe, "sb_bias_for") or not all(k in getattr(pipe, "cfg", {}) for k in KEYS):
        raise ValueError(f"component {component!r} is not a joint_sbd_parser (no SB bias to tune)")
    return pipe


def _checked_grid(key: str, grid: Sequence[float]) -> List[float]:
    """`grid` as floats for the setting `key`, or a ValueError (the sweeps' one check)."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {KEYS}, got {key!r}")
    grid = list(grid)
    if not grid or not all(is_finite_number(b) for b in grid):
        raise ValueError(f"the bias grid must be a non-empty list of finite numbers (|b| <= 1e30), got {grid!r}")
    return [float(b) for b in grid]


class Staged:
    """The pipeline split at `component`: the components before it run once over `inputs` (texts or
    Docs, read on first use), and each `run()` sends copies of those Docs through `component` and
    the components after it. A bias sweep changes only the component's settings, so every point
    of the sweep gets the Docs a whole run would give (the same batches, `batch_size` as
    `nlp.pipe`'s), and the tok2vec, tagger and prior run once per sweep instead of once per point."""

    def __init__(self, nlp: Language, component: str, inputs: Iterable, batch_size: Optional[int] = None):
        names = list(nlp.pipe_names)
        if component not in names:
            raise ValueError(f"the pipeline has no component {component!r} (it has {names})")
        k = names.index(component)
        self.nlp, self.before, self.rest, self.batch_size = nlp, names[:k], names[k:], batch_size
        self._inputs: Optional[Iterable] = inputs
        self._docs: Optional[List] = None

    @property
    def docs(self) -> List:
        """The inputs through the components before `component` (made on first use)."""
        if self._docs is None:
            with self.nlp.select_pipes(disable=self.rest):
                self._docs = list(self.nlp.pipe(self._inputs, batch_size=self.batch_size))
            self._inputs = None
        return self._docs

    def run(self) -> List:
        """Copies of the staged Docs through `component` and the rest of the pipeline."""
        docs = self.docs
        with self.nlp.select_pipes(disable=self.before):
            return list(self.nlp.pipe((d.copy() for d in docs), batch_size=self.batch_size))


def sweep_sb_bias_scores(nlp: Language, gold_docs: Sequence, grid: Sequence[float], key: str = "sb_bias",
                         component: str = "joint_sbd_parser",
                         staged: Optional[Staged] = None) -> Dict[float, Dict[str, float]]:
    """Boundary precision, recall and F1 (`sents_p`, `sents_r`, `sents_f`) of `nlp` on the gold
    tokens of `gold_docs` with the component's `key` set to each value of `grid` in turn; the
    component's cfg is left as it was. `staged`: the non-empty `gold_docs`' token-only copies
    already through the components before it (`staged_gold`), to share across sweeps."""
    grid = _checked_grid(key, grid)
    gold_docs = [d for d in gold_docs if len(d)]
    if not gold_docs:
        raise ValueError("no non-empty dev documents to choose the bias on")
    pipe = _joint_component(nlp, component)
    golds = [doc_to_record(d) for d in gold_docs]
    staged = staged or staged_gold(nlp, gold_docs, component)
    before = pipe.cfg[key]
    scores: Dict[float, Dict[str, float]] = {}
    try:
        for bias in grid:
            pipe.cfg[key] = bias
            preds = predicted_records(staged.run(), gold_docs)
            s = score_records(preds, golds, has_parse=False).scores()
            scores[bias] = {m: s[m] for m in ("sents_p", "sents_r", "sents_f")}
    finally:
        pipe.cfg[key] = before
    return scores


def staged_gold(nlp: Language, gold_docs: Sequence, component: str = "joint_sbd_parser") -> Staged:
    """Token-only copies of the non-empty `gold_docs` staged before `component`, batched as
    `evaluation.predict` batches them."""
    return Staged(nlp, component, (tokens_only(nlp.vocab, d) for d in gold_docs if len(d)), batch_size=PREDICT_BATCH)


def usable_raw(doc: RawDoc) -> bool:
    """Whether a sweep scores the raw document: it has some text and some gold sentence start."""
    return bool(doc.text.strip() and doc.gold)


def sweep_raw_scores(nlp: Language, raw_docs: Sequence[RawDoc], grid: Sequence[float], key: str = "sb_bias",
                     component: str = "joint_sbd_parser", staged: Optional[Staged] = None) -> Dict[float, Dict[str, float]]:
    """As `sweep_sb_bias_scores`, on raw text as users bring it (`corpus.raw_text`: the whole
    pipeline tokenizes it, a blank line is layout the pipeline may read), scored by the character
    offsets of the sentence starts (`scoring.char_boundary_scores`). The operating point of the
    pipeline on gold tokens and on its own tokens differ: choose it where it will be used.
    `staged`: the usable `raw_docs`' texts already through the components before it."""
    grid = _checked_grid(key, grid)
    raw_docs = [d for d in raw_docs if usable_raw(d)]
    if not raw_docs:
        raise ValueError("no non-empty raw dev documents to choose the bias on")
    pipe = _joint_component(nlp, component)
    texts = [d.text for d in raw_docs]
    golds = [d.gold for d in raw_docs]
    staged = staged or Staged(nlp, component, texts)
    before = pipe.cfg[key]
    scores: Dict[float, Dict[str, float]] = {}
    try:
        for bias in grid:
            pipe.cfg[key] = bias
            preds = [span_starts(((s.start_char, s.end_char) for s in doc.sents), text)
                     for doc, text in zip(staged.run(), texts)]
            scores[bias] = char_boundary_scores(golds, preds)
    finally:
        pipe.cfg[key] = before
    return scores


def sweep_sb_bias(nlp: Language, gold_docs: Sequence, grid: Sequence[float], key: str = "sb_bias",
                  component: str = "joint_sbd_parser", staged: Optional[Staged] = None) -> Dict[float, float]:
    """Boundary F1 per bias of `sweep_sb_bias_scores`."""
    return {b: s["sents_f"] for b, s in sweep_sb_bias_scores(nlp, gold_docs, grid, key, component, staged).items()}


PRIOR_WEIGHTS = (0.3, 0.5, 1.0)
"""The `prior_weight` values `tune_prior` tries (besides 0, no prior)."""
PRIOR_PUNCT_SHIFTS = (0.0, 2.0, 3.5, 5.0)
PRIOR_UNPUNCT_SHIFTS = (0.0, 1.0, 1.8, 2.6)
"""Shifts k of the SB biases, added as w·k: a boundary prior's log-odds are mostly negative (its
base rate, about 7% of tokens, is logit −2.6), which the parser's own SB weights already carry;
the shift re-centres them."""


def tune_prior(nlp: Language, punct_docs: Sequence, unpunct_sets: Sequence[Sequence],
               weights: Sequence[float] = PRIOR_WEIGHTS, punct_shifts: Sequence[float] = PRIOR_PUNCT_SHIFTS,
               unpunct_shifts: Sequence[float] = PRIOR_UNPUNCT_SHIFTS,
               component: str = "joint_sbd_parser",
               punct_raw: Sequence[RawDoc] = ()) -> Tuple[Dict[str, float], List[Dict]]:
    """Choose `prior_weight` w and the SB biases on dev: for each w, `sb_bias` = its current
    value + w·k on `punct_docs` (gold Docs: F1; with `punct_raw`, the same text as users' files
    hold it, `sweep_raw_scores`: the mean of the two F1s, so the choice serves both pre-tokenized
    and raw input) and `sb_bias_unpunctuated` = its current value (or `sb_bias`) + w·k on
    `unpunct_sets` (mean F1); the w of the best punctuated + mean unpunctuated F1 wins, w = 0 (the
    current settings, no prior) included, so a prior is only used where dev says it helps. The
    component's cfg is left as it was. Returns (chosen settings, every score tried)."""
    pipe = _joint_component(nlp, component)
    before = {k: pipe.cfg[k] for k in (*KEYS, "prior_weight")}
    base_p = before["sb_bias"]
    base_u = before["sb_bias_unpunctuated"] if before["sb_bias_unpunctuated"] is not None else base_p
    table: List[Dict] = []
    best: Tuple[Optional[Dict[str, float]], float] = (None, -1.0)
    # every (w, bias) point reads the same tok2vec vectors, tags and prior: staged once per set
    st_punct = staged_gold(nlp, punct_docs, component)
    st_raw = Staged(nlp, component, (d.text for d in punct_raw if usable_raw(d))) if punct_raw else None
    st_unpunct = [staged_gold(nlp, docs, component) for docs in unpunct_sets]
    try:
        for w in (0.0, *[float(x) for x in weights if x]):
            pipe.cfg["prior_weight"] = w
            ps = punct_shifts if w else (0.0,)
            us = unpunct_shifts if w else (0.0,)
            grid = [base_p + w * k for k in ps]
            punct = sweep_sb_bias_scores(nlp, punct_docs, grid, "sb_bias", component, st_punct)
            raw = sweep_raw_scores(nlp, punct_raw, grid, "sb_bias", component, st_raw) if punct_raw else {}
            mean_p = {b: (punct[b]["sents_f"] + raw[b]["sents_f"]) / 2 if raw else punct[b]["sents_f"] for b in punct}
            unpunct = [sweep_sb_bias_scores(nlp, docs, [base_u + w * k for k in us], "sb_bias_unpunctuated", component,
                                            st)
                       for docs, st in zip(unpunct_sets, st_unpunct)]
            mean_u = {b: sum(u[b]["sents_f"] for u in unpunct) / len(unpunct) for b in unpunct[0]}
            bp = best_bias(mean_p)
            bu = best_bias(mean_u)
            row = {"prior_weight": w, "sb_bias": {str(b): s for b, s in punct.items()},
                   "sb_bias_unpunctuated": {str(b): [u[b] for u in unpunct] for b in unpunct[0]}}
            if raw:
                row["sb_bias_raw"] = {str(b): s for b, s in raw.items()}
            table.append(row)
            total = mean_p[bp] + mean_u[bu]
            row["best_total"] = total  # this w's best punctuated + mean unpunctuated dev F1
            if total > best[1] + 1e-9:
                best = ({"prior_weight": w, "sb_bias": bp, "sb_bias_unpunctuated": bu}, total)
    finally:
        pipe.cfg.update(before)
    return best[0], table


def best_bias(f1: Dict[float, float]) -> float:
    """The bias of the highest F1 (to 6 decimals); ties go to the bias nearest 0."""
    return max(f1, key=lambda b: (round(f1[b], 6), -abs(b)))


def set_sb_bias(nlp: Language, key: str, value: float, component: str = "joint_sbd_parser") -> None:
    """Set the operating point in the component's cfg and in the pipeline's config (so that
    `config.cfg` of the saved pipeline shows what it uses)."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {KEYS}, got {key!r}")
    if not is_finite_number(value):
        raise ValueError(f"the SB bias must be a finite number (|b| <= 1e30), got {value!r}")
    pipe = _joint_component(nlp, component)
    pipe.cfg[key] = float(value)
    nlp.get_pipe_config(component)[key] = float(value)


def _looks_like_pipeline(path: Path) -> bool:
    return (path / "config.cfg").is_file() and (path / "meta.json").is_file()


def tune_bias(model: str, dev_path: Path, variant: str = "plain", key: Optional[str] = None,
              grid: Optional[Sequence[float]] = None, output: Optional[Path] = None,
              component: str = "joint_sbd_parser") -> Tuple[str, float, Dict[float, float]]:
    """Choose `key` (default: `sb_bias_unpunctuated` for the variants without punctuation, star and
    nopunct, else `sb_bias`) on the documents of `dev_path` in `variant`, and save the pipeline with it
    to `output` (default: in place of `model`). The pipeline directory is replaced only once the new
    one is completely written; an existing `output` must be a pipeline or empty (nothing else is
    overwritten). Returns (key, chosen, F1 per bias)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown corpus variant {variant!r}; choose from {', '.join(VARIANTS)}")
    key = key or ("sb_bias_unpunctuated" if variant in UNPUNCTUATED_VARIANTS else "sb_bias")
    if key not in KEYS:
        raise ValueError(f"key must be one of {KEYS}, got {key!r}")
    if grid is None:
        grid = PUNCT_GRID if key == "sb_bias" else UNPUNCT_GRID
    target = Path(output if output is not None else model).resolve()
    if output is None and not _looks_like_pipeline(target):
        raise ValueError(f"{model} is not a pipeline directory (no config.cfg and meta.json): give --output "
                         f"to save the tuned pipeline")
    if target.exists() and not (target.is_dir() and (_looks_like_pipeline(target) or not any(target.iterdir()))):
        raise ValueError(f"{target} exists and is not a pipeline directory or an empty one: it would be replaced; "
                         f"choose another --output")
    nlp = load_pipeline(model)
    dev = load_gold_docs(dev_path, nlp.vocab, variant)
    f1 = sweep_sb_bias(nlp, dev, grid, key, component)
    chosen = best_bias(f1)
    set_sb_bias(nlp, key, chosen, component)
    with atomic_dir(target) as tmp:
        nlp.to_disk(tmp)
    return key, chosen, f1
