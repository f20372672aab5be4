"""The `consistency_decoder` component: corpus-level dependency decoding with inter-sentence
consistency constraints (rush2012), solved by dual decomposition (`spacy_joint_sbd.consistency`).

A batch of Docs is one corpus: ``nlp.pipe(docs, batch_size=len(docs))`` decodes all their
sentences jointly, so words in the same POS context across documents are encouraged to take heads
with the same POS. ``nlp(doc)`` decodes one document alone. Sentence boundaries come from the Doc
(else the whole Doc is one sentence), tags from a tagger earlier in the pipeline (``TAG``, else
``POS``). Each Doc records in ``doc.user_data["consistency_certified"]`` whether its trees are
certified exact (the run reached agreement and none of its sentences had its constraints removed:
``removal_rounds``), and in ``doc.user_data["consistency_iterations"]`` the run's iterations.

Training: the graph parser learns by perceptron in `update` (as `constrained_parser`); the context
counts (the observed nodes O_c) are taken once in `initialize` from the gold trees and tags of the
training examples. Serialized as ``cfg`` + ``model`` (the averaged parser and the context counts);
foreign or truncated data raise a ValueError.
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab

from ..consistency.contexts import ContextModel, check_templates
from ..consistency.parsing import consistency_parse
from ..graph.parser import GraphParser
from ._graph_component import GraphComponent, gold_sentences, make_graph_dep_scorer

CERTIFIED = "consistency_certified"
ITERATIONS = "consistency_iterations"


class ConsistencyModel:
    """The averaged graph parser and the context counts, as one serializable model."""

    def __init__(self, parser: Optional[GraphParser] = None, contexts: Optional[ContextModel] = None):
        self.parser = parser if parser is not None else GraphParser()
        self.contexts = contexts if contexts is not None else ContextModel()

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"kind": "consistency_model", "parser": self.parser.to_bytes(),
                                    "contexts": self.contexts.to_dict()})

    def from_bytes(self, data: bytes) -> "ConsistencyModel":
        msg = srsly.msgpack_loads(data)
        if not isinstance(msg, dict) or msg.get("kind") != "consistency_model":
            raise ValueError("not a ConsistencyModel")
        self.parser = GraphParser().from_bytes(msg["parser"])
        self.contexts = ContextModel.from_dict(msg["contexts"])
        return self

    # the GraphComponent protocol
    @property
    def labels(self) -> List[str]:
        return self.parser.labels

    def add_label(self, label: str) -> None:
        self.parser.add_label(label)

    def averaged(self) -> "ConsistencyModel":
        return ConsistencyModel(self.parser.averaged(), self.contexts)


@Language.factory(
    "consistency_decoder",
    assigns=["token.dep", "token.head"],
    default_config={"K": 200, "rate": 2.0, "delta": [8.0, 4.0, 0.0], "templates": None,
                    "removal_rounds": 3, "min_count": 2, "order": 2, "n_rows": 1 << 21, "label_rows": 1 << 18,
                    "scorer": {"@scorers": "spacy_joint_sbd.graph_dep_scorer.v1"}},
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None},
)
def make_consistency_decoder(nlp: Language, name: str, K: int, rate: float, delta: Sequence[float],
                             templates: Optional[List[List[int]]], removal_rounds: int,
                             min_count: int, order: int,
                             n_rows: int, label_rows: int,
                             scorer: Optional[Callable]) -> "ConsistencyDecoder":
    """Graph parser decoded jointly over each batch with consistency constraints.

    K: maximum dual decomposition iterations. rate: initial step size (decays when the dual rises).
    delta: (δ1, δ2, δ3) of §4. The defaults (δ = 8, 4, 0; rate δ1 / 4) were tuned on EWT dev with
    the arc-score scale of a perceptron-trained graph parser (projects/consistency). templates: context templates as [r, s] offsets (None: the paper's
    ten). removal_rounds: when K iterations end without agreement, the constraints of the
    sentences still disagreeing are removed and decoding goes on for up to this many rounds of 50
    iterations (as projects/consistency runs it): the Docs of those sentences are then not
    certified; the others are if agreement is reached within the rounds (exact for the model
    without the removed sentences' constraints). 0: no removal, so a batch without agreement
    certifies no Doc. Pipelines saved before this setting existed load with the default, 3.
    min_count: training instances a context needs. order: 1 or 2.
    """
    return ConsistencyDecoder(nlp.vocab, name, K=K, rate=rate, delta=delta, templates=templates,
                              removal_rounds=removal_rounds, min_count=min_count, order=order, n_rows=n_rows,
                              label_rows=label_rows, scorer=scorer)


class ConsistencyDecoder(GraphComponent):
    model_class = ConsistencyModel

    def __init__(self, vocab: Vocab, name: str = "consistency_decoder", *, K: int = 200,
                 rate: float = 2.0, delta: Sequence[float] = (8.0, 4.0, 0.0),
                 templates: Optional[List[List[int]]] = None, removal_rounds: int = 3,
                 min_count: int = 2, order: int = 2,
                 n_rows: int = 1 << 21, label_rows: int = 1 << 18, scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.name = name
        self.cfg = _check_cfg(name, {"K": K, "rate": rate, "delta": delta, "templates": templates,
                                     "removal_rounds": removal_rounds, "min_count": min_count, "order": order, "n_rows": n_rows,
                                     "label_rows": label_rows})
        self.parser = ConsistencyModel(GraphParser(order, n_rows, label_rows), self._new_contexts())
        self._predictor: Optional[ConsistencyModel] = None
        self.scorer = scorer if scorer is not None else make_graph_dep_scorer()

    def _new_contexts(self) -> ContextModel:
        tpl = self.cfg["templates"]
        return ContextModel(None if tpl is None else [tuple(t) for t in tpl], self.cfg["min_count"])

    def _label_list(self) -> List[str]:
        return self.parser.labels

    @staticmethod
    def _sentences(doc: Doc):
        if doc.has_annotation("SENT_START"):
            return [(s.start, s.end) for s in doc.sents]
        return [(0, len(doc))] if len(doc) else []

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        validate_examples(get_examples(), "ConsistencyDecoder.initialize")
        parser = GraphParser(self.cfg["order"], self.cfg["n_rows"], self.cfg["label_rows"])
        found = set(labels or [])
        train, coarse = [], []
        for eg in get_examples():
            ref = eg.reference
            if labels is None:
                found.update(t.dep_ for t in ref if t.dep_ and t.head.i != t.i)
            if not ref.has_annotation("DEP"):
                continue
            tags = [t.tag_ or t.pos_ for t in ref]
            pos = [t.pos_ for t in ref]
            for s, e, gold, _ in gold_sentences(eg):
                train.append((tags[s:e], gold))
                coarse.append(pos[s:e])
        for label in sorted(found):
            parser.add_label(label)
        self.parser = ConsistencyModel(parser, self._new_contexts().fit(train, coarse))
        self._predictor = None

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One perceptron step per gold sentence; ``losses[name]`` counts head errors."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        validate_examples(examples, "ConsistencyDecoder.update")
        for eg in examples:
            ref = eg.reference
            if not ref.has_annotation("DEP") or len(eg.predicted) != len(ref):
                continue
            tags, pos = self._training_tags(eg)
            words = [t.text for t in ref]
            for s, e, gold, deps in gold_sentences(eg):
                right = self.parser.parser.update_sentence(words[s:e], tags[s:e], pos[s:e], gold, deps)
                losses[self.name] += (e - s) - right
        self._predictor = None
        return losses

    def predict(self, docs: Iterable[Doc]) -> List[List[tuple]]:
        """Decode all sentences of ``docs`` jointly; per doc, per sentence (start, heads, labels)."""
        docs = list(docs)
        model = self._model()
        sents, where = [], []
        for d, doc in enumerate(docs):
            tags, pos, words = self._tags(doc), [t.pos_ for t in doc], [t.text for t in doc]
            for start, end in self._sentences(doc):
                sents.append((words[start:end], tags[start:end], pos[start:end]))
                where.append((d, start))
        out: List[List[tuple]] = [[] for _ in docs]
        self._last = None
        if not sents:
            return out
        if not model.contexts.stats:
            raise ValueError(f"[{self.name}] no context counts: initialize the component first")
        cfg = self.cfg
        res = consistency_parse(model.parser, sents, model.contexts, delta=tuple(cfg["delta"]),
                                K=cfg["K"], rate=cfg["rate"],
                                removal_rounds=cfg.get("removal_rounds", 3))
        self._last = res
        bad = res.result.removed | res.result.disagreeing
        certified = [res.result.certified] * len(docs)
        for i, ((d, start), heads, (w, t, p)) in enumerate(zip(where, res.heads, sents)):
            out[d].append((start, heads, model.parser.label(_sentence(w, t, p), heads)))
            if i in bad:
                certified[d] = False
        for doc, c in zip(docs, certified):
            doc.user_data[CERTIFIED] = bool(c)
            doc.user_data[ITERATIONS] = res.result.iterations
        return out

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128):
        """Each batch is decoded as one corpus (batch_size = the corpus size for joint decoding)."""
        from spacy import util

        for docs in util.minibatch(stream, size=batch_size):
            self.set_annotations(docs, self.predict(docs))
            yield from docs

    def _apply(self, cfg: Dict, model) -> None:
        try:
            checked = _check_cfg(self.name, {**self.cfg, **cfg})
        except (ValueError, TypeError) as e:
            raise self._error("cfg", "settings", e) from e
        self.cfg.update(checked)
        self.parser = model
        self._predictor = model


def _check_cfg(name: str, cfg: Dict) -> Dict:
    """The component's settings, checked (ValueError naming the component), `delta` as floats."""
    K, rate = cfg["K"], cfg["rate"]
    if isinstance(K, bool) or not isinstance(K, int) or K < 1:
        raise ValueError(f"[{name}] K must be a positive int, got {K!r}")
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate < float("inf"):
        raise ValueError(f"[{name}] rate must be a positive finite number, got {rate!r}")
    delta = cfg["delta"]
    if isinstance(delta, str):
        raise ValueError(f"[{name}] delta must be [d1, d2, d3], got {delta!r}")
    delta = [float(d) for d in delta]
    if len(delta) != 3 or not delta[0] >= delta[1] >= delta[2] >= 0 or delta[0] == float("inf"):
        raise ValueError(f"[{name}] delta must be [d1, d2, d3] with d1 >= d2 >= d3 >= 0, got {delta}")
    rounds = cfg.get("removal_rounds", 3)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 0:
        raise ValueError(f"[{name}] removal_rounds must be an int >= 0, got {rounds!r}")
    templates = cfg["templates"]
    if templates is not None:
        templates = [list(t) for t in check_templates([tuple(t) for t in templates])]
    for key in ("min_count", "order", "n_rows", "label_rows"):
        v = cfg[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"[{name}] {key} must be a positive int, got {v!r}")
    if cfg["order"] not in (1, 2):
        raise ValueError(f"[{name}] order must be 1 or 2, got {cfg['order']!r}")
    return {**cfg, "K": K, "rate": float(rate), "delta": delta, "templates": templates,
            "removal_rounds": rounds}


def _sentence(words, tags, pos):
    from ..graph.parser import make_sentence

    return make_sentence(words, tags, pos)


__all__ = ["CERTIFIED", "ConsistencyDecoder", "ConsistencyModel", "ITERATIONS",
           "make_consistency_decoder"]
