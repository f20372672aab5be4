"""`TransitionParser`: the Python API the spaCy component calls (no spaCy imports here).

    parser = TransitionParser(labels, attrs=("NORM", "TAG", "SHAPE", "PREFIX", "SUFFIX"))
    docs = [EngineDoc(attrs, heads, label_ids, sent_starts), ...]  # pipeline.joint.doc_encoding builds them
    stats = parser.train_epoch(docs, update="dlaso", beam_width=20)
    parses = parser.parse(docs, beam_width=20)           # averaged weights by default
    parses[0].heads, parses[0].labels, parses[0].sent_starts

`document_level=True` (the default): SB is predicted, sentence boundaries and trees jointly
(bjorkelund2016 §2); False: boundaries are given by each doc's sent_starts (the GOLD pipeline
parser / re-parsing). Updates (§3): "greedy", "early", "max_violation", "dlaso", "laso" (`UPDATES`).
Learners: "pa" (PA-I with aggressiveness C, the default, as in the paper §4) or "perceptron".
Both average their weights; `parse` uses the averaged weights unless told otherwise. The learner
applies to every update, greedy included: the paper's greedy baseline (§4, Figure 4) is "a plain
averaged perceptron", i.e. update="greedy" with learner="perceptron"; with "pa" the greedy
classifier takes PA-I steps instead.

Threads: `parse` may be called from many threads at once on one parser (each call scores its own
snapshot of the weights); `train_epoch` updates the weights and is single-threaded, never
concurrent with parsing.
"""
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Union

import numpy

from ..learn.learners import make_learner
from ..learn.weights import HashedWeights
from .beam import Engine
from .labels import LabelSet
from .oracle import oracle_actions
from .engine_doc import DEFAULT_ATTRS, EngineDoc, to_engine_numbering
from .updates import UPDATES



def head_attrs(k: int) -> List[str]:
    """The names of the 3·k head-candidate columns, in the engine's order: each token's k best
    candidate heads (engine token number + 1; 0 none, 1 the root), their score bins, their labels."""
    return [f"{block}_{r}" for block in ("HEAD_CAND", "HEAD_SCORE", "HEAD_LABEL") for r in range(k)]


def epoch_order(n_docs: int, shuffle: Optional[int] = None) -> List[int]:
    """The order in which `TransitionParser.train_epoch` visits `n_docs` documents: input order,
    or shuffled with seed `shuffle` (parameter mixing cuts the same order into rounds)."""
    order = list(range(n_docs))
    if shuffle is not None:
        random.Random(shuffle).shuffle(order)
    return order

@dataclass
class Parse:
    heads: numpy.ndarray
    """int32, absolute head index, -1 for sentence roots."""
    labels: numpy.ndarray
    """int32 label ids (`TransitionParser.labels.decode`)."""
    sent_starts: numpy.ndarray
    """bool; the first token is always True."""
    sent_start_probs: Optional[numpy.ndarray] = None
    """float64 in [0, 1]: P(a sentence starts at token i) = the summed softmax weight (over the
    final beam items' scores) of the final items with a boundary at i (`beam._start_probs`)."""


class TransitionParser:
    """A transition model over `EngineDoc`s: labels, attribute columns, `Engine`, learner.

    labels: dependency labels (or a `LabelSet`). attrs: the attribute columns of
    `EngineDoc.attrs`; word / tag name the two with those roles, `extra` the rest used by the extra
    feature block (default: all others). n_rows: rows of the hashed weight table. learner: "pa"
    (with aggressiveness `pa_c`) or "perceptron". sb_oracle: SB "early" or "late" in the oracle
    (§2, Table 1). document_level: True to predict boundaries (SB), False to keep each doc's
    sent_starts. head_candidates: K > 0 when `attrs` end with the 3·K columns of `head_attrs(K)`
    (an encoder's K best head candidates per token, their score bins, their labels), read by the
    syntax feature templates (`features`); never among the extra columns.
    """

    def __init__(
        self,
        labels: Sequence[str],
        attrs: Sequence[str] = DEFAULT_ATTRS,
        word: str = "NORM",
        tag: str = "TAG",
        extra: Optional[Sequence[str]] = None,
        n_rows: int = 1 << 17,
        learner: str = "pa",
        pa_c: float = 1.0,
        sb_oracle: str = "early",
        document_level: bool = True,
        head_candidates: int = 0,
    ):
        if sb_oracle not in ("early", "late"):
            raise ValueError(f"sb_oracle must be 'early' or 'late', got {sb_oracle!r}")
        if not isinstance(document_level, bool):
            raise ValueError(f"document_level must be True or False, got {document_level!r}")
        self.labels = labels if isinstance(labels, LabelSet) else LabelSet(labels)
        self.attrs = tuple(attrs)
        cand = head_attrs(head_candidates) if isinstance(head_candidates, int) and head_candidates > 0 else []
        if not isinstance(head_candidates, int) or isinstance(head_candidates, bool) or head_candidates < 0 \
                or (cand and list(self.attrs[-len(cand):]) != cand):
            raise ValueError(f"head_candidates must be an int >= 0 whose head_attrs end attrs, got {head_candidates!r}")
        if extra is None:
            extra = [a for a in self.attrs if a not in (word, tag) and a not in cand]
        self.cfg = {
            "labels": self.labels.to_list(), "attrs": list(self.attrs), "word": word, "tag": tag,
            "extra": list(extra), "n_rows": n_rows, "learner": learner, "pa_c": pa_c,
            "sb_oracle": sb_oracle, "document_level": document_level,
        }
        if head_candidates:
            self.cfg["head_candidates"] = head_candidates
        col = {a: i for i, a in enumerate(self.attrs)}
        for name in [word, tag, *extra]:
            if name not in col:
                raise ValueError(f"attribute {name!r} is not among attrs {self.attrs}")
        self.engine = Engine(len(self.labels), len(self.attrs), col[word], col[tag],
                             [col[a] for a in extra], n_rows, cand_col=col[cand[0]] if cand else -1,
                             n_cand=head_candidates)
        self.learner = make_learner(learner, pa_c)
        self.epoch_stats: List[Dict] = []

    @classmethod
    def from_records(cls, records: Iterable, **kwargs) -> "TransitionParser":
        return cls(LabelSet.from_records(records), **kwargs)

    @property
    def weights(self) -> HashedWeights:
        return self.engine.weights

    @property
    def n_classes(self) -> int:
        return self.engine.n_classes


    @property
    def document_level(self) -> bool:
        return self.cfg["document_level"]

    def _fixed(self, doc: EngineDoc) -> Optional[numpy.ndarray]:
        """The engine's `fixed_starts` for the doc: its preset boundaries (or None) in
        whole-document mode, its given sent_starts otherwise."""
        if self.document_level:
            return doc.presets
        if doc.sent_starts is None:
            raise ValueError("document_level=False needs sent_starts on every document")
        return doc.sent_starts

    def oracle(self, doc: EngineDoc) -> numpy.ndarray:
        """The gold class sequence of a document, cached on the EngineDoc itself (one entry per
        oracle setting), so the cache lives exactly as long as the document."""
        key = (len(self.labels), self.cfg["sb_oracle"], self.document_level,
               None if doc.presets is None else numpy.asarray(doc.presets, dtype=numpy.int8).tobytes())
        cache = doc.oracle_cache
        actions = cache.get(key)
        if actions is None:
            heads, labels, starts = to_engine_numbering(doc)
            actions = cache[key] = oracle_actions(
                heads, labels, starts, len(self.labels), late=self.cfg["sb_oracle"] == "late",
                fixed_starts=self._fixed(doc))
        return actions

    def train_epoch(self, docs: Sequence[EngineDoc], update: str = "dlaso",
                    beam_width: int = 20, shuffle: Optional[int] = None) -> Dict:
        """One pass over `docs` (in order, or shuffled with seed `shuffle`).

        Returns and appends to `epoch_stats`: docs, n_gold (transitions), used_pct (mean over
        documents of the % of the gold sequence the updates covered, Figure 3), violations
        (updates), errors (greedy: misclassified states; beam: gold fell off the beam), tau (the
        summed step sizes), end_unfinished (documents whose search ended with an unfinished best
        item), used_per_doc (the % for each document, in training order), update.
        """
        if update not in UPDATES:
            raise ValueError(f"unknown update {update!r}; expected one of {UPDATES}")
        order = epoch_order(len(docs), shuffle)
        totals = {"docs": 0, "n_gold": 0, "violations": 0, "errors": 0, "tau": 0.0, "end_unfinished": 0}
        used_pcts = []
        for i in order:
            doc = docs[i]
            if not doc.has_gold or len(doc) == 0:
                continue
            stats = self.engine.train(doc.attrs, self.oracle(doc), update, beam_width,
                                      self.learner, self._fixed(doc))
            totals["docs"] += 1
            totals["n_gold"] += stats["n_gold"]
            totals["violations"] += stats["violations"]
            totals["errors"] += stats["errors"]
            totals["tau"] += stats["tau"]
            totals["end_unfinished"] += stats["end_unfinished"]
            used_pcts.append(100.0 * stats["used"] / max(stats["n_gold"], 1))
        totals["used_pct"] = float(numpy.mean(used_pcts)) if used_pcts else 100.0
        totals["used_per_doc"] = used_pcts
        totals["update"] = update
        self.epoch_stats.append(totals)
        return totals

    def parse(self, docs: Sequence[EngineDoc], beam_width: int = 20,
              use_averages: bool = True, sb_bias: float = 0.0) -> List[Parse]:
        """Predict heads, labels, sentence starts and sentence-start probabilities of each
        document. sb_bias: added to SB's score at every step (> 0: split more eagerly); a
        document's `sb_scores` (if set) are added per token (`Engine.parse`).

        Thread-safe: many threads may parse with one parser at once (each call scores its own
        snapshot of the weights: the averaged table in float16 if `use_averages`, without
        swapping it in).
        Training (`train_epoch`) is single-threaded and must not run alongside parsing."""
        return [Parse(*self.engine.parse(doc.attrs, beam_width, self._fixed(doc), use_averages,
                                         sb_bias=sb_bias, return_probs=True, sb_scores=doc.sb_scores))
                for doc in docs]

    def get_params(self) -> Dict[str, numpy.ndarray]:
        return self.weights.get_params()

    def set_params(self, params: Dict[str, numpy.ndarray], copy: bool = True) -> None:
        """Load the weight table (`HashedWeights.set_params`; copy=False may adopt `params["W"]`)."""
        self.weights.set_params(params, copy=copy)

    def to_disk(self, path: Union[str, Path], training_state: bool = False) -> None:
        """Write cfg.json and weights.npz (the averaged table; with `training_state`, W, U and
        the clock instead, so that training can resume)."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "cfg.json").write_text(json.dumps(self.cfg, indent=2))
        if training_state:
            numpy.savez(path / "weights.npz", **self.get_params())
        else:
            numpy.savez(path / "weights.npz", W=self.weights.averaged())

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "TransitionParser":
        path = Path(path)
        cfg = json.loads((path / "cfg.json").read_text())
        if "mode" in cfg:  # written before `document_level` replaced `mode`
            cfg["document_level"] = cfg.pop("mode") == "joint"
        parser = cls(**cfg)
        with numpy.load(path / "weights.npz") as params:
            parser.set_params({k: params[k] for k in params.files})
        return parser
