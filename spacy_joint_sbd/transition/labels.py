"""The dependency label set of a transition model, built from training records.

Label ids index the LEFTARC / RIGHTARC classes. An unknown label (a test treebank's label never
seen in training) is mapped to a fallback id instead of failing.
"""
from typing import Iterable, List, Sequence

FALLBACK_LABELS = ("dep", "root", "ROOT")


class LabelSet:
    def __init__(self, labels: Iterable[str]):
        self.labels: List[str] = sorted(set(labels))
        if not self.labels:
            self.labels = ["dep"]
        self._ids = {label: i for i, label in enumerate(self.labels)}
        self.fallback = next((self._ids[l] for l in FALLBACK_LABELS if l in self._ids), 0)

    @classmethod
    def from_records(cls, records: Iterable) -> "LabelSet":
        return cls(label for rec in records for label in rec.deps)

    def __len__(self) -> int:
        return len(self.labels)

    def __contains__(self, label: str) -> bool:
        return label in self._ids

    def encode(self, label: str) -> int:
        """The id of `label`; unknown labels get the fallback id (never raises)."""
        return self._ids.get(label, self.fallback)

    def encode_all(self, labels: Sequence[str]) -> List[int]:
        return [self._ids.get(label, self.fallback) for label in labels]

    def decode(self, label_id: int) -> str:
        return self.labels[label_id] if 0 <= label_id < len(self.labels) else self.labels[self.fallback]

    def to_list(self) -> List[str]:
        return list(self.labels)
