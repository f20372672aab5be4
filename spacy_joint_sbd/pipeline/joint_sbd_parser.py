"""The `joint_sbd_parser` component: sentence boundaries and dependency trees of a whole Doc.

It adapts Docs to the transition engine (`spacy_joint_sbd.transition`, which knows nothing about
spaCy): token attributes come from the Doc as spaCy computed or PREDICTED them (a tagger earlier in
the pipeline supplies TAG; gold tags are never read), gold trees and boundaries come from
`Example.reference` during `update` only.
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy
import srsly
from spacy import util
from spacy.attrs import DEP, HEAD, IDS, SENT_START
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..scoring import score_examples
from ..transition import STRATEGIES, EngineDoc, Parse, TransitionParser, n_classes_for
from ..transition.records import record_attrs

DEFAULT_MODEL_CONFIG = """
[model]
@architectures = "spacy_joint_sbd.HashedPerceptron.v1"
n_rows = 131072
"""
DEFAULT_MODEL = Config().from_str(DEFAULT_MODEL_CONFIG)["model"]
DEFAULT_ATTRS = ["NORM", "TAG", "SHAPE", "PREFIX", "SUFFIX"]
LEARNERS = ("pa", "perceptron")


class _TokenStrings:
    """What `record_attrs` reads of a document (feature_encoding = "plain")."""

    def __init__(self, words: List[str], xpos: List[str], upos: List[str]) -> None:
        self.words, self.xpos, self.upos = words, xpos, upos


@Language.factory(
    "joint_sbd_parser",
    assigns=["token.dep", "token.head", "token.is_sent_start", "doc.sents"],
    default_config={
        "model": DEFAULT_MODEL,
        "beam_width": 20,
        "update": "dlaso",
        "sb_oracle": "early",
        "learner": "pa",
        "pa_c": 1.0,
        "attrs": DEFAULT_ATTRS,
        "document_level": True,
        "feature_encoding": "spacy",
        "scorer": {"@scorers": "spacy_joint_sbd.joint_scorer.v1"},
    },
    default_score_weights={"sents_f": 0.5, "dep_las": 0.5, "dep_uas": 0.0, "sents_p": None, "sents_r": None},
)
def make_joint_sbd_parser(
    nlp: Language,
    name: str,
    model: Model,
    beam_width: int,
    update: str,
    sb_oracle: str,
    learner: str,
    pa_c: float,
    attrs: List[str],
    document_level: bool,
    feature_encoding: str,
    scorer: Optional[Callable],
) -> "JointSBDParser":
    """Joint sentence boundary detection and dependency parsing (bjorkelund2016).

    beam_width: beam size B at training and prediction (1 = greedy).
    update: `dlaso` (Algorithm 1), `max_violation`, `early` or `greedy`.
    sb_oracle: join sentences by SB as `early` or as `late` as possible in the oracle.
    learner: `pa` (passive-aggressive, PA-I with aggressiveness `pa_c`) or `perceptron`.
    attrs: token attributes that feed the features (spaCy attribute names, e.g. NORM, TAG, SHAPE).
    document_level: True predicts boundaries and trees for the whole Doc; False keeps the Doc's
        existing sentence boundaries and parses within them (the paper's GOLD / REPARSED parser).
    feature_encoding: how attribute strings become feature ids: `spacy` (the Doc's own attribute
        hashes, as `spacy train` uses) or `plain` (the engine's `record_attrs` over each token's text
        and tag: what models trained outside spaCy on `DocRecord`s, e.g. the replication's, expect).
    """
    return JointSBDParser(nlp.vocab, model, name, beam_width=beam_width, update=update, sb_oracle=sb_oracle,
                          learner=learner, pa_c=pa_c, attrs=attrs, document_level=document_level,
                          feature_encoding=feature_encoding, scorer=scorer)


@util.registry.scorers("spacy_joint_sbd.joint_scorer.v1")
def make_joint_scorer() -> Callable[..., Dict]:
    """`sents_p/r/f` (token level, first token of each document excluded), `dep_uas`, `dep_las`."""
    return score_examples


class JointSBDParser(TrainablePipe):
    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "joint_sbd_parser",
        *,
        beam_width: int = 20,
        update: str = "dlaso",
        sb_oracle: str = "early",
        learner: str = "pa",
        pa_c: float = 1.0,
        attrs: Sequence[str] = tuple(DEFAULT_ATTRS),
        document_level: bool = True,
        feature_encoding: str = "spacy",
        scorer: Optional[Callable] = score_examples,
    ) -> None:
        if update not in STRATEGIES:
            raise ValueError(f"[{name}] update must be one of {', '.join(STRATEGIES)}, got {update!r}")
        if sb_oracle not in ("early", "late"):
            raise ValueError(f"[{name}] sb_oracle must be 'early' or 'late', got {sb_oracle!r}")
        if learner not in LEARNERS:
            raise ValueError(f"[{name}] learner must be one of {', '.join(LEARNERS)}, got {learner!r}")
        if feature_encoding not in ("spacy", "plain"):
            raise ValueError(f"[{name}] feature_encoding must be 'spacy' or 'plain', got {feature_encoding!r}")
        if beam_width < 1:
            raise ValueError(f"[{name}] beam_width must be >= 1, got {beam_width}")
        unknown = [a for a in attrs if a.upper() not in IDS]
        if not attrs or unknown:
            raise ValueError(f"[{name}] unknown token attributes {unknown}; use spaCy names like NORM, TAG, SHAPE")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict = {
            "labels": [], "beam_width": beam_width, "update": update, "sb_oracle": sb_oracle,
            "learner": learner, "pa_c": pa_c, "attrs": [a.upper() for a in attrs],
            "document_level": document_level, "feature_encoding": feature_encoding,
        }
        self._parser: Optional[TransitionParser] = None
        self._trained = False  # updates since the last load: predict with averaged weights
        self.last_epoch_stats: Dict = {}

    # ------------------------------------------------------------------ labels and set-up
    @property
    def labels(self) -> tuple:
        return tuple(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        if label in self.cfg["labels"]:
            return 0
        if self._parser is not None:
            raise ValueError(f"[{self.name}] cannot add label {label!r} after initialization")
        self.cfg["labels"] = sorted(self.cfg["labels"] + [label])
        return 1

    def _build_parser(self) -> TransitionParser:
        attrs = self.cfg["attrs"]
        word = next((a for a in ("NORM", "LOWER", "ORTH") if a in attrs), attrs[0])
        tag = next((a for a in ("TAG", "POS") if a in attrs), attrs[min(1, len(attrs) - 1)])
        parser = TransitionParser(
            self.cfg["labels"], attrs=attrs, word=word, tag=tag, n_rows=self.model.attrs["n_rows"],
            learner=self.cfg["learner"], pa_c=self.cfg["pa_c"], sb_oracle=self.cfg["sb_oracle"],
            mode="joint" if self.cfg["document_level"] else "sentence",
        )
        if not self.model.has_dim("nO") or self.model.get_dim("nO") is None:
            self.model.set_dim("nO", parser.n_classes)
        elif self.model.get_dim("nO") != parser.n_classes:
            raise ValueError(f"[{self.name}] model has nO={self.model.get_dim('nO')} but the labels need "
                             f"{parser.n_classes} classes")
        return parser

    def _bind(self) -> None:
        """Share the engine's live weight table with the Thinc model's `W` param."""
        self.model.set_param("W", self._parser.weights.get_params()["W"])

    @property
    def parser(self) -> TransitionParser:
        if self._parser is None:
            raise ValueError(f"[{self.name}] is not initialized: call nlp.initialize() or load a trained pipeline")
        return self._parser

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        """Collect the dependency labels from the examples' gold trees and create the weights."""
        validate_examples(get_examples(), "JointSBDParser.initialize")
        if labels is None:
            found = set(self.cfg["labels"])
            for eg in get_examples():
                found.update(t.dep_ for t in eg.reference if t.dep_)
            labels = sorted(found)
        self.cfg["labels"] = sorted(set(labels) | {"root"}) if labels else ["dep", "root"]
        self._parser = self._build_parser()
        self._bind()
        self._trained = False

    def use_parser(self, parser: TransitionParser) -> None:
        """Adopt a `TransitionParser` trained outside spaCy (e.g. by the replication scripts): its
        labels, attributes, mode and averaged weights. Its table must have the model's `n_rows`."""
        if parser.cfg["n_rows"] != self.model.attrs["n_rows"]:
            raise ValueError(f"[{self.name}] the parser has {parser.cfg['n_rows']} hash rows, the model "
                             f"{self.model.attrs['n_rows']}")
        self.cfg.update(labels=list(parser.cfg["labels"]), attrs=list(parser.cfg["attrs"]),
                        learner=parser.cfg["learner"], pa_c=parser.cfg["pa_c"], sb_oracle=parser.cfg["sb_oracle"],
                        document_level=parser.cfg["mode"] == "joint")
        self._parser = self._build_parser()
        if self._parser.cfg != parser.cfg:
            raise ValueError(f"[{self.name}] cannot reproduce the parser's configuration {parser.cfg}")
        self._parser.set_params({"W": parser.weights.averaged()})
        self._bind()
        self._trained = False

    # --------------------------------------------------------------------- docs ⇄ engine
    def _attr_ids(self) -> List[int]:
        return [IDS[a] for a in self.cfg["attrs"]]

    def _engine_doc(self, doc: Doc) -> EngineDoc:
        if self.cfg.get("feature_encoding", "spacy") == "plain":
            tokens = _TokenStrings([t.text for t in doc], [t.tag_ for t in doc], [t.pos_ for t in doc])
            attrs = record_attrs(tokens, self.cfg["attrs"])
        else:
            ids = self._attr_ids()
            attrs = numpy.ascontiguousarray(doc.to_array(ids).reshape((len(doc), len(ids))), dtype=numpy.uint64)
        starts = None
        if not self.cfg["document_level"]:
            starts = numpy.asarray([i == 0 or t.is_sent_start is True for i, t in enumerate(doc)], dtype=bool)
        return EngineDoc(attrs=attrs, sent_starts=starts)

    def _gold_engine_doc(self, eg: Example) -> Optional[EngineDoc]:
        """Features from the predicted doc, gold heads / labels / boundaries from the reference."""
        doc = self._engine_doc(eg.predicted)
        ref = eg.reference
        n = len(eg.predicted)
        if n == 0:
            return None
        if len(ref) == n and all(a.text == b.text for a, b in zip(eg.predicted, ref)):
            heads = [t.head.i for t in ref]
            deps = [t.dep_ for t in ref]
            starts = [i == 0 or bool(t.is_sent_start) for i, t in enumerate(ref)]
        else:  # different tokenization: project the gold tree through the alignment
            aligned_heads, aligned_deps = eg.get_aligned_parse(projectivize=False)
            if any(h is None for h in aligned_heads):
                return None
            heads, deps = list(aligned_heads), list(aligned_deps)
            starts = [i == 0 or bool(s) for i, s in enumerate(eg.get_aligned_sent_starts())]
        doc.heads = numpy.asarray([-1 if h == i else h for i, h in enumerate(heads)], dtype=numpy.int32)
        doc.labels = numpy.asarray(self.parser.labels.encode_all(["root" if d == "ROOT" else d for d in deps]),
                                   dtype=numpy.int32)
        doc.sent_starts = numpy.asarray(starts, dtype=bool)
        return doc

    # ------------------------------------------------------------------------ prediction
    def predict(self, docs: Iterable[Doc]) -> List[Parse]:
        docs = list(docs)
        parser = self.parser
        engine_docs = [self._engine_doc(d) for d in docs]
        return parser.parse(engine_docs, beam_width=self.cfg["beam_width"], use_averages=self._trained)

    def set_annotations(self, docs: Iterable[Doc], parses: List[Parse]) -> None:
        labels = self.parser.labels
        strings = self.vocab.strings
        label_hashes = [strings.add("ROOT" if lab == "root" else lab) for lab in labels.labels]
        for doc, parse in zip(docs, parses):
            n = len(doc)
            if n == 0:
                continue
            idx = numpy.arange(n, dtype=numpy.int64)
            heads = numpy.where(parse.heads < 0, idx, parse.heads.astype(numpy.int64))
            arr = numpy.zeros((n, 3), dtype=numpy.uint64)
            arr[:, 0] = (heads - idx).astype(numpy.uint64)  # HEAD is relative, two's complement
            arr[:, 1] = numpy.asarray([label_hashes[i] for i in parse.labels], dtype=numpy.uint64)
            arr[:, 2] = numpy.where(parse.sent_starts, 1, -1).astype(numpy.int64).astype(numpy.uint64)
            arr[0, 2] = 1
            doc.from_array([HEAD, DEP, SENT_START], arr)

    # -------------------------------------------------------------------------- training
    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Learn from whole documents with the configured strategy. `losses[name]` counts the
        violations (updates); `losses[name + '_used_pct']` is the mean percentage of the gold
        transition sequence the updates used (bjorkelund2016 Figure 3)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "JointSBDParser.update")
        docs = [d for d in (self._gold_engine_doc(eg) for eg in examples) if d is not None]
        if docs:
            stats = self.parser.train_epoch(docs, strategy=self.cfg["update"], beam_width=self.cfg["beam_width"])
            self._trained = True
            self.last_epoch_stats = stats
            losses[self.name] += stats["violations"]
            losses[f"{self.name}_used_pct"] = stats["used_pct"]
        return losses

    def get_loss(self, examples, scores):
        raise NotImplementedError("the perceptron has no differentiable loss; see update()")

    def finish_update(self, sgd=None) -> None:
        """Nothing to do: perceptron / PA updates are applied inside `update`."""

    # ---------------------------------------------------------------------- serialization
    def _averaged_into_model(self) -> None:
        if self._parser is not None:
            W = self._parser.weights.averaged() if self._trained else self._parser.weights.get_params()["W"]
            self.model.set_param("W", W)

    def _load_weights(self) -> None:
        self._parser = self._build_parser() if self.cfg["labels"] else None
        if self._parser is not None and self.model.has_param("W"):
            W = self.model.get_param("W")
            self._parser.set_params({"W": W})
            self._bind()
        self._trained = False

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._averaged_into_model()
        try:
            return super().to_bytes(exclude=exclude)
        finally:
            if self._parser is not None:
                self._bind()

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "JointSBDParser":
        msg = srsly.msgpack_loads(bytes_data)
        if not isinstance(msg, dict) or "cfg" not in msg or "model" not in msg:
            raise ValueError(f"[{self.name}] not a joint_sbd_parser model (foreign or truncated bytes)")
        self.cfg.update(srsly.json_loads(msg["cfg"]))
        self._set_nO()
        super().from_bytes(bytes_data, exclude=exclude)
        self._load_weights()
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        self._averaged_into_model()
        try:
            super().to_disk(path, exclude=exclude)
        finally:
            if self._parser is not None:
                self._bind()

    def from_disk(self, path, *, exclude=tuple()) -> "JointSBDParser":
        path = util.ensure_path(path)
        cfg_path = path / "cfg"
        if not cfg_path.exists() or not (path / "model").exists():
            raise ValueError(f"[{self.name}] {path} has no cfg/model: not a saved joint_sbd_parser")
        try:
            self.cfg.update(srsly.read_json(cfg_path))
        except ValueError as e:
            raise ValueError(f"[{self.name}] {cfg_path}: unreadable ({e})") from e
        self._set_nO()
        try:
            super().from_disk(path, exclude=exclude)
        except Exception as e:  # noqa: BLE001 - thinc/msgpack raise many types on bad files
            raise ValueError(f"[{self.name}] {path / 'model'}: truncated or foreign model file "
                             f"({type(e).__name__}: {e})") from e
        self._load_weights()
        return self

    def _set_nO(self) -> None:
        if self.cfg["labels"] and (not self.model.has_dim("nO") or self.model.get_dim("nO") is None):
            self.model.set_dim("nO", n_classes_for(len(self.cfg["labels"])))
