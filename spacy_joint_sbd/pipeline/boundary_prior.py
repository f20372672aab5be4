"""The `boundary_prior` component: a calibrated P(token starts a sentence) for every token.

It writes `doc._.boundary_probs` ((len(doc),) float32; `token._.boundary_prob` reads one) from a
`boundary.BoundaryModel`: hashed logistic regression over words, shapes, affixes, layout and the
punctuation/case regime around each gap, cheap enough to learn from millions of words of running
text (`corpus.running_text`) and to predict at hundreds of thousands of words a second. It sets no
sentence boundaries itself: the joint parser reads the probabilities as evidence for its SB move
(`joint_sbd_parser`'s `prior_weight`), and so does anything else that wants them.

Train it with `spacy train` (each `update` is one SGD pass over the batch's documents, gold from
the reference's sentence starts) or in bulk with `boundary.train` (`encode_docs`, `train_encoded`) /
`python -m spacy_joint_sbd train-prior`; `calibrate` fits Platt scaling on held-out documents.

Optionally (`train-prior --context-head`) it carries a `boundary.ContextHead`: a small MLP over the
vectors a tok2vec before it left in `Doc.tensor` (the pipeline's frozen CNN), whose log-odds are
blended with the n-gram model's (`cfg["blend"]`, fitted on held-out documents). A Doc without
vectors gets the n-gram model's probabilities alone.
"""
from typing import Callable, Dict, Iterable, List, Optional

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc, Token
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..boundary import DOC_FEATURE_PROBS, DOC_PROBS, BoundaryModel
from ..boundary.context_head import ContextHead, blend
from ..boundary.features import train_doc
from ..boundary.model import DEFAULT_N_ROWS, DEFAULT_WINDOW
from ._weights_pipe import WeightsPipe
from ..persist.checksums import verify_checksums

DEFAULT_PRIOR_MODEL = Config().from_str(f"""
[model]
@architectures = "spacy_joint_sbd.HashedPerceptron.v1"
n_rows = {DEFAULT_N_ROWS}
nO = 1
""")["model"]


def _token_prob(token: Token) -> Optional[float]:
    probs = token.doc._.get(DOC_PROBS)
    return None if probs is None else float(probs[token.i])


if not Doc.has_extension(DOC_PROBS):
    Doc.set_extension(DOC_PROBS, default=None)
if not Doc.has_extension(DOC_FEATURE_PROBS):
    Doc.set_extension(DOC_FEATURE_PROBS, default=None)
if not Token.has_extension("boundary_prob"):
    Token.set_extension("boundary_prob", getter=_token_prob)


@Language.factory(
    "boundary_prior",
    assigns=[f"doc._.{DOC_PROBS}"],
    default_config={"model": DEFAULT_PRIOR_MODEL, "window": DEFAULT_WINDOW, "learn_rate": 0.1,
                    "pos_weight": 1.0, "threshold": 0.5, "paragraph_windows": False,
                    "scorer": {"@scorers": "spacy_joint_sbd.boundary_prior_scorer.v1"}},
    default_score_weights={"prior_f": 1.0, "prior_p": 0.0, "prior_r": 0.0},
)
def make_boundary_prior(nlp: Language, name: str, model: Model, window: int, learn_rate: float,
                        pos_weight: float, threshold: float, scorer: Optional[Callable],
                        paragraph_windows: bool = False) -> "BoundaryPriorPipe":
    """window: tokens either side measured for the punctuation/case regime of a gap.
    learn_rate, pos_weight: SGD step and the weight of a sentence start in the loss (training).
    threshold: the probability at which the scorer counts a predicted boundary.
    paragraph_windows: those regime windows stop at blank lines (`BoundaryModel`'s `paragraphs`),
    for mixed documents (a transcript quoted in a punctuated e-mail). A prediction setting: the
    config's value wins over a saved model's."""
    return BoundaryPriorPipe(nlp.vocab, model, name, window=window, learn_rate=learn_rate,
                             pos_weight=pos_weight, threshold=threshold, scorer=scorer,
                             paragraph_windows=paragraph_windows)


@util.registry.scorers("spacy_joint_sbd.boundary_prior_scorer.v1")
def make_prior_scorer() -> Callable:
    """`score_prior`: the prior's boundary P/R/F1 at its threshold (`prior_p`, `prior_r`, `prior_f`)."""
    return score_prior


def score_prior(examples: Iterable[Example], threshold: float = 0.5, **kwargs) -> Dict[str, Optional[float]]:
    """Boundary P/R/F1 (as `scoring`: token level, each document's first token excluded) of the
    tokens whose probability is ≥ `threshold`, against the reference's sentence starts."""
    tp = fp = fn = 0
    for eg in examples:
        probs = eg.predicted._.get(DOC_PROBS)
        if probs is None:
            continue
        gold = eg.get_aligned_sent_starts()
        for i in range(1, len(eg.predicted)):
            p, g = probs[i] >= threshold, bool(gold[i])
            tp += p and g
            fp += p and not g
            fn += g and not p
    if tp + fp + fn == 0:
        return {"prior_p": None, "prior_r": None, "prior_f": None}
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"prior_p": p, "prior_r": r, "prior_f": 2 * p * r / (p + r) if p + r else 0.0}


class BoundaryPriorPipe(WeightsPipe):
    """Per-token sentence-start probabilities from a hashed logistic-regression model."""

    kind = "boundary_prior"

    def __init__(self, vocab: Vocab, model: Model, name: str = "boundary_prior", *,
                 window: int = DEFAULT_WINDOW, learn_rate: float = 0.1, pos_weight: float = 1.0,
                 threshold: float = 0.5, scorer: Optional[Callable] = None, paragraph_windows: bool = False):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        for key, v in (("learn_rate", learn_rate), ("pos_weight", pos_weight)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v < 1e6:
                raise ValueError(f"[{name}] {key} must be a positive number, got {v!r}")
        if not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or not 0 <= threshold <= 1:
            raise ValueError(f"[{name}] threshold must be a number in [0, 1], got {threshold!r}")
        self.cfg: Dict = {"window": window, "learn_rate": float(learn_rate), "pos_weight": float(pos_weight),
                          "threshold": float(threshold), "platt": [1.0, 0.0], "blend": None, "lines": True,
                          "cased_gaps": False}
        self.boundary_model = BoundaryModel(model.attrs["n_rows"], window)
        self.paragraph_windows = paragraph_windows  # checked once, by the setter
        self.context_head: Optional[ContextHead] = None
        """The optional MLP over `Doc.tensor` (`set_context_head`); None: n-grams only."""

    @property
    def paragraph_windows(self) -> bool:
        """Whether the regime windows stop at blank lines (the factory's `paragraph_windows`)."""
        return self.cfg["paragraph_windows"]

    @paragraph_windows.setter
    def paragraph_windows(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"[{self.name}] paragraph_windows must be true or false, got {value!r}")
        self.cfg["paragraph_windows"] = value
        self.boundary_model.paragraphs = value

    @property
    def cased_gaps(self) -> bool:
        """Whether the model has templates of its own for a capitalised word straight after an
        unmarked word (`BoundaryModel`'s `cased_gaps`); learnt, so saved with the weights."""
        return self.cfg["cased_gaps"]

    @cased_gaps.setter
    def cased_gaps(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"[{self.name}] cased_gaps must be true or false, got {value!r}")
        self.cfg["cased_gaps"] = value
        self.boundary_model.cased_gaps = value

    def set_context_head(self, head: Optional[ContextHead], coef: Optional[List[float]] = None) -> None:
        """Use `head` with the blend coefficients (a, b, c): P = σ(a·ngram + b·head + c); None
        removes it."""
        if head is None:
            self.context_head, self.cfg["blend"] = None, None
            return
        if coef is None or len(coef) != 3 or not all(isinstance(c, (int, float)) and numpy.isfinite(c) for c in coef):
            raise ValueError(f"[{self.name}] blend coefficients must be three finite numbers, got {coef!r}")
        self.context_head, self.cfg["blend"] = head, [float(c) for c in coef]

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None) -> None:
        """A fresh model (the examples are only validated: the model has no labels to learn)."""
        validate_examples(list(get_examples())[:1], "BoundaryPriorPipe.initialize")
        self.cfg["lines"] = True
        self.boundary_model = BoundaryModel(self.model.attrs["n_rows"], self.cfg["window"],
                                            paragraphs=self.paragraph_windows, cased_gaps=self.cased_gaps)

    def predict(self, docs: Iterable[Doc]) -> List[numpy.ndarray]:
        return [self._probs(doc) for doc in docs]

    def _probs(self, doc: Doc) -> numpy.ndarray:
        head = self.context_head
        tensor = doc.tensor
        if head is None or not len(doc) or tensor is None or not getattr(tensor, "size", 0):
            return self.boundary_model.probs(doc)
        if tensor.shape != (len(doc), head.width):
            raise ValueError(f"[{self.name}] Doc.tensor has shape {tensor.shape}; the context head reads "
                             f"({len(doc)}, {head.width}) vectors from the tok2vec it was trained with")
        s, pos = self.boundary_model.logits(doc)
        return BoundaryModel.place(len(doc), blend(s, head.logits(tensor[pos]), self.cfg["blend"]), pos)

    def set_annotations(self, docs: Iterable[Doc], probs: List[numpy.ndarray]) -> None:
        for doc, p in zip(docs, probs):
            doc._.set(DOC_PROBS, p)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One SGD pass over the examples' predicted Docs, gold = the reference's sentence starts
        aligned to them; `losses[name]` sums the log loss."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "BoundaryPriorPipe.update")
        bm = self.boundary_model
        for eg in examples:
            doc = eg.predicted
            if len(doc) < 2:
                continue
            attrs, pos = bm.encode(doc)
            gold = bm.gold(doc, pos, eg.get_aligned_sent_starts())
            losses[self.name] += train_doc(bm.weights, attrs, gold, self.cfg["learn_rate"], self.cfg["pos_weight"])
        return losses

    def calibrate(self, docs: Iterable[Doc]) -> List[float]:
        """Platt scaling on held-out documents with sentence starts; returns (a, b)."""
        a, b = self.boundary_model.calibrate(docs)
        self.cfg["platt"] = [a, b]
        return [a, b]

    def get_loss(self, examples, scores):
        raise NotImplementedError("the logistic model is updated inside update()")

    def finish_update(self, sgd=None) -> None:
        """Nothing to do: SGD steps are applied inside `update`."""

    def add_label(self, label: str) -> int:
        raise NotImplementedError(f"[{self.name}] has no labels")

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, Optional[float]]:
        return score_prior(examples, threshold=self.cfg["threshold"])

    # ------------------------------------------------------------------ serialization
    def _sync_model(self) -> None:
        state = self.boundary_model.get_state()
        self.cfg["platt"] = state["platt"]
        self.cfg["window"] = state["window"]
        self.cfg["lines"] = state["lines"]
        self.cfg["cased_gaps"] = state["cased_gaps"]
        self.model.set_param("W", state["W"])

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        head = None if self.context_head is None else self.context_head.get_state()
        return srsly.msgpack_dumps({"weights": super().to_bytes(exclude=exclude), "head": head})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "BoundaryPriorPipe":
        try:
            msg = srsly.msgpack_loads(bytes_data)
            inner, state = msg["weights"], msg.get("head")
        except Exception:  # noqa: BLE001 - bytes saved before the head existed: weights alone
            inner, state = bytes_data, None
        head = self._head_from(state)
        super().from_bytes(inner, exclude=exclude)
        self._attach(head)
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        head_path = util.ensure_path(path) / "head"
        head_path.parent.mkdir(parents=True, exist_ok=True)
        if self.context_head is not None:
            srsly.write_msgpack(head_path, self.context_head.get_state())
        elif head_path.exists():
            head_path.unlink()
        super().to_disk(path, exclude=exclude)  # after the head: its checksum too

    def _saved_files(self) -> tuple:
        return ("cfg", "model", "head")

    def from_disk(self, path, *, exclude=tuple()) -> "BoundaryPriorPipe":
        path = util.ensure_path(path)
        if not (path / "cfg").exists() or not (path / "model").exists():
            raise ValueError(f"[{self.name}] {path} has no cfg/model: not a saved {self.kind}")
        verify_checksums(path, self.name)
        head_path = path / "head"
        state = None
        if head_path.exists():
            try:
                state = srsly.read_msgpack(head_path)
            except Exception as e:  # noqa: BLE001 - msgpack raises many types on foreign files
                raise ValueError(f"[{self.name}] {head_path}: truncated or foreign context head ({e})") from e
        head = self._head_from(state)
        self._load_disk(path)
        self._attach(head)
        return self

    def _head_from(self, state) -> Optional[ContextHead]:
        if state is None:
            return None
        try:
            return ContextHead.from_state(state)
        except ValueError as e:
            raise ValueError(f"[{self.name}] truncated or foreign context head ({e})") from None

    def _attach(self, head: Optional[ContextHead]) -> None:
        """The loaded cfg and head agree: a head needs blend coefficients, and none without one."""
        if (head is None) != (self.cfg.get("blend") is None):
            coef = self.cfg.get("blend")
            self.context_head, self.cfg["blend"] = None, None
            raise ValueError(f"[{self.name}] context head and blend coefficients do not match "
                             f"(head {'present' if head is not None else 'missing'}, blend {coef!r})")
        self.context_head = head

    def _adopt(self, cfg, load: Callable[[], object]) -> None:
        if not isinstance(cfg, dict) or "platt" not in cfg or "window" not in cfg:
            raise ValueError(f"[{self.name}] truncated or foreign cfg (no platt/window)")
        load()
        bm = BoundaryModel(self.model.attrs["n_rows"], self.cfg["window"], paragraphs=self.paragraph_windows)
        try:
            bm.set_state({"W": self.model.get_param("W"), "window": cfg["window"], "platt": cfg["platt"],
                          "lines": cfg.get("lines", False),  # saved before line codes: without them
                          "cased_gaps": cfg.get("cased_gaps", False)},  # ... and before cased gaps
                         copy=False)  # one table, shared with the Thinc model
        except (ValueError, TypeError, KeyError) as e:
            raise ValueError(f"[{self.name}] truncated or foreign model ({e})") from None
        self.boundary_model = bm
        self.cfg.update({k: cfg[k] for k in ("window", "platt", "learn_rate", "pos_weight", "threshold") if k in cfg})
        self.cfg["lines"] = bm.lines
        self.cfg["cased_gaps"] = bm.cased_gaps
        self.cfg["blend"] = cfg.get("blend")  # saved before the context head: none

