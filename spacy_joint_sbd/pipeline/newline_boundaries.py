"""`newline_boundaries`: line or paragraph breaks as sentence boundaries the parser must keep.

Placed before `joint_sbd_parser`, it sets `token.is_sent_start = True` on the first token after a
line break (`mode="line"`) or after an empty line (`mode="paragraph"`); the joint parser keeps
every boundary preset this way and predicts the others. Whitespace tokens themselves never start
a sentence. `mode="ignore"` leaves the Doc alone.

`list_items` (on by default, in either mode): an item of a list starts a sentence (the items of
`whitespace.list_items`: a label or bullet that opens a line, then a space and a word). A bullet
(`•`, `*`, `▪`, …: `whitespace.BULLETS`) always: `Agenda\n* Budget review\n* Hiring plan` ran
together, as the treebanks hold no bullets. A label (`1.`, `b)`, `iv.`) when the line before or
after opens with an item too, a list of two or more: `a. First item.\nb. Second item.` ran
together (spaCy keeps `b.` as one token, as it keeps abbreviations), while one line of
hard-wrapped prose that happens to open with `3. That` stays the parser's to decide. A hyphen or
dash is no bullet: wrapped prose puts ` - ` at a line's start too, and the model splits `- item`
lines by itself. The joint parser keeps each label with its item (`whitespace.list_labels`).
"""
from typing import List, Literal, get_args

import numpy
from spacy.attrs import IS_SPACE, SENT_START
from spacy.language import Language
from spacy.tokens import Doc

from ..boundary.model import line_breaks
from .joint.whitespace import BULLETS, line_starts, mark_columns, list_items

Mode = Literal["ignore", "line", "paragraph"]
MODES = get_args(Mode)


def _breaks(text: str, mode: str) -> bool:
    newlines = line_breaks(text)
    return newlines >= 1 if mode == "line" else newlines >= 2


class NewlineBoundaries:
    """Presets sentence starts after line or paragraph breaks and at list items (module doc);
    `mode` and `list_items` may be changed between calls."""

    def __init__(self, mode: Mode = "line", list_items: bool = True) -> None:
        if mode not in MODES:
            raise ValueError(f"newline_boundaries: mode must be one of {', '.join(MODES)}, got {mode!r}")
        if not isinstance(list_items, bool):
            raise ValueError(f"newline_boundaries: list_items must be true or false, got {list_items!r}")
        self.mode = mode
        self.list_items = list_items

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
        for j in numpy.flatnonzero(space).tolist():
            if _breaks(doc[j].text, self.mode):
                k = int(numpy.searchsorted(words, j))  # the first word after this whitespace
                if k < len(words) and words[k] > 0:
                    starts.append(int(words[k]))
        if self.list_items and space.any():
            starts.extend(_item_starts(doc))
        if not starts:
            return doc
        starts = sorted(set(starts))
        if doc.has_annotation("DEP"):  # spaCy's own error: boundaries of a parsed Doc are fixed
            doc[starts[0]].is_sent_start = True
        column = doc.to_array([SENT_START]).reshape((len(doc), 1))
        column[starts, 0] = 1
        doc.from_array([SENT_START], column)
        return doc


def _item_starts(doc: Doc) -> List[int]:
    """The labels of `doc`'s list items (`whitespace.list_items`) that start a sentence: every
    bullet, and a label whose line's neighbour (the line start before or after it) is an item too;
    not the document's first token (a start already)."""
    arr = mark_columns(doc)
    items = list_items(doc, arr)
    if not items:
        return []
    lines = line_starts(doc, arr).tolist()
    line_of = {start: k for k, start in enumerate(lines)}
    labelled = {label for label, _, _ in items}
    out = []
    for label, _, _ in items:
        k = line_of[label]
        listed = (k > 0 and lines[k - 1] in labelled) or (k + 1 < len(lines) and lines[k + 1] in labelled)
        if k > 0 and (doc[label].text in BULLETS or listed):
            out.append(label)
    return out


@Language.factory("newline_boundaries", default_config={"mode": "line", "list_items": True})
def make_newline_boundaries(nlp: Language, name: str, mode: Mode, list_items: bool) -> NewlineBoundaries:
    """Line (`line`) or paragraph (`paragraph`) breaks, and the items of a list (`list_items`),
    as preset sentence boundaries."""
    return NewlineBoundaries(mode, list_items)
