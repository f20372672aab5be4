"""Inter-punctuation fragments (Spitkovsky et al. 2011, §2), the spans the decoding constraints of
`constraints` protect. Not to be confused with `split_punct` (Li, Che & Liu: fragments between
*split* punctuation only, for the staged parsers).

A fragment is "a maximal (non-empty) consecutive sequence of words that does not cross
punctuation boundaries and is shorter than its source sentence". Positions are 0-based token
indices within the sentence and fragments are inclusive ranges ``(x, y)``.

"Shorter than its sentence" is measured in words (non-punctuation tokens), as in the paper, where
punctuation is stripped before parsing: ``Hello world .`` has no fragment (its only run of words is
the whole sentence), ``Yes , sir .`` has two. Punctuation tokens belong to no fragment.

The paper writes fragments with ``x < y``; single-word fragments (``x == y``) are still fragments
(they count in §2.1's totals: 90.3% of WSJ's fragments are multi-token). Only strict can be
violated by a one-word fragment (when that word heads words outside it), see `constraints`.
"""
from typing import List, Sequence, Tuple

Fragment = Tuple[int, int]


def fragments(is_punct: Sequence[bool]) -> List[Fragment]:
    """The inter-punctuation fragments of one sentence.

    is_punct (Sequence[bool]): One flag per token, True for punctuation (UPOS ``PUNCT``).
    RETURNS (List[Tuple[int, int]]): Inclusive ``(x, y)`` runs of words, left to right; empty when
        the sentence has no internal punctuation separating two words.
    """
    runs: List[Fragment] = []
    start = -1
    for i, p in enumerate(is_punct):
        if p:
            if start >= 0:
                runs.append((start, i - 1))
                start = -1
        elif start < 0:
            start = i
    if start >= 0:
        runs.append((start, len(is_punct) - 1))
    if len(runs) < 2:
        # A single run holds every word of the sentence: not shorter than the sentence.
        return []
    return runs


def word_fragments(is_punct: Sequence[bool]) -> List[Fragment]:
    """The fragments of `fragments`, in word positions (punctuation removed), as they are in a
    tree from `strip_punct`."""
    word_pos = []
    pos = 0
    for p in is_punct:
        word_pos.append(pos)
        pos += 0 if p else 1
    return [(word_pos[x], word_pos[y]) for x, y in fragments(is_punct)]


def strip_punct(heads: Sequence[int], is_punct: Sequence[bool]) -> Tuple[List[int], List[int]]:
    """Remove punctuation from a tree, as the paper's DMV setting does (§3.2).

    A word whose head is punctuation is re-attached to its nearest non-punctuation ancestor (or
    becomes a root when there is none).

    heads (Sequence[int]): Sentence-relative heads, -1 for a root.
    is_punct (Sequence[bool]): One flag per token.
    RETURNS (Tuple[List[int], List[int]]): The heads of the words (indices into the word list,
        -1 for roots) and, for each word, its token index in the original sentence.
    """
    keep = [i for i, p in enumerate(is_punct) if not p]
    new_index = {old: new for new, old in enumerate(keep)}
    out = []
    for old in keep:
        h = heads[old]
        steps = 0
        while h >= 0 and is_punct[h] and steps <= len(heads):
            h = heads[h]
            steps += 1
        out.append(new_index[h] if h >= 0 and not is_punct[h] else -1)
    return out, keep
