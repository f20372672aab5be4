"""The `constrained_parser` component: re-parses each sentence of a Doc with the graph-based parser
(`spacy_joint_sbd.graph.parser`), decoding under one of the punctuation constraints of Spitkovsky
et al. (2011, §2.2) — ``sprawl`` by default, or ``none``, ``strict``, ``loose``, ``tear``,
``thread`` — as in §4: constrained inference on top of a supervised model
(`graph.constrained_decoding`).

Sentence boundaries come from the Doc (any segmenter earlier in the pipeline, or the joint
parser); tags from a tagger earlier in the pipeline (``TAG``, else ``POS``). During `update`, gold
trees and sentence boundaries come from `Example.reference`; the model is an averaged perceptron
trained by spaCy's loop one batch at a time, and prediction always uses the averaged weights.

The factory was first called ``sprawl_decoder``; that name stays registered for the same class, so
pipelines saved with it still load.
"""
from typing import Callable, Dict, Iterable, List, Optional

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab

from ..graph.constraints import check_name
from ..graph.parser import GraphParser
from ._graph_component import GraphComponent, gold_sentences, make_graph_dep_scorer

FACTORY = dict(
    assigns=["token.dep", "token.head"],
    default_config={
        "constraint": "sprawl",
        "train_constraint": "none",
        "words_only": False,
        "order": 1,
        "n_rows": 1 << 21,
        "label_rows": 1 << 18,
        "scorer": {"@scorers": "spacy_joint_sbd.graph_dep_scorer.v1"},
    },
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None},
)


@Language.factory("constrained_parser", **FACTORY)
def make_constrained_parser(nlp: Language, name: str, constraint: str, train_constraint: str,
                            words_only: bool, order: int, n_rows: int, label_rows: int,
                            scorer: Optional[Callable]) -> "ConstrainedParser":
    """Graph-based parser decoding under a punctuation constraint.

    constraint: decoding constraint: `sprawl` (default), `none`, `strict`, `loose`, `tear`, `thread`.
    train_constraint: constraint used when decoding during training (the paper: `loose`).
    words_only: decode the words with punctuation stripped, then re-attach the marks the UD way
        (as the paper parses, §3); False decodes punctuation as tokens of the tree.
    order: 1 (arc-factored) or 2 (adjacent siblings).
    n_rows, label_rows: hash buckets of the arc and label weight tables.
    """
    return ConstrainedParser(nlp.vocab, name, constraint=constraint, train_constraint=train_constraint,
                             words_only=words_only, order=order, n_rows=n_rows, label_rows=label_rows, scorer=scorer)


@Language.factory("sprawl_decoder", **FACTORY)
def make_sprawl_decoder(nlp: Language, name: str, constraint: str, train_constraint: str,
                        words_only: bool, order: int, n_rows: int, label_rows: int,
                        scorer: Optional[Callable]) -> "ConstrainedParser":
    """The former name of `constrained_parser`, kept so that saved pipelines still load."""
    return make_constrained_parser(nlp, name, constraint, train_constraint, words_only, order,
                                   n_rows, label_rows, scorer)


class ConstrainedParser(GraphComponent):
    model_class = GraphParser

    def __init__(self, vocab: Vocab, name: str = "constrained_parser", *, constraint: str = "sprawl",
                 train_constraint: str = "none", words_only: bool = False, order: int = 1, n_rows: int = 1 << 21,
                 label_rows: int = 1 << 18, scorer: Optional[Callable] = None):
        for c in (constraint, train_constraint):
            check_name(c)
        self.vocab = vocab
        self.name = name
        self.cfg = {"constraint": constraint, "train_constraint": train_constraint,
                    "words_only": bool(words_only), "order": order,
                    "n_rows": n_rows, "label_rows": label_rows}
        self.parser = GraphParser(order, n_rows, label_rows)
        self._predictor: Optional[GraphParser] = None
        self.scorer = scorer if scorer is not None else make_graph_dep_scorer()

    def _label_list(self) -> List[str]:
        return self.parser.labels

    @staticmethod
    def _sentences(doc: Doc):
        if doc.has_annotation("SENT_START"):
            return [(s.start, s.end) for s in doc.sents]
        return [(0, len(doc))] if len(doc) else []

    def _parse_sentence(self, model, words, tags, pos):
        return model.parse(words, tags, pos, self.cfg["constraint"], self.cfg.get("words_only", False))

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None) -> None:
        validate_examples(get_examples(), "ConstrainedParser.initialize")
        self.parser = GraphParser(self.cfg["order"], self.cfg["n_rows"], self.cfg["label_rows"])
        found = set(labels or [])
        if labels is None:
            for eg in get_examples():
                found.update(t.dep_ for t in eg.reference if t.dep_ and t.head.i != t.i)
        for label in sorted(found):
            self.parser.add_label(label)
        self._predictor = None

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One perceptron step per gold sentence; ``losses[name]`` counts head errors."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        validate_examples(examples, "ConstrainedParser.update")
        for eg in examples:
            ref = eg.reference
            if not ref.has_annotation("DEP"):
                continue
            pred = eg.predicted
            if len(pred) != len(ref):
                continue  # the graph parser needs the gold tokenization
            tags, pos = self._training_tags(eg)
            words = [t.text for t in ref]
            for s, e, gold, deps in gold_sentences(eg):
                n_right = self.parser.update_sentence(words[s:e], tags[s:e], pos[s:e], gold, deps,
                                                      self.cfg["train_constraint"])
                losses[self.name] += (e - s) - n_right
        self._predictor = None
        return losses


__all__ = ["ConstrainedParser", "make_constrained_parser", "make_sprawl_decoder"]
