"""§2.1's figures for a treebank: how often punctuation-induced fragments obey each constraint
in gold trees (Spitkovsky et al. 2011, §2.1-2.2).

As in the paper, punctuation is removed from each tree first (words whose head is punctuation go
to the nearest non-punctuation ancestor); fragments are then runs of words between the removed
marks. Every fragment of a sentence is checked separately, so a tree counts once per fragment.
Percentages are over all fragments (one-word fragments included, as in the paper's figures).
"""
from typing import Dict, Iterable, List, Optional

from .constraints import CONSTRAINTS, fragment_satisfies, yield_hulls
from .punct_fragments import fragments, strip_punct, word_fragments

WSJ = {
    "sentences": 51558,
    "punctuated_sentences": 37076,
    "fragments": 123751,
    "multi_token_fragments": 111774,
    "percent": {"strict": 39.2, "loose": 74.0, "sprawl": 92.9, "tear": 94.7, "thread": 95.0},
}
"""The paper's figures for WSJ (§2.1, §2.2)."""


def is_projective(heads: List[int]) -> bool:
    """Whether no two arcs cross, the root arc (from a root before the first word) included
    (heads sentence-relative, -1 for roots)."""
    arcs = [(min(h, d), max(h, d)) for d, h in enumerate(heads)]
    for a, b in arcs:
        for c, d in arcs:
            if a < c < b < d:
                return False
    return True


def _punct_flags(upos: List[str]) -> List[bool]:
    return [u == "PUNCT" for u in upos]


def constraint_stats(records: Iterable, strip: bool = True) -> Dict:
    """Count sentences, fragments and the fragments whose gold tree satisfies each constraint.

    records (Iterable[DocRecord]): Documents with gold heads (absolute, -1 for roots) and UPOS.
    strip (bool): Remove punctuation from the trees first (the paper's setting). With False the
        constraints are checked on the full trees, punctuation tokens being positions outside
        every fragment.
    RETURNS (Dict): ``sentences``, ``punctuated_sentences`` (with internal punctuation, i.e. with
        fragments), ``fragments``, ``multi_token_fragments``, ``nonprojective_sentences`` (among
        the punctuated ones, after stripping), ``satisfied`` and ``satisfied_multi`` (counts per
        constraint), ``percent`` and ``percent_multi`` (per constraint).
    """
    out = {
        "sentences": 0, "punctuated_sentences": 0, "fragments": 0, "multi_token_fragments": 0,
        "nonprojective_sentences": 0, "strip_punct": strip,
        "satisfied": {c: 0 for c in CONSTRAINTS}, "satisfied_multi": {c: 0 for c in CONSTRAINTS},
    }
    for rec in records:
        for sent in rec.iter_sentence_slices():
            out["sentences"] += 1
            heads = sent.heads
            is_punct = _punct_flags(sent.upos)
            frags = fragments(is_punct)
            if not frags:
                continue
            if strip:
                heads, _ = strip_punct(heads, is_punct)
                frags = word_fragments(is_punct)
            out["punctuated_sentences"] += 1
            out["nonprojective_sentences"] += int(not is_projective(heads))
            hulls = yield_hulls(heads)
            for frag in frags:
                multi = frag[1] > frag[0]
                out["fragments"] += 1
                out["multi_token_fragments"] += int(multi)
                for c in CONSTRAINTS:
                    if fragment_satisfies(heads, frag, c, hulls):
                        out["satisfied"][c] += 1
                        out["satisfied_multi"][c] += int(multi)
    n, m = out["fragments"], out["multi_token_fragments"]
    out["percent"] = {c: 100.0 * v / n if n else 0.0 for c, v in out["satisfied"].items()}
    out["percent_multi"] = {c: 100.0 * v / m if m else 0.0 for c, v in out["satisfied_multi"].items()}
    return out


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def format_stats(stats: Dict, title: Optional[str] = None) -> str:
    """A plain-text table of `constraint_stats` beside the paper's WSJ figures."""
    s = stats
    lines = []
    if title:
        lines.append(title)
    setting = "punctuation stripped from trees" if s.get("strip_punct", True) else "punctuation kept in trees"
    lines.append(f"({setting}; WSJ figures from Spitkovsky et al. 2011, §2.1-2.2)")
    lines.append(f"{'':34}{'ours':>16}{'WSJ':>16}")
    rows = [
        ("sentences", f"{s['sentences']:,}", f"{WSJ['sentences']:,}"),
        ("  with internal punctuation",
         f"{s['punctuated_sentences']:,} ({_pct(s['punctuated_sentences'], s['sentences'])})",
         f"{WSJ['punctuated_sentences']:,} (71.9%)"),
        ("  of which non-projective", f"{s['nonprojective_sentences']:,}", "-"),
        ("fragments", f"{s['fragments']:,}", f"{WSJ['fragments']:,}"),
        ("  multi-token",
         f"{s['multi_token_fragments']:,} ({_pct(s['multi_token_fragments'], s['fragments'])})",
         f"{WSJ['multi_token_fragments']:,} (90.3%)"),
    ]
    for label, ours, wsj in rows:
        lines.append(f"{label:34}{ours:>16}{wsj:>16}")
    lines.append(f"{'fragments satisfying (gold trees)':34}{'all':>8}{'multi':>8}{'WSJ':>16}")
    for c in CONSTRAINTS:
        lines.append(f"  {c:32}{s['percent'][c]:>7.1f}%{s['percent_multi'][c]:>7.1f}%"
                     f"{WSJ['percent'][c]:>15.1f}%")
    return "\n".join(lines)
