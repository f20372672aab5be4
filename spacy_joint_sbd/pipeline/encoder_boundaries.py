"""The `encoder_boundaries` component: a pretrained encoder's P(token starts a sentence).

It writes `doc._.boundary_probs` ((len(doc),) float32), the seam the joint parser's `prior_weight`
and `prior_features` read, from a fine-tuned BERT token classifier run by onnxruntime on CPU
(`spacy_joint_sbd.encoder`): the Doc's words (whitespace tokens left out: they never start a
sentence and get `CLIP`) in overlapping windows, each word scored where it is most central, any
length in bounded memory. `blend` b mixes with probabilities an earlier component wrote, in
log-odds: (1 − b) · earlier + b · own. `blend_punctuated`, when set, is b instead for a Doc that
marks sentence ends with punctuation (`final_punct.has_final_punct`, the regime that picks the
parser's SB bias): the encoder is uncased and learnt mostly on speech-like text, and edited text may
need little of it; at 0 such a Doc keeps the earlier probabilities and the encoder does not run.
`own_features` also writes the encoder's own probabilities to `doc._.boundary_feature_probs`, which
the joint parser's `prior_features` then read instead of the blend: a parser trained on the
encoder's probabilities reads that evidence on every Doc, while the blends choose what its
`prior_weight` adds (the encoder then runs on every Doc).

A multi-task encoder (one whose graph has syntax heads, `encoder.heads`) also writes, from the
same windows and the same call, each token's best head candidates: `doc._.head_candidates`
((len(doc), k) int32 token indices, best first; −1 the root, −2 none), `doc._.head_scores` (their
probabilities under the encoder's arc scorer, float32) and `doc._.head_labels` (each candidate's
best label as a `StringStore` hash, uint64; labels in spaCy's form, `ROOT` for the root). Whitespace
tokens get no candidate. A word's candidates lie in its most central window. With `syntax` on
(the default) such an encoder reads every Doc.

The encoder comes from an encoder directory (`spacy_joint_sbd.encoder.files`): at `initialize`
(`[initialize.components.encoder_boundaries] model_dir = ...`) or with the pipeline's own saved
files; nothing is downloaded. Nothing here trains: the `encoder` project fine-tunes the encoder,
and a joint parser trained after it lists the component in `frozen_components` and
`annotating_components`. Needs the `trf` extra (onnxruntime, tokenizers).
"""
import warnings
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

import numpy
from spacy import util
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from ..boundary import DOC_FEATURE_PROBS, DOC_PROBS
from ..corpus.labels import to_spacy_dep
from ..encoder.files import EncoderFiles
from ..learn.logistic import sigmoid
from . import boundary_prior  # noqa: F401  (the Doc extension and the scorer)
from .joint.final_punct import has_final_punct
from .joint.head_evidence import DOC_HEAD_LABELS, DOC_HEAD_SCORES, DOC_HEADS  # noqa: F401  (the Doc extensions)

CLIP = 1e-6
"""Probabilities are kept in [CLIP, 1 − CLIP]; whitespace tokens get CLIP."""

INT_SETTING_MINIMA = {"max_words": 1, "max_pieces": 3, "max_word_pieces": 1, "batch_size": 1, "threads": 0}
"""Each int setting and its least value."""


def __getattr__(name: str):
    """`SETTINGS`, the old name of `INT_SETTING_MINIMA` (deprecated: it holds least values, not settings)."""
    if name == "SETTINGS":
        warnings.warn("encoder_boundaries.SETTINGS is deprecated and goes in the next version: use INT_SETTING_MINIMA",
                      DeprecationWarning, stacklevel=2)
        return INT_SETTING_MINIMA
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _checked(name: str, value, component: str):
    if name == "blend_punctuated" and value is None:
        return None
    if name in ("own_features", "syntax"):
        if not isinstance(value, bool):
            raise ValueError(f"[{component}] {name} must be true or false, got {value!r}")
        return value
    if name in ("blend", "blend_punctuated", "stride"):
        low_ok = (lambda v: 0 < v) if name == "stride" else (lambda v: 0 <= v)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not (low_ok(value) and value <= 1):
            span = "(0, 1]" if name == "stride" else "[0, 1]"
            raise ValueError(f"[{component}] {name} must be a number in {span}, got {value!r}")
        return float(value)
    low = INT_SETTING_MINIMA[name]
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ValueError(f"[{component}] {name} must be an int >= {low}, got {value!r}")
    if name == "max_pieces" and value > 512:
        raise ValueError(f"[{component}] max_pieces must be at most 512 (BERT's positions), got {value!r}")
    return value


@Language.factory(
    "encoder_boundaries",
    assigns=[f"doc._.{DOC_PROBS}", f"doc._.{DOC_HEADS}", f"doc._.{DOC_HEAD_SCORES}", f"doc._.{DOC_HEAD_LABELS}"],
    default_config={"max_words": 96, "max_pieces": 256, "max_word_pieces": 8, "batch_size": 1,
                    "threads": 0, "stride": 0.5, "blend": 1.0, "blend_punctuated": None,
                    "own_features": False, "syntax": True,
                    "scorer": {"@scorers": "spacy_joint_sbd.boundary_prior_scorer.v1"}},
    default_score_weights={"prior_f": 1.0, "prior_p": 0.0, "prior_r": 0.0},
)
def make_encoder_boundaries(nlp: Language, name: str, max_words: int, max_pieces: int, max_word_pieces: int,
                            batch_size: int, threads: int, stride: float, blend: float,
                            blend_punctuated: Optional[float], own_features: bool, syntax: bool,
                            scorer: Optional[Callable]) -> "EncoderBoundaries":
    """max_words, max_pieces: a window's size in words and WordPieces (the encoder's training
    window is 96 words). max_word_pieces: pieces read of one word. batch_size: windows per
    onnxruntime call (1: each window's scores are its own; an int8 graph scales activations per
    call). threads: onnxruntime's intra-op threads (0: its choice). stride: the share of a
    window between window starts (0.5: each word read twice, 1: once, with less context at window
    edges). blend: weight of
    the encoder's log-odds against probabilities an earlier component wrote (1: replace them).
    blend_punctuated: the same for a Doc with sentence-final punctuation (None: `blend`).
    own_features: also write the encoder's own probabilities as the parser's feature source
    (`doc._.boundary_feature_probs`). syntax: with a multi-task encoder, write its head candidates
    (`doc._.head_candidates`, `head_scores`, `head_labels`)."""
    return EncoderBoundaries(nlp.vocab, name, max_words=max_words, max_pieces=max_pieces,
                             max_word_pieces=max_word_pieces, batch_size=batch_size, threads=threads,
                             stride=stride, blend=blend, blend_punctuated=blend_punctuated,
                             own_features=own_features, syntax=syntax, scorer=scorer)


class EncoderBoundaries:
    """Writes an encoder's boundary probabilities on each Doc; sets no sentence start."""

    def __init__(self, vocab, name: str = "encoder_boundaries", *, max_words: int = 96, max_pieces: int = 256,
                 max_word_pieces: int = 8, batch_size: int = 1, threads: int = 0, stride: float = 0.5,
                 blend: float = 1.0, blend_punctuated: Optional[float] = None, own_features: bool = False,
                 syntax: bool = True, scorer: Optional[Callable] = None) -> None:
        self.vocab = vocab
        self.name = name
        self.cfg: Dict[str, Union[int, float, bool, None]] = {}
        for key, value in (("max_words", max_words), ("max_pieces", max_pieces),
                           ("max_word_pieces", max_word_pieces), ("batch_size", batch_size),
                           ("threads", threads), ("stride", stride), ("blend", blend),
                           ("blend_punctuated", blend_punctuated), ("own_features", own_features),
                           ("syntax", syntax)):
            self.cfg[key] = _checked(key, value, name)
        if max_word_pieces > max_pieces - 2:
            raise ValueError(f"[{name}] max_word_pieces ({max_word_pieces}) must leave room for [CLS] and [SEP] "
                             f"in max_pieces ({max_pieces})")
        self.scorer = scorer
        self.files: Optional[EncoderFiles] = None
        self._encoder = None
        self._label_hashes: Optional[numpy.ndarray] = None

    # -- the encoder ---------------------------------------------------------------------------
    def _adopt(self, files: EncoderFiles) -> None:
        from ..encoder.session import BoundaryEncoder

        cal = files.calibration()
        syntax = files.card.get("syntax") or {}
        top_k = syntax.get("top_k", 4)
        encoder = BoundaryEncoder(files.graph, files.tokenizer, max_words=int(self.cfg["max_words"]),
                                  max_pieces=int(self.cfg["max_pieces"]),
                                  max_word_pieces=int(self.cfg["max_word_pieces"]),
                                  batch_size=int(self.cfg["batch_size"]), threads=int(self.cfg["threads"]),
                                  stride=float(self.cfg["stride"]), top_k=top_k)
        labels = syntax.get("labels")
        if encoder.syntax and (not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels)):
            raise ValueError("the encoder has syntax heads but its card (encoder.json) lists no labels under syntax.labels")
        self._label_hashes = (numpy.asarray([self.vocab.strings.add(to_spacy_dep(x)) for x in labels], dtype=numpy.uint64)
                              if encoder.syntax else None)
        self.files, self._encoder, self._cal = files, encoder, cal

    @property
    def encoder(self):
        if self._encoder is None:
            raise ValueError(f"[{self.name}] has no encoder: initialize it with an encoder directory "
                             f"([initialize.components.{self.name}] model_dir) or load a saved pipeline")
        return self._encoder

    def initialize(self, get_examples: Optional[Callable[[], Iterable[Example]]] = None, *,
                   nlp: Optional[Language] = None, model_dir: Optional[Union[str, Path]] = None) -> None:
        """Load the encoder directory `model_dir` (keeps the one it has when None)."""
        if model_dir is not None:
            self._adopt(EncoderFiles.from_disk(util.ensure_path(model_dir)))
        else:
            self.encoder  # noqa: B018 - the clear error when there is none

    # -- prediction ----------------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc], *self.predict_all([doc]))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        for docs in util.minibatch(stream, size=batch_size):
            self.set_annotations(docs, *self.predict_all(docs))
            yield from docs

    @property
    def writes_syntax(self) -> bool:
        """Whether Docs get head candidates: a multi-task encoder with `syntax` on."""
        return bool(self.cfg.get("syntax")) and self.encoder.syntax

    def _blend(self, doc: Doc) -> float:
        """The blend for `doc`: `blend_punctuated` (when set) if it has sentence-final punctuation."""
        bp = self.cfg.get("blend_punctuated")
        return float(self.cfg["blend"]) if bp is None or not has_final_punct(doc) else float(bp)

    def _earlier(self, doc: Doc) -> Optional[numpy.ndarray]:
        earlier = doc._.get(DOC_PROBS)
        return earlier if earlier is not None and len(earlier) == len(doc) else None

    def predict(self, docs: List[Doc]) -> List[Optional[numpy.ndarray]]:
        """Each Doc's (len(doc),) log-odds; whitespace tokens get the least. None for a Doc whose
        blend is 0 and that has earlier probabilities: it keeps them, the encoder does not read it
        (unless `own_features`, or a multi-task encoder's `syntax`)."""
        return self.predict_all(docs)[0]

    def predict_all(self, docs: List[Doc]) -> Tuple[List[Optional[numpy.ndarray]], List[Optional[Tuple[numpy.ndarray, ...]]]]:
        """`predict`'s log-odds, and each Doc's syntax evidence (head candidates, their
        probabilities, their labels' hashes: (len(doc), k) each) when the encoder writes it."""
        encoder = self.encoder
        syntax = self.writes_syntax
        always = syntax or bool(self.cfg.get("own_features"))
        run = [always or not (self._blend(doc) == 0.0 and self._earlier(doc) is not None) for doc in docs]
        keeps = [~doc.to_array("IS_SPACE").astype(bool) if len(doc) else numpy.zeros(0, dtype=bool) for doc in docs]
        words = [[t.text for t, k in zip(doc, keep) if k] for doc, keep, r in zip(docs, keeps, run) if r]
        if syntax:
            outputs = encoder.many_outputs(words)
            logits = iter([o.logits for o in outputs])
        else:
            outputs = None
            logits = iter(encoder.many_logits(words))
        found = iter(outputs or ())
        low = float(numpy.log(CLIP) - numpy.log1p(-CLIP))
        out: List[Optional[numpy.ndarray]] = []
        evidence: List[Optional[Tuple[numpy.ndarray, ...]]] = []
        for doc, keep, r in zip(docs, keeps, run):
            if not r:
                out.append(None)
                evidence.append(None)
                continue
            full = numpy.full(len(doc), low, dtype=numpy.float64)
            full[keep] = self._cal["scale"] * next(logits).astype(numpy.float64) + self._cal["shift"]
            out.append(full)
            evidence.append(self._token_evidence(next(found), keep) if syntax else None)
        return out, evidence

    def _token_evidence(self, words, keep: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """A word sequence's head candidates on the Doc's tokens (whitespace tokens have none)."""
        n, k = len(keep), words.heads.shape[1]
        token_of = numpy.flatnonzero(keep)
        heads = numpy.full((n, k), -2, dtype=numpy.int32)
        real = words.heads >= 0
        heads[keep] = numpy.where(real, token_of[numpy.clip(words.heads, 0, None)], words.heads)
        scores = numpy.zeros((n, k), dtype=numpy.float32)
        scores[keep] = numpy.exp(words.head_scores)
        labels = numpy.zeros((n, k), dtype=numpy.uint64)
        labels[keep] = numpy.where(words.heads != -2, self._label_hashes[numpy.clip(words.head_labels, 0, len(self._label_hashes) - 1)], 0)
        return heads, scores, labels

    def set_annotations(self, docs: List[Doc], logits: List[Optional[numpy.ndarray]],
                        evidence: Optional[List[Optional[Tuple[numpy.ndarray, ...]]]] = None) -> None:
        for doc, found in zip(docs, evidence or ()):
            if found is not None:
                for name, value in zip((DOC_HEADS, DOC_HEAD_SCORES, DOC_HEAD_LABELS), found):
                    doc._.set(name, value)
        for doc, own in zip(docs, logits):
            if own is None:
                continue  # blend 0: the earlier probabilities stay
            b, earlier = self._blend(doc), self._earlier(doc)
            mine = numpy.clip(sigmoid(own), CLIP, 1 - CLIP).astype(numpy.float32)
            if self.cfg.get("own_features"):
                doc._.set(DOC_FEATURE_PROBS, mine)
            if earlier is None or b == 1.0:
                doc._.set(DOC_PROBS, mine)
            elif b > 0.0:  # at 0 the earlier probabilities stay
                p = numpy.clip(numpy.asarray(earlier, dtype=numpy.float64), CLIP, 1 - CLIP)
                mixed = (1 - b) * (numpy.log(p) - numpy.log1p(-p)) + b * own
                doc._.set(DOC_PROBS, numpy.clip(sigmoid(mixed), CLIP, 1 - CLIP).astype(numpy.float32))

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        return self.scorer(examples, **kwargs) if self.scorer is not None else {}

    # -- serialization -------------------------------------------------------------------------
    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        if self.files is not None:
            self.files.to_disk(path)

    def from_disk(self, path, *, exclude=tuple()) -> "EncoderBoundaries":
        path = util.ensure_path(path)
        if not path.is_dir() or not any(path.iterdir()):
            return self  # saved before initialize: nothing to adopt
        try:
            self._adopt(EncoderFiles.from_disk(path))
        except ValueError as e:
            raise ValueError(f"[{self.name}] {e}") from e
        return self

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return self.files.to_bytes() if self.files is not None else b""

    def from_bytes(self, data: bytes, *, exclude=tuple()) -> "EncoderBoundaries":
        if data:
            try:
                self._adopt(EncoderFiles.from_bytes(data))
            except ValueError as e:
                raise ValueError(f"[{self.name}] {e}") from e
        return self
