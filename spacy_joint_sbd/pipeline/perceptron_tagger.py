"""The `perceptron_tagger` component: fine-grained tags (`token.tag_`) from a hashed averaged
perceptron (`spacy_joint_sbd.tagger`), so the joint parser gets tags without a CNN.

It tags a whole Doc as one stream (no sentence boundaries needed), trains in about a second per
epoch on EWT, and is cheap enough to jackknife (`tagger.jackknife`), which is how the default
model's parser gets training tags as good as the ones it sees at prediction time. The weights
live in a `spacy_joint_sbd.HashedPerceptron.v1` Thinc model (param `W`, nO = number of tags);
what is saved is the averaged table.

With `context_clusters` (e.g. [16, 64, 256, 1024, 4096]) the tagger also reads k-means cluster ids
of the token vectors a frozen tok2vec before it leaves in `Doc.tensor` (`context.clusters`,
the same contextual features as the parser's): +1.0 XPOS on EWT dev, +1.4 on star text.
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.attrs import TAG
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..tagger import PerceptronTagger, encode_doc
from ..tagger.greedy import tag_doc
from ..tagger.model import MAX_CONTEXT
from ._weights_pipe import WeightsPipe
from ..context.clusters import ContextClusters, check_ks, with_tensor

DEFAULT_TAGGER_MODEL = Config().from_str("""
[model]
@architectures = "spacy_joint_sbd.HashedPerceptron.v1"
n_rows = 131072
""")["model"]


@Language.factory(
    "perceptron_tagger",
    assigns=["token.tag"],
    default_config={"model": DEFAULT_TAGGER_MODEL, "scorer": {"@scorers": "spacy.tagger_scorer.v1"},
                    "context_clusters": []},
    default_score_weights={"tag_acc": 1.0},
)
def make_perceptron_tagger(nlp: Language, name: str, model: Model, scorer: Optional[Callable],
                           context_clusters: List[int]) -> "PerceptronTaggerPipe":
    """context_clusters: k-means granularities of the token vectors of a tok2vec before this
    component, read as extra features (`context.clusters`); [] = words only."""
    return PerceptronTaggerPipe(nlp.vocab, model, name, scorer=scorer, context_clusters=context_clusters)


class PerceptronTaggerPipe(WeightsPipe):
    """Greedy left-to-right tagging with a hashed averaged perceptron (Collins 2002)."""

    kind = "perceptron_tagger"

    def __init__(self, vocab: Vocab, model: Model, name: str = "perceptron_tagger", *,
                 scorer: Optional[Callable] = None, context_clusters: Optional[Sequence[int]] = None):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        ks = check_ks(context_clusters, name, MAX_CONTEXT)
        self.cfg: Dict = {"labels": [], "context_clusters": ks, "context": None}
        self._tagger: Optional[PerceptronTagger] = None
        self._context: Optional[ContextClusters] = None
        """The fitted contextual clusters (`cfg["context"]` is their saved form), None if off."""

    @property
    def labels(self) -> tuple:
        return tuple(self.cfg["labels"])

    @property
    def tagger(self) -> PerceptronTagger:
        if self._tagger is None:
            raise ValueError(f"[{self.name}] has no labels: call initialize() or load a trained pipeline")
        return self._tagger

    @property
    def clusters(self) -> Optional[ContextClusters]:
        """The contextual clusters the tagger reads (None: words only)."""
        return self._context

    def _build(self, W: Optional[numpy.ndarray] = None) -> None:
        n_context = 0 if self._context is None else len(self._context.ks)
        self._tagger = PerceptronTagger(self.cfg["labels"], self.model.attrs["n_rows"], n_context=n_context)
        if W is not None:
            self._tagger.set_params({"W": W}, copy=False)  # one table, shared with the Thinc model

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None) -> None:
        if labels is None:
            labels = sorted({t.tag_ for eg in get_examples() for t in eg.reference if t.tag_})
        if not labels:
            raise ValueError(f"[{self.name}] no tags in the training examples and no labels given")
        self.cfg["labels"] = list(labels)
        ks = self.cfg["context_clusters"]
        self._set_context(None)
        if ks:
            docs = (with_tensor(eg.predicted, nlp, self.name) for eg in get_examples())
            self._set_context(ContextClusters.fit((d for d in docs if len(d)), ks))
        self._build()

    def use_tagger(self, tagger: PerceptronTagger, context: Optional[ContextClusters] = None) -> None:
        """Adopt a tagger trained outside the pipeline (e.g. by `tagger.train_tagger`) on
        `encode_doc(doc, context)` attributes: `context` is required exactly when it reads
        context columns, and must have as many sets as it reads."""
        n = 0 if context is None else len(context.ks)
        if tagger.n_context != n:
            raise ValueError(f"[{self.name}] the tagger reads {tagger.n_context} context columns, but "
                             f"{'no' if context is None else n} context clusters were given")
        self.cfg["labels"] = list(tagger.labels)
        self._set_context(context)
        self._tagger = tagger

    def _set_context(self, context: Optional[ContextClusters]) -> None:
        self._context = context
        self.cfg["context"] = None if context is None else context.to_dict()
        self.cfg["context_clusters"] = [] if context is None else context.ks

    def predict(self, docs: Iterable[Doc]) -> List[List[str]]:
        tagger = self.tagger
        docs = list(docs)
        if self._context is not None:
            self._context.prime(docs)  # one cluster search for the batch (nlp.pipe of short texts)
        return [tagger.predict(encode_doc(doc, self._context)) if len(doc) else [] for doc in docs]

    def set_annotations(self, docs: Iterable[Doc], tags: List[List[str]]) -> None:
        """Each Doc's TAG column written at once (`Doc.from_array`: what `token.tag_ = tag` per
        token does, without a Token object per token)."""
        add = self.vocab.strings.add
        ids: Dict[str, int] = {}
        for doc, doc_tags in zip(docs, tags):
            if len(doc_tags) != len(doc):
                raise ValueError(f"[{self.name}] {len(doc_tags)} tags for a Doc of {len(doc)} tokens")
            if len(doc):
                col = [ids.get(t) or ids.setdefault(t, add(t)) for t in doc_tags]
                doc.from_array([TAG], numpy.asarray(col, dtype=numpy.uint64).reshape(-1, 1))

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
            attrs = tagger.check_attrs(encode_doc(eg.predicted, self._context))
            _, errors = tag_doc(tagger.weights, attrs, tagger.gold_ids(gold), train=True)
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

    def _adopt(self, cfg, load: Callable[[], object]) -> None:
        labels = cfg.get("labels") if isinstance(cfg, dict) else None
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"[{self.name}] truncated or foreign cfg (no label list)")
        if not self.model.has_dim("nO") or self.model.get_dim("nO") is None:
            self.model.set_dim("nO", len(labels))
        elif self.model.get_dim("nO") != len(labels):
            raise ValueError(f"[{self.name}] the model has {self.model.get_dim('nO')} classes, the cfg {len(labels)} labels")
        saved = cfg.get("context")
        try:
            context = None if saved is None else ContextClusters.from_dict(saved)
        except ValueError as e:
            raise ValueError(f"[{self.name}] truncated or foreign cfg (context: {e})") from None
        if context is not None and len(context.ks) > MAX_CONTEXT:
            raise ValueError(f"[{self.name}] truncated or foreign cfg ({len(context.ks)} context sets, at most {MAX_CONTEXT})")
        load()
        W = self.model.get_param("W")
        if W.shape != (self.model.attrs["n_rows"], len(labels)):
            raise ValueError(f"[{self.name}] weights of shape {W.shape} do not fit {len(labels)} labels")
        self.cfg = {"labels": list(labels), "context_clusters": [], "context": None}
        self._set_context(context)
        self._build(W)
