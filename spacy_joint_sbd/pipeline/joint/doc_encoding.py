"""Docs ⇄ the transition engine: the one feature encoding of a document, and parses back onto Docs.

The engine (`spacy_joint_sbd.transition`) knows nothing about spaCy: it reads an (n × k) uint64
array of token attributes and, for training, gold heads / label ids / sentence starts. Here the
attributes are the Doc's own spaCy attribute ids (`Doc.to_array`, e.g. NORM, TAG, SHAPE, PREFIX,
SUFFIX), i.e. what the tokenizer computed and what earlier components PREDICTED (a tagger supplies
TAG); gold annotation comes only from `Example.reference`, at training time. Everything that trains
or runs the joint parser — `spacy train`, the replication project, tests, benchmarks — goes through
these functions, so a model is always trained and applied with the same encoding.
"""
import warnings
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import DEP, HEAD, IDS, IS_SPACE, ORTH, SENT_START, SPACY
from spacy.tokens import Doc
from spacy.training import Example

from ...context.clusters import ContextClusters
from ...corpus.labels import from_spacy_dep, to_spacy_dep
from ...transition import EngineDoc, LabelSet, Parse
from .head_evidence import head_columns
from .prior_scores import prior_column
from .whitespace import SPACE_LABEL, SpacePlan, closing_quote_tags, forbid_closing_starts


def check_attrs(attrs: Sequence[str]) -> List[str]:
    """Upper-cased spaCy attribute names; ValueError for an unknown one."""
    names = [a.upper() for a in attrs]
    unknown = [a for a in names if a not in IDS]
    if not names or unknown:
        raise ValueError(f"unknown token attributes {unknown or list(attrs)}; use spaCy names like NORM, TAG, SHAPE")
    return names


def doc_attrs(doc: Doc, attrs: Sequence[str], context: Optional[ContextClusters] = None,
              prior: bool = False, heads: int = 0) -> numpy.ndarray:
    """(len(doc), len(attrs)) uint64 array of the Doc's attribute ids (the engine's features),
    followed by the `context` cluster columns of its `Doc.tensor` when given, with `prior` the
    binned boundary probabilities an earlier component wrote (`prior_scores.prior_column`) and,
    with `heads` K > 0, the 3·K columns of an encoder's head candidates (`head_evidence`)."""
    ids = [IDS[a] for a in attrs]
    arr = numpy.ascontiguousarray(doc.to_array(ids).reshape((len(doc), len(ids))), dtype=numpy.uint64)
    return _with_extra_columns(doc, arr, context, prior, heads)


def _with_extra_columns(doc: Doc, arr: numpy.ndarray, context: Optional[ContextClusters],
                        prior: bool, heads: int = 0, keep: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """`arr` (the attribute ids) followed by `doc_attrs`' context, prior and head columns (the
    heads numbered as the engine numbers the tokens `keep`)."""
    cols = [arr]
    if context is not None:
        cols.append(context.columns(doc))
    if prior:
        cols.append(prior_column(doc))
    if heads:
        cols.append(head_columns(doc, heads, keep))
    return arr if len(cols) == 1 else numpy.ascontiguousarray(numpy.hstack(cols))


def doc_sent_starts(doc: Doc) -> numpy.ndarray:
    """The Doc's sentence starts as the engine's fixed boundaries (token 0 always starts one)."""
    return numpy.asarray([i == 0 or t.is_sent_start is True for i, t in enumerate(doc)], dtype=bool)


def doc_presets(doc: Doc) -> numpy.ndarray:
    """The boundaries set on the Doc before parsing, as the engine's int8 presets:
    `token.is_sent_start` True → 1 (forced), False → 0 (forbidden), None → -1 (predicted);
    token 0 always starts a sentence (1)."""
    if len(doc) == 0:
        return numpy.zeros((0,), dtype=numpy.int8)
    return _presets_of(doc.to_array([SENT_START]).reshape((len(doc),)))


def _presets_of(raw: numpy.ndarray) -> numpy.ndarray:
    """`doc_presets` from the Doc's SENT_START column as `Doc.to_array` gives it (1, -1, 0 = unset;
    uint64 when read with other columns)."""
    presets = numpy.full(raw.shape, -1, dtype=numpy.int8)
    if raw.any():  # most texts have no boundary set before the parser: nothing to map
        raw = raw.astype(numpy.int64)
        presets[raw == 1] = 1
        presets[raw == -1] = 0
    presets[0] = 1
    return presets


def _no_presets(presets: numpy.ndarray) -> bool:
    return bool((presets[1:] == -1).all())


def space_plan(doc: Doc, presets: Optional[numpy.ndarray] = None,
               space: Optional[numpy.ndarray] = None) -> Optional[SpacePlan]:
    """The Doc's `SpacePlan`, or None if it has no whitespace token. `space`: its IS_SPACE
    column (bool), if read already."""
    if len(doc) == 0:
        return None
    if space is None:
        space = doc.to_array([IS_SPACE]).reshape((len(doc),)).astype(bool)
    if not space.any():
        return None
    return SpacePlan(doc_presets(doc) if presets is None else presets, space)


_MARK_IDS = [SENT_START, ORTH, SPACY, IS_SPACE]
"""What `planned_engine_doc` reads beside the features: presets, then `whitespace.mark_columns`."""


def engine_input(doc: Doc, attrs: Sequence[str], document_level: bool = True,
                 context: Optional[ContextClusters] = None, prior: bool = False, heads: int = 0) -> EngineDoc:
    """The `EngineDoc` the engine parses for `doc`: the features and, inside given sentences, the Doc's boundaries.

    Whole-document mode: the boundaries set before (`doc_presets`) are presets (None when there
    are none), closing marks never start a sentence unless forced and closing quotes never read
    as opening ones (`forbid_closing_starts`, `closing_quote_tags`), and whitespace tokens are left
    out (`SpacePlan`; `planned_engine_doc` gives the plan that puts them back)."""
    return planned_engine_doc(doc, attrs, document_level, context, prior, heads)[0]


def engine_doc(*args, **kwargs) -> EngineDoc:
    """`engine_input`'s old name (deprecated: `transition.engine_doc` is the module of `EngineDoc`)."""
    warnings.warn("doc_encoding.engine_doc is deprecated and goes in the next version: use engine_input",
                  DeprecationWarning, stacklevel=2)
    return engine_input(*args, **kwargs)


def planned_engine_doc(doc: Doc, attrs: Sequence[str], document_level: bool = True,
                       context: Optional[ContextClusters] = None,
                       prior: bool = False, heads: int = 0) -> Tuple[EngineDoc, Optional[SpacePlan]]:
    """`engine_input` and the Doc's `SpacePlan` (None without whitespace tokens or outside
    whole-document mode), whose `expand` turns the engine's parse into a parse of every token.
    The Doc's columns are read in one `Doc.to_array` (a short text paid for a dozen separate
    reads)."""
    if not document_level:
        return EngineDoc(attrs=doc_attrs(doc, attrs, context, prior, heads), sent_starts=doc_sent_starts(doc)), None
    n, k = len(doc), len(attrs)
    if n == 0:
        return EngineDoc(attrs=doc_attrs(doc, attrs, context, prior, heads), presets=None), None
    table = doc.to_array([IDS[a] for a in attrs] + _MARK_IDS).reshape((n, k + len(_MARK_IDS)))
    marks = table[:, k + 1:]  # whitespace.mark_columns: ORTH, SPACY, IS_SPACE
    presets = forbid_closing_starts(doc, _presets_of(table[:, k]), marks)
    plan = space_plan(doc, presets, marks[:, 2].astype(bool))
    attrs_arr = _with_extra_columns(doc, numpy.ascontiguousarray(table[:, :k], dtype=numpy.uint64), context, prior,
                                    heads, plan.keep if plan is not None else None)
    attrs_arr = closing_quote_tags(doc, attrs_arr, attrs, marks)
    if plan is not None:
        attrs_arr = numpy.ascontiguousarray(attrs_arr[plan.keep])
        presets = plan.word_presets
    return EngineDoc(attrs=attrs_arr, presets=None if _no_presets(presets) else presets), plan


class UnusableExample(ValueError):
    """A training Example the engine cannot learn from (no parse, not a forest of sentence trees)."""


def tree_problem(heads: Sequence[int], starts: Sequence[bool]) -> Optional[str]:
    """Why `heads` (absolute, -1 = root) is not one tree per sentence, or None if it is."""
    n = len(heads)
    bounds = [i for i in range(n) if i == 0 or starts[i]] + [n]
    for s, e in zip(bounds, bounds[1:]):
        roots = [i for i in range(s, e) if heads[i] == -1]
        if len(roots) != 1:
            return f"sentence at token {s} has {len(roots)} roots"
        for i in range(s, e):
            j, steps = i, 0
            while heads[j] != -1:
                j = heads[j]
                steps += 1
                if not s <= j < e:
                    return f"token {i} has a head outside its sentence"
                if steps > e - s:
                    return f"cycle through token {i}"
    return None


def gold_engine_doc(eg: Example, labels: LabelSet, attrs: Sequence[str],
                    document_level: bool = True, presets: bool = True,
                    context: Optional[ContextClusters] = None, prior: bool = False,
                    heads: int = 0) -> Optional[EngineDoc]:
    """Features from `eg.predicted`, gold heads / labels / boundaries from `eg.reference`
    (projected through spaCy's alignment when the tokenizations differ; `prior`: the predicted
    doc's boundary probabilities as a feature column; `heads`: its head candidates' columns). None for an empty
    document; `UnusableExample` when the reference has no parse, a gold head has no counterpart in
    the predicted tokens, or the gold tree is not one tree per sentence.

    Whole-document mode: the boundaries set on `eg.predicted` before parsing (e.g. by a component
    that splits at newlines) are the doc's presets, so that training sees what prediction will. A
    preset that contradicts the gold boundaries (forced where the gold has none, forbidden where
    it has one) is dropped (set to -1, predicted) and counted in `dropped_presets`; the document
    itself is kept. `presets=False` ignores them (for Examples whose predicted doc is the gold). Whitespace tokens are not left out here (treebank documents have none)."""
    n = len(eg.predicted)
    if n == 0:
        return None
    ref = eg.reference
    if not ref.has_annotation("DEP"):
        raise UnusableExample("the reference has no dependency parse")
    doc = EngineDoc(attrs=doc_attrs(eg.predicted, attrs, context, prior, heads),
                    sent_starts=None if document_level else doc_sent_starts(eg.predicted))
    if len(ref) == n and all(a.text == b.text for a, b in zip(eg.predicted, ref)):
        heads = [t.head.i for t in ref]
        deps = [t.dep_ for t in ref]
        starts = [i == 0 or bool(t.is_sent_start) for i, t in enumerate(ref)]
    else:
        aligned_heads, aligned_deps = eg.get_aligned_parse(projectivize=False)
        if any(h is None for h in aligned_heads):
            raise UnusableExample("a gold head has no counterpart in the predicted tokens")
        heads, deps = list(aligned_heads), list(aligned_deps)
        starts = [i == 0 or bool(s) for i, s in enumerate(eg.get_aligned_sent_starts())]
    heads = [-1 if h == i else h for i, h in enumerate(heads)]
    problem = tree_problem(heads, starts)
    if problem is not None:
        raise UnusableExample(f"gold tree: {problem}")
    doc.heads = numpy.asarray(heads, dtype=numpy.int32)
    doc.labels = numpy.asarray(labels.encode_all([from_spacy_dep(d) for d in deps]), dtype=numpy.int32)
    doc.sent_starts = numpy.asarray(starts, dtype=bool)
    if document_level and presets:
        presets = doc_presets(eg.predicted)
        wrong = ((presets == 1) & ~doc.sent_starts) | ((presets == 0) & doc.sent_starts)
        presets[wrong] = -1
        doc.dropped_presets = int(wrong.sum())
        doc.presets = None if _no_presets(presets) else presets
    return doc


def label_hashes(strings, labels: LabelSet) -> numpy.ndarray:
    """(len(labels) + 1,) uint64: the StringStore ids of the labels' spaCy names, then of
    `SPACE_LABEL` last, so that label id -1 indexes it; the names are added to `strings`."""
    names = [to_spacy_dep(lab) for lab in labels.labels] + [SPACE_LABEL]
    return numpy.asarray([strings.add(name) for name in names], dtype=numpy.uint64)


def set_parse(doc: Doc, parse: Parse, labels: LabelSet, hashes: Optional[numpy.ndarray] = None) -> None:
    """Write a parse (heads, labels, sentence starts) onto the Doc in one `Doc.from_array`;
    label id -1 stands for `SPACE_LABEL` (whitespace tokens, `SpacePlan.expand`). `hashes`:
    `label_hashes(doc.vocab.strings, labels)`, made once for a batch of Docs sharing the vocab."""
    n = len(doc)
    if n == 0:
        return
    if hashes is None:
        hashes = label_hashes(doc.vocab.strings, labels)
    idx = numpy.arange(n, dtype=numpy.int64)
    heads = numpy.where(parse.heads < 0, idx, parse.heads.astype(numpy.int64))
    arr = numpy.zeros((n, 3), dtype=numpy.uint64)
    arr[:, 0] = (heads - idx).astype(numpy.uint64)  # HEAD is relative, two's complement
    arr[:, 1] = hashes[numpy.asarray(parse.labels, dtype=numpy.int64)]
    arr[:, 2] = numpy.where(parse.sent_starts, 1, -1).astype(numpy.int64).astype(numpy.uint64)
    arr[0, 2] = 1
    doc.from_array([HEAD, DEP, SENT_START], arr)


def encode_records(records: Sequence, labels: LabelSet, attrs: Sequence[str],
                   document_level: bool = True, lang: str = "en") -> List[EngineDoc]:
    """Gold EngineDocs of `corpus.DocRecord`s, encoded exactly as the component encodes Docs in a
    `spacy.blank(lang)` pipeline, for driving the engine without a pipeline (engine tests,
    benchmarks). TAG is the records' XPOS: pass records whose tags were predicted
    (`corpus.tagging.predict_tags`) for honest figures."""
    import spacy

    from ...corpus.docs import doc_name, record_to_doc

    vocab = spacy.blank(lang).vocab
    out = []
    for rec in records:
        doc = record_to_doc(vocab, rec)
        try:
            engine = gold_engine_doc(Example(doc, doc), labels, attrs, document_level, presets=False)
        except UnusableExample as e:
            raise UnusableExample(f"{doc_name(doc)}: {e}") from None
        if engine is None:
            engine = EngineDoc(attrs=numpy.zeros((0, len(attrs)), dtype=numpy.uint64))
        engine.doc_id = rec.doc_id
        out.append(engine)
    return out
