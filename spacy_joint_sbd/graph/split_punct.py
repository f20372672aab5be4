"""Split punctuation, fragments, sub-roots and well-formedness (Li, Che & Liu, §II.A).

Not to be confused with `punct_fragments` (Spitkovsky et al. 2011: the spans between *any*
punctuation, used by the decoding constraints). Here a sentence is cut at *split punctuation*
only, and the split punctuation tokens belong to no fragment:

- Split punctuation: a token made only of commas, colons, semicolons, periods, question and
  exclamation marks, ASCII or full-width (，：；。？！．); the ideographic comma 、 optionally.
  ``...`` and ``?!`` qualify, ``:)`` and ``e.g.`` do not.
- Fragment: a maximal non-empty run of tokens between split punctuation.
- Sub-root of a fragment: a token whose head is outside the fragment or the root (type 1), or
  whose head is inside but which has a descendant outside the fragment (type 2). Split
  punctuation counts as outside, so a token heading a comma is a sub-root.
- Well-formed fragment (WF): exactly one sub-root; ill-formed (IF): more.

Two consequences the two-stage parser relies on (tested on every EWT dev sentence): the
ancestors of a sub-root inside its fragment are sub-roots, so the gold heads of the sub-roots and
split punctuation stay within that set (the INTER structure, Figure 2-(e)); and cutting the
sub-roots' arcs leaves each fragment a forest rooted at its sub-roots (the FRG structure,
Figure 2-(b), (d)).

Heads are sentence-relative token indices, -1 for the root.
"""
from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from .punct_attach import cycle_through

ASCII_SPLIT = ",:;.?!"
FULLWIDTH_SPLIT = "，：；。？！．"
IDEOGRAPHIC_COMMA = "、"


def split_chars(ideographic_comma: bool = False, extra: str = "") -> FrozenSet[str]:
    """The characters split punctuation tokens are made of."""
    chars = ASCII_SPLIT + FULLWIDTH_SPLIT + (IDEOGRAPHIC_COMMA if ideographic_comma else "") + extra
    return frozenset(chars)


DEFAULT_SPLIT = split_chars()


def is_split_punct(word: str, chars: FrozenSet[str] = DEFAULT_SPLIT) -> bool:
    """Whether a token is split punctuation: non-empty and made only of ``chars``."""
    return bool(word) and all(c in chars for c in word)


def segment(words: Sequence[str], chars: FrozenSet[str] = DEFAULT_SPLIT) -> List[Tuple[int, int]]:
    """The fragments of a sentence as ``[start, end)`` ranges, in order (no gold needed)."""
    out = []
    start = None
    for i, w in enumerate(words):
        if is_split_punct(w, chars):
            if start is not None:
                out.append((start, i))
                start = None
        elif start is None:
            start = i
    if start is not None:
        out.append((start, len(words)))
    return out


def split_positions(words: Sequence[str], chars: FrozenSet[str] = DEFAULT_SPLIT) -> List[int]:
    return [i for i, w in enumerate(words) if is_split_punct(w, chars)]


@dataclass(frozen=True)
class SplitFragment:
    """One fragment of a gold tree: its range and sub-roots (sentence-relative indices)."""

    start: int
    end: int
    sub_roots: Tuple[int, ...]
    """All sub-roots, in order."""
    type2: Tuple[int, ...]
    """The sub-roots of type 2 (head inside the fragment, a descendant outside)."""

    @property
    def well_formed(self) -> bool:
        return len(self.sub_roots) == 1

    @property
    def type1(self) -> Tuple[int, ...]:
        return tuple(r for r in self.sub_roots if r not in self.type2)

    def __len__(self) -> int:
        return self.end - self.start


def _owner(n: int, frags: Sequence[Tuple[int, int]]) -> List[int]:
    """Fragment index of each token, -1 for split punctuation."""
    owner = [-1] * n
    for k, (s, e) in enumerate(frags):
        for i in range(s, e):
            owner[i] = k
    return owner


def sub_root_types(heads: Sequence[int], frags: Sequence[Tuple[int, int]]) -> Dict[int, int]:
    """``{token: 1 or 2}`` for every sub-root of every fragment.

    heads (Sequence[int]): A tree (sentence-relative, -1 = root).
    frags (Sequence[Tuple[int, int]]): From `segment`.
    """
    n = len(heads)
    owner = _owner(n, frags)
    out: Dict[int, int] = {}
    for d in range(n):
        if owner[d] >= 0 and (heads[d] < 0 or owner[heads[d]] != owner[d]):
            out[d] = 1
    for x in range(n):
        # every ancestor of x in another fragment than x's has a descendant outside its fragment
        a, steps = heads[x], 0
        while a >= 0 and steps <= n:
            if owner[a] >= 0 and owner[a] != owner[x] and a not in out:
                out[a] = 2
            a, steps = heads[a], steps + 1
    return out


def analyse(words: Sequence[str], heads: Sequence[int],
            chars: FrozenSet[str] = DEFAULT_SPLIT) -> List[SplitFragment]:
    """The fragments of a gold tree with their sub-roots."""
    frags = segment(words, chars)
    types = sub_root_types(heads, frags)
    out = []
    for s, e in frags:
        roots = tuple(i for i in range(s, e) if i in types)
        out.append(SplitFragment(s, e, roots, tuple(i for i in roots if types[i] == 2)))
    return out


def frg_structure(heads: Sequence[int], frag: SplitFragment) -> List[int]:
    """Fragment-relative heads of the FRG-parser's training structure: sub-roots on the root."""
    s = frag.start
    roots = set(frag.sub_roots)
    return [-1 if i in roots else heads[i] - s for i in range(frag.start, frag.end)]


def inter_nodes(words: Sequence[str], sub_roots: Iterable[int],
                chars: FrozenSet[str] = DEFAULT_SPLIT) -> List[int]:
    """The pseudo-sentence of the second stage: sub-roots and split punctuation, in order."""
    return sorted(set(sub_roots) | set(split_positions(words, chars)))


def induced_heads(heads: Sequence[int], nodes: Sequence[int]) -> Optional[List[int]]:
    """Heads of the tree restricted to ``nodes`` (pseudo-sentence indices, -1 = root), or None
    when a node's head is outside ``nodes`` (the set is not closed under heads)."""
    index = {t: k for k, t in enumerate(nodes)}
    out = []
    for t in nodes:
        h = heads[t]
        if h < 0:
            out.append(-1)
        elif h in index:
            out.append(index[h])
        else:
            return None
    return out


def is_tree(heads: Sequence[int]) -> bool:
    """Exactly one root, heads in range, no cycle."""
    n = len(heads)
    if sum(h == -1 for h in heads) != 1 or any(h < -1 or h >= n or h == i for i, h in enumerate(heads)):
        return False
    return cycle_through(heads) is None


# -- Table I ------------------------------------------------------------------------------------

TABLE1_COLUMNS = ("sentences", "fragments", "wf", "sub_roots", "sub_roots_type2")


def table1_stats(records: Iterable, chars: FrozenSet[str] = DEFAULT_SPLIT) -> Dict[str, float]:
    """Table I of the paper for DocRecords: sentences, fragments, WF, sub-roots, type-2 sub-roots,
    plus tokens, split punctuation, the share of WF fragments and of type-2 sub-roots.
    Sentences whose heads leave the sentence are skipped (counted in ``skipped``)."""
    c = {k: 0 for k in TABLE1_COLUMNS}
    c.update(tokens=0, split_punct=0, skipped=0)
    for rec in records:
        slices = list(rec.iter_sentence_slices())
        c["skipped"] += len(rec.sentences()) - len(slices)
        for sent in slices:
            words, heads = sent.words, sent.heads
            frags = analyse(words, heads, chars)
            c["sentences"] += 1
            c["tokens"] += len(words)
            c["split_punct"] += len(split_positions(words, chars))
            c["fragments"] += len(frags)
            c["wf"] += sum(f.well_formed for f in frags)
            c["sub_roots"] += sum(len(f.sub_roots) for f in frags)
            c["sub_roots_type2"] += sum(len(f.type2) for f in frags)
    out: Dict[str, float] = dict(c)
    out["fragments_per_sentence"] = c["fragments"] / max(c["sentences"], 1)
    out["wf_share"] = c["wf"] / max(c["fragments"], 1)
    out["type2_share"] = c["sub_roots_type2"] / max(c["sub_roots"], 1)
    return out


def format_table1(stats: Dict[str, Dict[str, float]]) -> str:
    """Markdown Table I; ``stats`` maps a data set name to `table1_stats` (or is one such dict)."""
    if "sentences" in stats:
        stats = {"data": stats}  # type: ignore[dict-item]
    lines = ["| Data set | Sent | Frag | WF | Sub-root | Sub-root#2 | Frag/sent | WF % | #2 % |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, s in stats.items():
        lines.append(
            f"| {name} | {s['sentences']:,} | {s['fragments']:,} | {s['wf']:,} | {s['sub_roots']:,} "
            f"| {s['sub_roots_type2']:,} | {s['fragments_per_sentence']:.2f} | {100 * s['wf_share']:.1f} "
            f"| {100 * s['type2_share']:.1f} |")
    return "\n".join(lines)


__all__ = [
    "DEFAULT_SPLIT", "SplitFragment", "analyse", "format_table1", "frg_structure", "induced_heads",
    "inter_nodes", "is_split_punct", "is_tree", "segment", "split_chars", "split_positions",
    "sub_root_types", "table1_stats",
]
