"""The `dmv_parser` component: an unsupervised (or supervised) DMV (`spacy_joint_sbd.dmv`) that
parses each sentence of a Doc under a punctuation constraint (Spitkovsky et al. 2011: ``sprawl``
by default), so that a language with no treebank can be parsed from tagged raw text.

Words are parsed with punctuation stripped (UPOS ``PUNCT``, else ``Token.is_punct``); the marks
only cut fragments, and are re-attached afterwards (`graph.punct_attach.reattach_punct`). Word classes
are the Doc's ``POS`` (``tag_attr="pos"``) or ``TAG`` (``"tag"``), set by a tagger earlier in
the pipeline. Arcs carry the label ``dep`` (``punct`` for marks): the DMV is unlabelled.

Training is batch Viterbi EM, not SGD: `fit(docs)` (or `initialize(get_examples)`, which fits
on the examples' *predicted* docs — raw tagged text, no trees) runs the two-stage scaffolding
of §3.1 with constrained training (``train_constraint``, ``loose`` by default). With
``supervised=True``, `initialize` estimates the DMV from the reference trees instead. `update`
does nothing (it reports no loss), so ``spacy train`` only needs the initialization.

Word classes are required: a Doc none of whose tokens has the configured tag raises a ValueError
(at `fit`, `initialize` and prediction); a token without one among tagged tokens gets ``X``.
During ``nlp.initialize`` the examples' predicted docs hold only what the corpus reader put
there (spaCy does not run earlier components over them), so the unsupervised `initialize` needs
a reader that yields tagged predicted docs; otherwise tag raw text and call `fit(docs)`.

Sentences longer than `dmv.chart.MAX_WORDS` words (punctuation stripped) are refused with a
ValueError naming the Doc: a Doc without sentence boundaries is one sentence, so segment long
texts first.

Thread safety: prediction only reads the model (the chart releases the GIL); `fit`,
`initialize` and the ``from_*`` loaders replace it and must not run concurrently with
prediction.
"""
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import srsly
from spacy import util
from spacy.attrs import DEP, HEAD
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from spacy.vocab import Vocab

from ..corpus.docs import doc_name
from ..dmv.chart import MAX_WORDS
from ..dmv.model import DMV, DMVSentence, induce, make_sentence, supervised
from ..graph.constraints import check_name
from ..graph.punct_attach import reattach_punct
from ._graph_component import make_graph_dep_scorer
from ..persist.checksums import verify_checksums, write_checksums

TAG_ATTRS = ("pos", "tag")


@Language.factory(
    "dmv_parser",
    assigns=["token.dep", "token.head"],
    default_config={"constraint": "sprawl", "train_constraint": "loose", "tag_attr": "pos",
                    "supervised": False, "max_iter": 40, "patience": 10, "lex_min_count": 0,
                    "scorer": {"@scorers": "spacy_joint_sbd.graph_dep_scorer.v1"}},
    default_score_weights={"dep_uas": 1.0, "dep_las": None, "dep_las_per_type": None},
)
def make_dmv_parser(nlp: Language, name: str, constraint: str, train_constraint: str,
                    tag_attr: str, supervised: bool, max_iter: int, patience: int,
                    lex_min_count: int, scorer: Optional[Callable]) -> "DMVParser":
    """DMV grammar inducer and parser under a punctuation constraint.

    constraint: decoding constraint (`sprawl`; `none`, `strict`, `loose`, `tear`, `thread`).
    train_constraint: constraint of the Viterbi E-step in `fit` (the paper: `loose`).
    tag_attr: word classes, `pos` (UPOS) or `tag`.
    supervised: `initialize` estimates from the reference trees instead of running EM.
    max_iter, patience: Viterbi-EM iteration cap per stage and the termination rule's patience.
    lex_min_count: lexicalize words seen this often in the second stage (0: never; §6).
    """
    return DMVParser(nlp.vocab, name, constraint=constraint, train_constraint=train_constraint,
                     tag_attr=tag_attr, supervised=supervised, max_iter=max_iter,
                     patience=patience, lex_min_count=lex_min_count, scorer=scorer)


_CFG_KEYS = ("constraint", "train_constraint", "tag_attr", "supervised", "max_iter", "patience",
             "lex_min_count")


def _check_cfg(cfg: Dict) -> Dict:
    """The component's settings, checked (ValueError on an unknown, missing or bad one)."""
    unknown = set(cfg) - set(_CFG_KEYS)
    missing = set(_CFG_KEYS) - set(cfg)
    if unknown or missing:
        raise ValueError(f"bad settings: unknown {sorted(unknown)}, missing {sorted(missing)}")
    for c in (cfg["constraint"], cfg["train_constraint"]):
        if not isinstance(c, str):
            raise ValueError(f"constraint names must be strings, got {c!r}")
        check_name(c)
    if cfg["tag_attr"] not in TAG_ATTRS:
        raise ValueError(f"tag_attr must be one of {TAG_ATTRS}, got {cfg['tag_attr']!r}")
    for key in ("max_iter", "patience", "lex_min_count"):
        v = cfg[key]
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{key} must be an int, got {v!r}")
    if cfg["max_iter"] < 1 or cfg["patience"] < 1 or cfg["lex_min_count"] < 0:
        raise ValueError("max_iter and patience must be >= 1, lex_min_count >= 0")
    if not isinstance(cfg["supervised"], (bool, int)):
        raise ValueError(f"supervised must be a bool, got {cfg['supervised']!r}")
    return {k: (bool(cfg[k]) if k == "supervised" else cfg[k]) for k in _CFG_KEYS}


def _doc_name(doc: Doc) -> str:
    return f"{doc_name(doc)} ({len(doc)} tokens)"


class DMVParser(Pipe):
    def __init__(self, vocab: Vocab, name: str = "dmv_parser", *, constraint: str = "sprawl",
                 train_constraint: str = "loose", tag_attr: str = "pos", supervised: bool = False,
                 max_iter: int = 40, patience: int = 10, lex_min_count: int = 0,
                 scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.name = name
        self.cfg = _check_cfg({"constraint": constraint, "train_constraint": train_constraint,
                               "tag_attr": tag_attr, "supervised": supervised,
                               "max_iter": max_iter, "patience": patience,
                               "lex_min_count": lex_min_count})
        self.model: Optional[DMV] = None
        self.scorer = scorer if scorer is not None else make_graph_dep_scorer()

    # -- data -------------------------------------------------------------------------------------

    def _sentences(self, doc: Doc, with_heads: bool = False) -> List[Tuple[int, int, List[bool], DMVSentence]]:
        """(start, end, is_punct, DMVSentence) per sentence of a Doc (the whole Doc if it has
        no sentence boundaries). ValueError if no token is tagged (``tag_attr``)."""
        segmented = doc.has_annotation("SENT_START")
        spans = ([(s.start, s.end) for s in doc.sents] if segmented
                 else ([(0, len(doc))] if len(doc) else []))
        attr = "pos_" if self.cfg["tag_attr"] == "pos" else "tag_"
        if len(doc) and not any(getattr(t, attr) for t in doc):
            raise ValueError(
                f"[{self.name}] {_doc_name(doc)} has no {self.cfg['tag_attr'].upper()} on any "
                f"token: the DMV's word classes are tags (tag_attr={self.cfg['tag_attr']!r}); put "
                f"a tagger before {self.name} or tag the docs")
        out = []
        for s, e in spans:
            toks = doc[s:e]
            tags = [getattr(t, attr) or "X" for t in toks]
            is_punct = [(t.pos_ == "PUNCT") if t.pos_ else t.is_punct for t in toks]
            heads = None
            if with_heads:
                heads = [t.head.i - s if t.head.i != t.i else -1 for t in toks]
                if any(h < -1 or h >= e - s for h in heads):
                    continue
            n_words = len(is_punct) - sum(is_punct)
            if n_words > MAX_WORDS:
                where = (f"a {n_words}-word sentence (tokens {s}..{e - 1})" if segmented else
                         f"no sentence boundaries, so its {n_words} words are one sentence")
                raise ValueError(
                    f"[{self.name}] {_doc_name(doc)}: {where}, over the DMV's limit of "
                    f"{MAX_WORDS} words (dmv.chart.MAX_WORDS); segment it into sentences first")
            out.append((s, e, is_punct, make_sentence([t.text for t in toks], tags, is_punct, heads, "")))
        return out

    # -- training ---------------------------------------------------------------------------------

    def fit(self, docs: Iterable[Doc]) -> "DMVParser":
        """Induce the DMV from tagged raw text by Viterbi EM (§3.1 scaffolding, constrained
        training under ``train_constraint``)."""
        sents = [s for doc in docs for _, _, _, s in self._sentences(doc) if len(s)]
        if not sents:
            raise ValueError(f"[{self.name}] no words to train on")
        self.model = induce(sents, self.cfg["train_constraint"], max_iter=self.cfg["max_iter"],
                            patience=self.cfg["patience"],
                            lex_min_count=self.cfg["lex_min_count"]).stage2
        return self

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None) -> None:
        """Fit on the examples' predicted docs (raw tagged text), or with ``supervised`` estimate
        from their reference trees (tags and punctuation from the reference too).

        Unsupervised: ValueError if a predicted doc carries no tags (spaCy does not run earlier
        components over them during ``nlp.initialize``): use a reader that yields tagged
        predicted docs, ``supervised=True``, or tag raw text and call `fit(docs)`."""
        validate_examples(get_examples(), "DMVParser.initialize")
        if self.cfg["supervised"]:
            sents = [s for eg in get_examples() if eg.reference.has_annotation("DEP")
                     for _, _, _, s in self._sentences(eg.reference, with_heads=True) if len(s)]
            if not sents:
                raise ValueError(f"[{self.name}] supervised: no reference trees")
            self.model = supervised(sents)
        else:
            attr = "pos_" if self.cfg["tag_attr"] == "pos" else "tag_"
            docs = [eg.predicted for eg in get_examples()]
            for doc in docs:
                if len(doc) and not any(getattr(t, attr) for t in doc):
                    raise ValueError(
                        f"[{self.name}] initialize: the predicted {_doc_name(doc)} of an example "
                        f"has no {self.cfg['tag_attr'].upper()}: the unsupervised DMV fits on "
                        f"tagged raw text, and spaCy does not run earlier components (a tagger) "
                        f"over the examples during nlp.initialize. Use a reader whose predicted "
                        f"docs are tagged, set supervised=True, or tag raw text and call fit(docs)")
            self.fit(docs)

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Nothing to do: the DMV is trained in batch (`fit` / `initialize`)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        return losses

    # -- prediction -------------------------------------------------------------------------------

    def predict(self, docs: Iterable[Doc]) -> List[List[Tuple[int, List[int]]]]:
        """Per doc, per sentence: (start, token heads sentence-relative, -1 = root)."""
        if self.model is None:
            raise ValueError(f"[{self.name}] not initialized: call fit(docs) or nlp.initialize() first")
        out = []
        for doc in docs:
            parses = []
            for s, _, is_punct, sent in self._sentences(doc):
                heads = self.model.parse(sent, self.cfg["constraint"])[0] if len(sent) else []
                parses.append((s, reattach_punct(heads, is_punct)))
            out.append(parses)
        return out

    def set_annotations(self, docs: Iterable[Doc], parses) -> None:
        for doc, doc_parses in zip(docs, parses):
            if not len(doc):
                continue
            arr = doc.to_array([HEAD, DEP])
            strings = doc.vocab.strings
            for start, heads in doc_parses:
                for i, h in enumerate(heads):
                    tok = doc[start + i]
                    label = "ROOT" if h < 0 else ("punct" if (tok.pos_ == "PUNCT" if tok.pos_ else tok.is_punct) else "dep")
                    arr[start + i, 0] = ((h - i) if h >= 0 else 0) % (1 << 64)
                    arr[start + i, 1] = strings.add(label)
            doc.from_array([HEAD, DEP], arr)

    def __call__(self, doc: Doc) -> Doc:
        self.set_annotations([doc], self.predict([doc]))
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128):
        for docs in util.minibatch(stream, size=batch_size):
            self.set_annotations(docs, self.predict(docs))
            yield from docs

    # -- serialization ----------------------------------------------------------------------------

    def _error(self, where: str, why) -> ValueError:
        if isinstance(why, Exception):
            why = f"{type(why).__name__}: {why}"
        return ValueError(f"[{self.name}] {where}: truncated or foreign data, not a saved DMVParser ({why})")

    def _load(self, msg, where: str) -> "DMVParser":
        if not isinstance(msg, dict) or not isinstance(msg.get("cfg"), dict) or "model" not in msg:
            raise self._error(where, "no cfg/model")
        try:
            cfg = _check_cfg(msg["cfg"])
        except (ValueError, TypeError) as e:
            raise self._error(where, e) from e
        model = None
        if msg["model"] is not None:
            try:
                model = DMV.from_dict(msg["model"])
            except Exception as e:  # noqa: BLE001 - bad tables raise ValueError/TypeError/...
                raise self._error(where, e) from e
        self.cfg = cfg
        self.model = model
        return self

    def _message(self) -> Dict:
        return {"cfg": self.cfg, "model": None if self.model is None else self.model.to_dict()}

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return srsly.msgpack_dumps(self._message())

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "DMVParser":
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except Exception as e:  # noqa: BLE001
            raise self._error("bytes", e) from e
        return self._load(msg, "bytes")

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        with (path / "model").open("wb") as f:
            f.write(self.to_bytes())
        write_checksums(path, ("model",))

    def from_disk(self, path, *, exclude=tuple()) -> "DMVParser":
        path = util.ensure_path(path) / "model"
        if not path.is_file():
            raise self._error(str(path), "file missing")
        verify_checksums(path.parent, self.name)
        try:
            msg = srsly.msgpack_loads(path.read_bytes())
        except Exception as e:  # noqa: BLE001
            raise self._error(str(path), e) from e
        return self._load(msg, str(path))


__all__ = ["DMVParser", "make_dmv_parser"]
