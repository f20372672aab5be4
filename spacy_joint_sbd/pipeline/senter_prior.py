"""The `senter_prior` component: spaCy's `senter` as a source of boundary evidence.

A `SentenceRecognizer` (its own CNN tok2vec: hashed embeddings of NORM, PREFIX, SUFFIX and SHAPE
and a window encoder, as in spaCy's pipelines) trained on documents whose boundaries come from
punctuation and layout (`corpus.running_text`), one of the candidate boundary models measured in projects/speech. It
sets no sentence starts: it writes P(token starts a sentence) into `doc._.boundary_probs`, the seam
the joint parser's `prior_weight` reads (`pipeline/prior_scores.py`), exactly as `boundary_prior`
does. When an earlier component already wrote probabilities there, `blend` b mixes the two in
log-odds: logit = (1 − b) · earlier + b · own (b = 1: replace them).

Train it with `spacy train` (the senter's own loss and update; its scorer counts the tokens whose
probability is ≥ 0.5, as `boundary_prior`'s does).
"""
from typing import Callable, Iterable, List, Optional

import numpy
from spacy.language import Language
from spacy.pipeline.senter import SentenceRecognizer
from spacy.tokens import Doc
from thinc.api import Config, Model

from ..boundary import DOC_PROBS
from ..learn.logistic import sigmoid
from . import boundary_prior  # noqa: F401  (the Doc extension and the scorer)

DEFAULT_SENTER_PRIOR_MODEL = Config().from_str("""
[model]
@architectures = "spacy.Tagger.v2"
nO = null

[model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE", "IS_SPACE"]
rows = [5000, 1000, 2500, 2500, 50]
include_static_vectors = false

[model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
depth = 4
window_size = 1
maxout_pieces = 3
""")["model"]

CLIP = 1e-6
"""Probabilities are kept in [CLIP, 1 − CLIP] (the parser clips log-odds further)."""


def _checked_blend(value, name: str) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        raise ValueError(f"[{name}] blend must be a number in [0, 1], got {value!r}")
    return float(value)


@Language.factory(
    "senter_prior",
    assigns=[f"doc._.{DOC_PROBS}"],
    default_config={"model": DEFAULT_SENTER_PRIOR_MODEL, "blend": 1.0, "overwrite": False,
                    "scorer": {"@scorers": "spacy_joint_sbd.boundary_prior_scorer.v1"}},
    default_score_weights={"prior_f": 1.0, "prior_p": 0.0, "prior_r": 0.0},
)
def make_senter_prior(nlp: Language, name: str, model: Model, blend: float, overwrite: bool,
                      scorer: Optional[Callable]) -> "SenterPrior":
    """blend: weight of this model's log-odds against probabilities an earlier component wrote
    (1: replace them). overwrite: unused (the senter's own setting; no sentence start is set)."""
    return SenterPrior(nlp.vocab, model, name, blend=blend, overwrite=overwrite, scorer=scorer)


class SenterPrior(SentenceRecognizer):
    """spaCy's senter whose predictions become `doc._.boundary_probs` instead of sentence starts."""

    def __init__(self, vocab, model: Model, name: str = "senter_prior", *, blend: float = 1.0,
                 overwrite: bool = False, scorer: Optional[Callable] = None):
        super().__init__(vocab, model, name, overwrite=overwrite, scorer=scorer)
        self.cfg["blend"] = _checked_blend(blend, name)

    @property
    def blend(self) -> float:
        """Checked where it is read too: a saved or hand-edited cfg gets the same message."""
        return _checked_blend(self.cfg.get("blend", 1.0), self.name)

    @blend.setter
    def blend(self, value: float) -> None:
        self.cfg["blend"] = _checked_blend(value, self.name)

    def predict(self, docs: Iterable[Doc]) -> List:
        """The senter's two scores per token (the Tagger's predict keeps only their argmax)."""
        docs = list(docs)
        if not any(len(doc) for doc in docs):
            return [self.model.ops.alloc2f(len(doc), 2) for doc in docs]
        return self.model.predict(docs)

    def set_annotations(self, docs: List[Doc], scores) -> None:
        """Write each Doc's P(start) = softmax of the senter's two scores (S against I)."""
        if isinstance(docs, Doc):
            docs = [docs]
        b = self.blend
        for doc, s in zip(docs, scores):
            s = self.model.ops.to_numpy(s).astype(numpy.float64)
            if len(doc) == 0:
                doc._.set(DOC_PROBS, numpy.zeros((0,), dtype=numpy.float32))
                continue
            own = s[:, 1] - s[:, 0]  # label order: ["I", "S"]
            earlier = doc._.get(DOC_PROBS)
            if b < 1.0 and earlier is not None and len(earlier) == len(doc):
                p = numpy.clip(numpy.asarray(earlier, dtype=numpy.float64), CLIP, 1 - CLIP)
                own = (1 - b) * (numpy.log(p) - numpy.log1p(-p)) + b * own
            probs = sigmoid(own)
            doc._.set(DOC_PROBS, numpy.clip(probs, CLIP, 1 - CLIP).astype(numpy.float32))
