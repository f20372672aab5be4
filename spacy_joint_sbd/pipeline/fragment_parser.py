"""The `fragment_parser` component: two-stage parsing over split-punctuation fragments
(Li, Che & Liu, §II.C) inside each sentence of a Doc (`spacy_joint_sbd.graph.staged_parsers`).

Sentence boundaries come from the Doc (``senter``, ``joint_sbd_parser`` or any segmenter earlier
in the pipeline; the whole Doc is one sentence without them), tags from a tagger earlier in the
pipeline (``TAG``, else ``POS``). In `update`, gold trees and sentence boundaries come from
`Example.reference`: one averaged-perceptron step per gold fragment (FRG-parser) and one per
sentence (INTER-parser); prediction and saving use the averaged weights.
"""
from typing import Callable, Dict, Iterable, List, Optional

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab

from ..graph.split_punct import ASCII_SPLIT, FULLWIDTH_SPLIT, IDEOGRAPHIC_COMMA
from ..graph.staged_parsers import TwoStageParser
from ._graph_component import GraphComponent, gold_sentences, make_graph_dep_scorer

DEFAULT_SPLIT_PUNCT = ASCII_SPLIT + FULLWIDTH_SPLIT


@Language.factory(
    "fragment_parser",
    assigns=["token.dep", "token.head"],
    default_config={
        "order": 2,
        "split_punct": DEFAULT_SPLIT_PUNCT,
        "ideographic_comma": False,
        "n_rows": 1 << 21,
        "label_rows": 1 << 18,
        "scorer": {"@scorers": "spacy_joint_sbd.graph_dep_scorer.v1"},
    },
    default_score_weights={"dep_uas": 0.5, "dep_las": 0.5, "dep_las_per_type": None},
)
def make_fragment_parser(nlp: Language, name: str, order: int, split_punct: str,
                         ideographic_comma: bool, n_rows: int, label_rows: int,
                         scorer: Optional[Callable]) -> "FragmentParser":
    """Two-stage graph-based parser: fragments first (multi-rooted), then their sub-roots.

    order: 1 (arc-factored) or 2 (adjacent siblings), for both stages.
    split_punct: the characters split punctuation tokens are made of.
    ideographic_comma: also split at 、.
    n_rows, label_rows: hash buckets of the arc and label weight tables (per stage).
    """
    return FragmentParser(nlp.vocab, name, order=order, split_punct=split_punct,
                          ideographic_comma=ideographic_comma, n_rows=n_rows,
                          label_rows=label_rows, scorer=scorer)


class FragmentParser(GraphComponent):
    model_class = TwoStageParser

    def __init__(self, vocab: Vocab, name: str = "fragment_parser", *, order: int = 2,
                 split_punct: str = DEFAULT_SPLIT_PUNCT, ideographic_comma: bool = False,
                 n_rows: int = 1 << 21, label_rows: int = 1 << 18,
                 scorer: Optional[Callable] = None):
        if order not in (1, 2):
            raise ValueError(f"order must be 1 or 2, got {order}")
        if not split_punct:
            raise ValueError("split_punct must name at least one character")
        self.vocab = vocab
        self.name = name
        self.cfg = {"order": order, "split_punct": split_punct,
                    "ideographic_comma": ideographic_comma, "n_rows": n_rows,
                    "label_rows": label_rows}
        self.parser = self._new_parser()
        self._predictor: Optional[TwoStageParser] = None
        self.scorer = scorer if scorer is not None else make_graph_dep_scorer()

    def _new_parser(self) -> TwoStageParser:
        chars = frozenset(self.cfg["split_punct"])
        if self.cfg["ideographic_comma"]:
            chars |= frozenset(IDEOGRAPHIC_COMMA)
        return TwoStageParser(self.cfg["order"], self.cfg["n_rows"], self.cfg["label_rows"], chars)

    def _label_list(self) -> List[str]:
        return self.parser.inter.labels

    @staticmethod
    def _sentences(doc: Doc):
        if doc.has_annotation("SENT_START") or doc.has_annotation("DEP"):
            return [(s.start, s.end) for s in doc.sents]
        return [(0, len(doc))] if len(doc) else []

    @staticmethod
    def _parse_sentence(model, words, tags, pos):
        return model.parse(words, tags, pos)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        validate_examples(get_examples(), "FragmentParser.initialize")
        self.parser = self._new_parser()
        found = set(labels or [])
        if labels is None:
            for eg in get_examples():
                found.update(t.dep_ for t in eg.reference if t.dep_)
        for label in sorted(found):
            self.parser.add_label(label)
        self._predictor = None

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One perceptron step per gold fragment and per gold sentence; ``losses[name]`` counts
        the head errors of the two stages' decodings."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        validate_examples(examples, "FragmentParser.update")
        for eg in examples:
            ref, pred = eg.reference, eg.predicted
            if not ref.has_annotation("DEP") or len(pred) != len(ref):
                continue  # the graph parser needs the gold tokenization
            tags, pos = self._training_tags(eg)
            words = [t.text for t in ref]
            for s, e, gold, deps in gold_sentences(eg):
                right = self.parser.update_sentence(words[s:e], tags[s:e], pos[s:e], gold, deps)
                losses[self.name] += max(0, (e - s) - right)
        self._predictor = None
        return losses


__all__ = ["FragmentParser", "make_fragment_parser"]
