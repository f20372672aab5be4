"""`newline_boundaries`: line or paragraph breaks as sentence boundaries the parser must keep.

Placed before `joint_sbd_parser`, it sets `token.is_sent_start = True` on the first token after a
line break (`mode="line"`) or after an empty line (`mode="paragraph"`); the joint parser keeps
every boundary preset this way and predicts the others. Whitespace tokens themselves never start
a sentence. `mode="ignore"` leaves the Doc alone.

`bullets` (on by default, in either mode): a bulleted list item starts a sentence, a bullet
(`•`, `*`, `▪`, …: `whitespace.BULLETS`) that opens a line and is followed by a space and a word, however
many line breaks come before it (`Agenda\n* Budget review\n* Hiring plan`: the model, which never
saw such marks in its treebanks, ran the items together); the joint parser keeps the bullet with
its item (`whitespace.list_labels`). A hyphen or dash is no bullet here:
hard-wrapped prose puts ` - ` at a line's start too, and the model splits `- item` lines by itself.
"""
from typing import Literal, get_args

import numpy
from spacy.attrs import IS_SPACE, SENT_START
from spacy.language import Language
from spacy.tokens import Doc

from .whitespace import BULLETS

Mode = Literal["ignore", "line", "paragraph"]
MODES = get_args(Mode)


def _breaks(text: str, mode: str) -> bool:
    newlines = text.count("\n")
    return newlines >= 1 if mode == "line" else newlines >= 2


class NewlineBoundaries:
    def __init__(self, mode: Mode = "line", bullets: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(f"newline_boundaries: mode must be one of {', '.join(MODES)}, got {mode!r}")
        if not isinstance(bullets, bool):
            raise ValueError(f"newline_boundaries: bullets must be true or false, got {bullets!r}")
        self.mode = mode
        self.bullets = bullets

    def __call__(self, doc: Doc) -> Doc:
        """Only whitespace tokens are visited (a token's own trailing whitespace, `whitespace_`, is
        one space or nothing in spaCy, never a line break), and the starts are written in one
        `Doc.from_array`: a Token object per word, and spaCy's check of the whole Doc on every
        `token.is_sent_start = True`, cost 0.8 CPU s per 200,000 characters, as much as the tagger."""
        if self.mode == "ignore" or len(doc) == 0:
            return doc
        space = doc.to_array([IS_SPACE]).reshape((len(doc),)).astype(bool)
        words = numpy.flatnonzero(~space)
        starts = []
        n = len(doc)
        for j in numpy.flatnonzero(space).tolist():
            text = doc[j].text
            if _breaks(text, self.mode):
                k = int(numpy.searchsorted(words, j))  # the first word after this whitespace
                if k < len(words) and words[k] > 0:
                    starts.append(int(words[k]))
            elif self.bullets and j + 2 < n and ("\n" in text or "\r" in text) and not space[j + 1] \
                    and not space[j + 2] and doc[j + 1].text in BULLETS and doc[j + 1].whitespace_:
                starts.append(j + 1)  # `\n* Budget review`: the bullet opens an item
        if not starts:
            return doc
        if doc.has_annotation("DEP"):  # spaCy's own error: boundaries of a parsed Doc are fixed
            doc[starts[0]].is_sent_start = True
        column = doc.to_array([SENT_START]).reshape((len(doc), 1))
        column[starts, 0] = 1
        doc.from_array([SENT_START], column)
        return doc


@Language.factory("newline_boundaries", default_config={"mode": "line", "bullets": True})
def make_newline_boundaries(nlp: Language, name: str, mode: Mode, bullets: bool) -> NewlineBoundaries:
    """Line (`line`) or paragraph (`paragraph`) breaks, and bullets opening a line (`bullets`),
    as preset sentence boundaries."""
    return NewlineBoundaries(mode, bullets)
