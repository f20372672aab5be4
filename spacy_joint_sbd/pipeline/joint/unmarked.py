"""Edited text stays whole: which words would start a sentence that no mark announces.

In edited prose a sentence ends with `.`, `!`, `?`, `…` (or another of spaCy's
`Sentencizer.default_punct_chars`), perhaps followed by a closing quote or bracket, or at a line
break (a heading, a list item, a turn). A boundary anywhere else (`wrote in a blog post | Monday`,
`Bottom line: | If we…`, `approached by – | I want to say`) needs syntax strong enough to
overrule that habit. `unmarked_words` finds those places; the joint parser adds its
`sb_bias_unmarked` (< 0: lazier) to SB's score there, in documents of the punctuated regime only
(`has_final_punct`): unpunctuated speech has no marks to miss.

Web text is different: e-mail sign-offs (`Best regards, | Debra`), URLs and list lines end
sentences without a mark all the time, so the bias is a setting for edited text, off (0) by
default: EWT dev, the set the default pipeline's biases are chosen on, scores best at 0.
"""
from typing import Dict, Optional

import numpy
from spacy.attrs import IS_PUNCT, IS_SPACE, ORTH
from spacy.tokens import Doc

from ...boundary.model import MARK_CLOSER, MARK_FINAL, mark_class

WORD, MARK, SKIP = 0, 1, 2
"""Token classes: a word (or a mark that cannot end a sentence: `,`, `:`, `–`), what may end a
sentence (a sentence-final mark as the boundary prior knows them, `boundary.model.mark_class`, or
whitespace holding a line break), and what is passed over (closing quotes and brackets, whitespace
without a line break)."""

_CLASSES: Dict[int, int] = {}
_CLASSES_MAX = 100_000
"""Each (ORTH, IS_SPACE)'s class, remembered (bounded: a stream of novel words must not grow it forever)."""


def _token_class(text: str, space: bool, punct: bool) -> int:
    if space:
        return MARK if ("\n" in text or "\r" in text) else SKIP
    mark = mark_class(text, punct)
    return MARK if mark == MARK_FINAL else SKIP if mark == MARK_CLOSER else WORD


def unmarked_words(doc: Doc) -> numpy.ndarray:
    """bool per token: a token (not whitespace, not the first) whose nearest token before it,
    passing over closing quotes and brackets and spaces without a line break, is a word or a mark
    that cannot end a sentence: neither a sentence-final mark nor whitespace holding a line break."""
    n = len(doc)
    if n == 0:
        return numpy.zeros((0,), dtype=bool)
    arr = doc.to_array([ORTH, IS_SPACE, IS_PUNCT]).reshape((n, 3))
    strings = doc.vocab.strings
    cls = numpy.empty((n,), dtype=numpy.int8)
    for i, (orth, space, punct) in enumerate(arr.tolist()):
        key = orth * 2 + space
        c = _CLASSES.get(key)
        if c is None:
            c = _token_class(strings[orth], bool(space), bool(punct))
            if len(_CLASSES) < _CLASSES_MAX:
                _CLASSES[key] = c
        cls[i] = c
    idx = numpy.arange(n)
    last = numpy.maximum.accumulate(numpy.where(cls != SKIP, idx, -1))  # the last token not passed over, up to i
    before = numpy.empty((n,), dtype=numpy.int64)
    before[0] = -1
    before[1:] = last[:-1]
    return (before >= 0) & (cls[numpy.maximum(before, 0)] == WORD) & (arr[:, 1] == 0)


def unmarked_sb_scores(doc: Doc, bias: float, scores: Optional[numpy.ndarray] = None) -> Optional[numpy.ndarray]:
    """float32 SB scores of the Doc's non-space tokens (the engine's tokens, as
    `prior_scores.prior_sb_scores`): `scores` (None = zeros) plus `bias` at `unmarked_words`."""
    if not bias or len(doc) == 0:
        return scores
    space = doc.to_array([IS_SPACE]).reshape((len(doc),)).astype(bool)
    add = bias * unmarked_words(doc)[~space]
    out = add if scores is None else numpy.asarray(scores, dtype=numpy.float64) + add
    return numpy.ascontiguousarray(out, dtype=numpy.float32)
