"""The one place where the root label changes spelling between UD and spaCy.

UD (and every engine of this package) calls the root relation ``root``; spaCy's parser and
`Doc.from_array` write ``ROOT``. Convert at the spaCy boundary with these two functions only.
"""
UD_ROOT = "root"
SPACY_ROOT = "ROOT"


def to_spacy_dep(label: str) -> str:
    """The label to write on a spaCy token (``root`` → ``ROOT``)."""
    return SPACY_ROOT if label == UD_ROOT else label


def from_spacy_dep(label: str) -> str:
    """The label as the engines know it (``ROOT`` → ``root``)."""
    return UD_ROOT if label == SPACY_ROOT else label
