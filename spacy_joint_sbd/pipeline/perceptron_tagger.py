"""The `perceptron_tagger` component: fine-grained tags (`token.tag_`) from a hashed averaged
perceptron (`spacy_joint_sbd.tagger`), so the joint parser gets tags without a CNN.

It tags a whole Doc as one stream (no sentence boundaries needed), trains in about a second per
epoch on EWT, and is cheap enough to jackknife (`tagger.jackknife`), which is how the default
model's parser gets training tags as good as the ones it sees at prediction time. The weights
live in a `spacy_joint_sbd.HashedPerceptron.v1` Thinc model (param `W`, nO = number of tags);
what is saved is the averaged table.
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..tagger import PerceptronTagger, encode_doc
from ..tagger.greedy import tag_doc

DEFAULT_TAGGER_MODEL = Config().from_str("""
[model]
@architectures = "spacy_joint_sbd.HashedPerceptron.v1"
n_rows = 131072
""")["model"]


@Language.factory(
    "perceptron_tagger",
    assigns=["token.tag"],
    default_config={"model": DEFAULT_TAGGER_MODEL, "scorer": {"@scorers": "spacy.tagger_scorer.v1"}},
    default_score_weights={"tag_acc": 1.0},
)
def make_perceptron_tagger(nlp: Language, name: str, model: Model, scorer: Optional[Callable]) -> "PerceptronTaggerPipe":
    return PerceptronTaggerPipe(nlp.vocab, model, name, scorer=scorer)


class PerceptronTaggerPipe(TrainablePipe):
    """Greedy left-to-right tagging with a hashed averaged perceptron (Collins 2002)."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "perceptron_tagger", *,
                 scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg: Dict = {"labels": []}
        self._tagger: Optional[PerceptronTagger] = None

    @property
    def labels(self) -> tuple:
        return tuple(self.cfg["labels"])

    @property
    def tagger(self) -> PerceptronTagger:
        if self._tagger is None:
            raise ValueError(f"[{self.name}] has no labels: call initialize() or load a trained pipeline")
        return self._tagger

    def _build(self, W: Optional[numpy.ndarray] = None) -> None:
        self._tagger = PerceptronTagger(self.cfg["labels"], self.model.attrs["n_rows"])
        if W is not None:
            self._tagger.set_params({"W": W})

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None) -> None:
        if labels is None:
            labels = sorted({t.tag_ for eg in get_examples() for t in eg.reference if t.tag_})
        if not labels:
            raise ValueError(f"[{self.name}] no tags in the training examples and no labels given")
        self.cfg["labels"] = list(labels)
        self._build()

    def use_tagger(self, tagger: PerceptronTagger) -> None:
        """Adopt a tagger trained outside the pipeline (e.g. by `tagger.train_tagger`)."""
        self.cfg["labels"] = list(tagger.labels)
        self._tagger = tagger

    def predict(self, docs: Iterable[Doc]) -> List[List[str]]:
        tagger = self.tagger
        return [tagger.predict(encode_doc(doc)) if len(doc) else [] for doc in docs]

    def set_annotations(self, docs: Iterable[Doc], tags: List[List[str]]) -> None:
        for doc, doc_tags in zip(docs, tags):
            for token, tag in zip(doc, doc_tags):
                token.tag_ = tag

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One perceptron pass over the examples (greedy, the tagger's own history); `losses[name]`
        counts the tagging errors. Tokens whose gold tag is unknown to the model are an error."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "PerceptronTaggerPipe.update")
        tagger = self.tagger
        for eg in examples:
            if not len(eg.predicted):
                continue
            gold = eg.get_aligned("TAG", as_string=True)
            if any(not t for t in gold):
                continue  # a token without a gold tag (unaligned): skip the document
            _, errors = tag_doc(tagger.weights, encode_doc(eg.predicted), tagger.gold_ids(gold), train=True)
            losses[self.name] += errors
        return losses

    def get_loss(self, examples, scores):
        raise NotImplementedError("the perceptron has no differentiable loss; see update()")

    def finish_update(self, sgd=None) -> None:
        """Nothing to do: perceptron updates are applied inside `update`."""

    def add_label(self, label: str) -> int:
        raise NotImplementedError(f"[{self.name}] labels are set by initialize()")

    # ---------------------------------------------------------------------- serialization
    def _sync_model(self) -> None:
        if self._tagger is not None:
            W = self._tagger.get_params()["W"]
            if not self.model.has_dim("nO") or self.model.get_dim("nO") is None:
                self.model.set_dim("nO", W.shape[1])
            self.model.set_param("W", W)

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._sync_model()
        return srsly.msgpack_dumps({"cfg": srsly.json_dumps(self.cfg), "model": self.model.to_bytes()})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "PerceptronTaggerPipe":
        try:
            msg = srsly.msgpack_loads(bytes_data)
            cfg = srsly.json_loads(msg["cfg"])
            self._adopt(cfg, lambda: self.model.from_bytes(msg["model"]))
        except Exception as e:  # noqa: BLE001 - msgpack/thinc raise many types on foreign bytes
            raise ValueError(f"[{self.name}] not a perceptron_tagger model (foreign or truncated bytes: {e})") from e
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        self._sync_model()
        srsly.write_json(path / "cfg", self.cfg)
        self.model.to_disk(path / "model")

    def from_disk(self, path, *, exclude=tuple()) -> "PerceptronTaggerPipe":
        path = util.ensure_path(path)
        if not (path / "cfg").exists() or not (path / "model").exists():
            raise ValueError(f"[{self.name}] {path} has no cfg/model: not a saved perceptron_tagger")
        try:
            cfg = srsly.read_json(path / "cfg")
            self._adopt(cfg, lambda: self.model.from_disk(path / "model"))
        except Exception as e:  # noqa: BLE001 - srsly/thinc raise many types on foreign files
            raise ValueError(f"[{self.name}] {path}: truncated or foreign model ({type(e).__name__}: {e})") from e
        return self

    def _adopt(self, cfg, load: Callable[[], object]) -> None:
        labels = cfg.get("labels") if isinstance(cfg, dict) else None
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"[{self.name}] truncated or foreign cfg (no label list)")
        if not self.model.has_dim("nO") or self.model.get_dim("nO") is None:
            self.model.set_dim("nO", len(labels))
        elif self.model.get_dim("nO") != len(labels):
            raise ValueError(f"[{self.name}] the model has {self.model.get_dim('nO')} classes, the cfg {len(labels)} labels")
        load()
        W = self.model.get_param("W")
        if W.shape != (self.model.attrs["n_rows"], len(labels)):
            raise ValueError(f"[{self.name}] weights of shape {W.shape} do not fit {len(labels)} labels")
        self.cfg = {"labels": list(labels)}
        self._build(W)
