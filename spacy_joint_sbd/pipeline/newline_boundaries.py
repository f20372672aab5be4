"""`newline_boundaries`: line or paragraph breaks as sentence boundaries the parser must keep.

Placed before `joint_sbd_parser`, it sets `token.is_sent_start = True` on the first token after a
line break (`mode="line"`) or after an empty line (`mode="paragraph"`); the joint parser keeps
every boundary preset this way and predicts the others. Whitespace tokens themselves never start
a sentence. `mode="ignore"` leaves the Doc alone.
"""
from spacy.language import Language
from spacy.tokens import Doc

MODES = ("ignore", "line", "paragraph")


def _breaks(text: str, mode: str) -> bool:
    newlines = text.count("\n")
    return newlines >= 1 if mode == "line" else newlines >= 2


class NewlineBoundaries:
    def __init__(self, mode: str = "line") -> None:
        if mode not in MODES:
            raise ValueError(f"newline_boundaries: mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.mode = mode

    def __call__(self, doc: Doc) -> Doc:
        if self.mode == "ignore":
            return doc
        pending = False
        for token in doc:
            # a line break is a whitespace token, or the whitespace after a token
            if token.is_space:
                pending = pending or _breaks(token.text, self.mode)
                continue
            if pending and token.i > 0:
                token.is_sent_start = True
            pending = _breaks(token.whitespace_, self.mode)
        return doc


@Language.factory("newline_boundaries", default_config={"mode": "line"})
def make_newline_boundaries(nlp: Language, name: str, mode: str) -> NewlineBoundaries:
    """Line (`line`) or paragraph (`paragraph`) breaks as preset sentence boundaries."""
    return NewlineBoundaries(mode)
