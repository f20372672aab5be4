"""`DocRecord`: one whole document as plain Python lists, independent of spaCy.

The transition and graph stacks consume records (they know nothing about spaCy); the corpus
readers produce them from CoNLL-U, and `corpus.docs` converts them to and from `spacy.tokens.Doc`.
"""
from dataclasses import dataclass, field
from typing import Iterator, List, NamedTuple, Optional, Tuple

ROOT = -1
"""Head value of a sentence root: heads are absolute token indices within the document."""


class SentenceSlice(NamedTuple):
    """One gold sentence cut out of a document; heads are sentence-relative (-1 = root)."""

    doc_id: str
    start: int
    words: List[str]
    xpos: List[str]
    upos: List[str]
    heads: List[int]
    deps: List[str]


@dataclass
class DocRecord:
    doc_id: str
    words: List[str]
    spaces: List[bool]
    lemmas: List[str]
    upos: List[str]
    xpos: List[str]
    feats: List[str]
    heads: List[int]
    deps: List[str]
    sent_starts: List[bool]
    source: str = ""
    """Where the document came from (file path), for error messages."""
    sent_lines: List[int] = field(default_factory=list)
    """1-based line number in `source` at which each sentence starts (for error messages)."""
    sent_ids: List[str] = field(default_factory=list)
    texts: List[Optional[str]] = field(default_factory=list)
    """The `# text` of each sentence, when the file had one."""

    def __len__(self) -> int:
        return len(self.words)

    def sentences(self) -> List[Tuple[int, int]]:
        """The sentences as [start, end) token ranges."""
        starts = [i for i, s in enumerate(self.sent_starts) if s or i == 0]
        ends = starts[1:] + [len(self.words)]
        return list(zip(starts, ends))

    def iter_sentence_slices(self) -> Iterator[SentenceSlice]:
        """Each sentence with sentence-relative heads, for parsers that work inside given
        sentences (the graph stack). A sentence with a head outside itself cannot be parsed inside
        its boundaries and is skipped."""
        for start, end in self.sentences():
            heads = [h - start if h >= 0 else ROOT for h in self.heads[start:end]]
            if any(h >= end - start or h < ROOT for h in heads):
                continue
            yield SentenceSlice(self.doc_id, start, self.words[start:end], self.xpos[start:end],
                                self.upos[start:end], heads, self.deps[start:end])
