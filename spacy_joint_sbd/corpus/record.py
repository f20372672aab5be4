"""`DocRecord`: one whole document as plain Python lists, independent of spaCy.

The transition and graph stacks consume records (they know nothing about spaCy); the corpus
readers produce them from CoNLL-U, and `corpus.docs` converts them to and from `spacy.tokens.Doc`.
"""
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

ROOT = -1
"""Head value of a sentence root: heads are absolute token indices within the document."""


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
