"""`has_final_punct`: whether a document marks its sentence ends with punctuation at all, the
regime that picks the joint parser's SB bias and its calibration's coefficients (both read it)."""
from typing import Dict

from spacy.attrs import IS_PUNCT, ORTH
from spacy.pipeline import Sentencizer
from spacy.tokens import Doc

_FINAL_PUNCT = frozenset(Sentencizer.default_punct_chars)


def has_final_punct(doc: Doc) -> bool:
    """Whether some token of `doc` consists only of sentence-final punctuation marks. Reads only
    the distinct punctuation tokens (none at all: False at once, the usual answer on speech),
    never `doc.text` or a Token object per word; each mark's answer is remembered by its ORTH."""
    if not len(doc):
        return False
    arr = doc.to_array([IS_PUNCT, ORTH])
    orths = arr[arr[:, 0] == 1, 1]
    if not orths.size:
        return False
    strings = doc.vocab.strings
    for orth in set(orths.tolist()):
        final = _FINAL_ORTHS.get(orth)
        if final is None:
            final = set(strings[orth]) <= _FINAL_PUNCT
            if len(_FINAL_ORTHS) < _FINAL_ORTHS_MAX:
                _FINAL_ORTHS[orth] = final
        if final:
            return True
    return False


_FINAL_ORTHS: Dict[int, bool] = {}
"""ORTH (the hash of a token's text, the same in every vocab) → whether the text is made of
sentence-final marks only; grows with the distinct punctuation tokens seen, up to
`_FINAL_ORTHS_MAX` (then the rest are looked up each time)."""
_FINAL_ORTHS_MAX = 100_000
