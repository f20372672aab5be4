"""The tokens of a written sentence that are not whitespace alone, and their heads among them:
what the CoNLL-U writer and the HTML page both show."""
from typing import Any, Dict, List, Tuple


def solid_tokens(tokens: List[Dict[str, Any]]) -> List[Tuple[int, int]]:
    """(index, head) of the tokens that are not whitespace alone, in order: the head is the kept
    token's new index (a head on a dropped token replaced by that token's own head), -1 for a
    root or no parse."""
    keep = [i for i, t in enumerate(tokens) if t["text"].strip()]
    new = {old: k for k, old in enumerate(keep)}
    out = []
    for i in keep:
        h, steps = tokens[i]["head"], 0
        while h is not None and h >= 0 and h not in new and steps <= len(tokens):
            h, steps = tokens[h]["head"], steps + 1
        out.append((i, -1 if h is None or h < 0 or h not in new else new[h]))
    return out
