"""Treebank documents as the raw text users bring: surface tokens joined by their SpaceAfter, a
blank line at each `# newpar`, one text per `# newdoc`, with the character offsets of the gold
sentence starts. What operating points are chosen on (`cli.tune_bias.sweep_raw_scores`) and
what `segment` is measured on (projects/accuracy `raw_documents`, projects/speech `derive_check`):
text as a user's file holds it, tokenized by the pipeline, not the treebank's tokens.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Set, Tuple, Union

from .conllu import ConllUError


@dataclass
class RawDoc:
    doc_id: str
    text: str = ""
    gold: List[int] = field(default_factory=list)
    """Character offsets of the gold sentence starts (the first one included)."""


def raw_documents(path: Union[str, Path]) -> Iterator[RawDoc]:
    """The documents of a CoNLL-U file as raw text with gold sentence-start offsets; a malformed
    word line is a `ConllUError` naming the file and the line."""
    path = Path(path)
    doc = None
    parts: List[str] = []
    length = 0  # characters in `parts`
    newpar = False
    in_sentence = False
    skip_until = 0
    pending_space = ""
    with path.open(encoding="utf8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("# newdoc"):
                if doc is not None:
                    doc.text = "".join(parts)
                    yield doc
                m = re.match(r"# newdoc id = (.*)", line)
                doc = RawDoc(m.group(1).strip() if m else f"doc{len(parts)}")
                parts, length, pending_space = [], 0, ""
                continue
            if line == "# newpar" or line.startswith("# newpar id"):
                newpar = True
                continue
            if line.startswith("#"):
                continue
            if not line:
                in_sentence = False
                continue
            cols = line.split("\t")
            if len(cols) != 10:
                raise ConllUError(f"{path}:{lineno}: {len(cols)} tab-separated columns, CoNLL-U has 10")
            if "." in cols[0]:
                continue
            try:
                if "-" in cols[0]:
                    skip_until = int(cols[0].split("-")[1])
                elif int(cols[0]) <= skip_until:
                    continue
                else:
                    skip_until = 0
            except (ValueError, IndexError):
                raise ConllUError(f"{path}:{lineno}: bad word id {cols[0]!r}") from None
            if doc is None:
                doc = RawDoc(path.stem)
            if not in_sentence:
                in_sentence = True
                if parts:
                    pending_space = "\n\n" if newpar else pending_space
                newpar = False
                doc.gold.append(length + len(pending_space))
            parts += (pending_space, cols[1])
            length += len(pending_space) + len(cols[1])
            pending_space = "" if "SpaceAfter=No" in cols[9].split("|") else " "
    if doc is not None:
        doc.text = "".join(parts)
        yield doc


def span_starts(spans: Iterable[Tuple[int, int]], text: str) -> Set[int]:
    """The first non-space character of each (start, end) character span of `text` (a predicted
    sentence's start, as the gold offsets count it); spans of whitespace only give none."""
    out = set()
    for a, b in spans:
        while a < b and text[a].isspace():
            a += 1
        if a < b:
            out.add(a)
    return out
