"""Putting punctuation back into a tree of words (the DMV parses words only, §3).

UD attaches a mark to the head of the phrase or clause it delimits; we approximate that with the
lowest common ancestor of the words on either side of the mark (which dominates both, so the mark
sits inside its span), and attach marks at a sentence edge to the root word.
"""
import numbers
from typing import List, Optional, Sequence


def _check_tree(heads: Sequence[int]) -> None:
    """ValueError unless ``heads`` (-1 = root) is a tree: integer heads in ``[-1, n)``, exactly
    one root, no cycle."""
    n = len(heads)
    for i, h in enumerate(heads):
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) or not -1 <= h < n:
            raise ValueError(f"word head {h!r} of word {i} is not an integer in [-1, {n})")
    if n and sum(1 for h in heads if h < 0) != 1:
        raise ValueError(f"word heads must have exactly one root (-1), got {list(heads)}")
    a = cycle_through(heads)
    if a is not None:
        raise ValueError(f"word heads contain a cycle through word {a}: {list(heads)}")


def cycle_through(heads: Sequence[int]) -> Optional[int]:
    """A token on a cycle of `heads` (-1 = root, every head in range), or None when every token
    reaches the root: one walk per token, each token visited once."""
    state = [0] * len(heads)  # 0: unvisited, 1: on the current path, 2: reaches the root
    for i in range(len(heads)):
        path = []
        a = i
        while a >= 0 and state[a] == 0:
            state[a] = 1
            path.append(a)
            a = heads[a]
        if a >= 0 and state[a] == 1:
            return a
        for b in path:
            state[b] = 2
    return None


def reattach_punct(word_heads: Sequence[int], is_punct: Sequence[bool]) -> List[int]:
    """Token heads (-1 = root) of a sentence from the heads of its words.

    word_heads (Sequence[int]): heads over the non-punctuation tokens (-1 = root), as parsed.
    is_punct (Sequence[bool]): one flag per token.
    RETURNS (List[int]): one head per token; a sentence of marks only is a chain from its first.
    Raises ValueError unless ``word_heads`` is a tree (heads in ``[-1, n)``, one root, no cycle).
    """
    words = [i for i, p in enumerate(is_punct) if not p]
    if len(words) != len(word_heads):
        raise ValueError(f"{len(word_heads)} word heads for {len(words)} non-punctuation tokens")
    _check_tree(word_heads)
    n = len(is_punct)
    if not words:
        return [-1] + [0] * (n - 1) if n else []
    heads = [-1] * n
    for w, h in zip(words, word_heads):
        heads[w] = words[h] if h >= 0 else -1
    roots = [w for w in words if heads[w] < 0]
    root = roots[0]
    prev = [-1] * n  # nearest word on the left
    nxt = [-1] * n
    last = -1
    for i in range(n):
        prev[i] = last
        if not is_punct[i]:
            last = i
    last = -1
    for i in range(n - 1, -1, -1):
        nxt[i] = last
        if not is_punct[i]:
            last = i
    for i in range(n):
        if not is_punct[i]:
            continue
        left, right = prev[i], nxt[i]
        if left < 0 or right < 0:
            heads[i] = root
            continue
        up = set()
        a = left
        while a >= 0:
            up.add(a)
            a = heads[a]
        b = right
        while b >= 0 and b not in up:
            b = heads[b]
        heads[i] = b if b >= 0 else root
    return heads
