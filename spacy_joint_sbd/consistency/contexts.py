"""Context selection for the parsing constraints (rush2012 §4, §7 "Parsing Constraints").

A *context template* is a set of offsets {r, ..., s} with r ≤ 0 ≤ s and s − r < 4 around the
modifier; a *context* is the template applied to a word's POS sequence (padded with BOS / EOS).
From training trees we count, for each context, the POS tags of the modifiers' heads (the
observed nodes O_c of §4). A context is *predictive* when one head tag has probability 1 over at
least ``min_count`` training instances. Each test word takes its best predictive context: the
paper's Table 1 favours contexts whose head lies inside the context, then long contexts; ties go to
the more frequent context. Words sharing a context share a consensus node (the sets S_c).
"""
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

ROOT_TAG = "ROOT"
"""The POS of the root head (h = 0): a label of the consensus nodes like any tag."""
BOS, EOS = "<s>", "</s>"

Template = Tuple[int, int]
ContextKey = Tuple[int, int, Tuple[str, ...]]


def all_templates(max_span: int = 4) -> List[Template]:
    """Every (r, s) with r ≤ 0 ≤ s and s − r < max_span (the paper: max_span = 4, ten templates)."""
    if not isinstance(max_span, int) or max_span < 1:
        raise ValueError(f"max_span must be a positive int, got {max_span!r}")
    return [(r, r + k) for k in range(max_span) for r in range(-k, 1)]


def check_templates(templates: Sequence[Template]) -> List[Template]:
    out = []
    for t in templates:
        if (not isinstance(t, (tuple, list)) or len(t) != 2
                or not all(isinstance(x, int) for x in t) or not t[0] <= 0 <= t[1]):
            raise ValueError(f"a template is (r, s) with ints r <= 0 <= s, got {t!r}")
        out.append((int(t[0]), int(t[1])))
    if not out:
        raise ValueError("templates must not be empty")
    return out


def context_key(tags: Sequence[str], m: int, template: Template) -> ContextKey:
    """The context of word m under template (r, s): (r, s, tags of m+r .. m+s, padded)."""
    r, s = template
    n = len(tags)
    window = tuple(BOS if i < 0 else EOS if i >= n else tags[i] for i in range(m + r, m + s + 1))
    return (r, s, window)


def format_context(key: ContextKey) -> str:
    """``DT *JJ* NN``: the context's tags with the modifier starred (Table 5's bold)."""
    r, _, window = key
    return " ".join(f"*{t}*" if i == -r else t for i, t in enumerate(window))


@dataclass
class ContextStats:
    count: int
    head_tags: Counter
    head_inside: int
    """Training instances whose head lies inside the context window."""

    @property
    def head_tag(self) -> str:
        return self.head_tags.most_common(1)[0][0]

    @property
    def precision(self) -> float:
        return self.head_tags.most_common(1)[0][1] / self.count


class ContextModel:
    """Training counts of head POS per context and the choice of each test word's context.

    templates: The context templates (default `all_templates()`).
    min_count (int): Training instances a context needs to be used.
    min_precision (float): Share of its training heads that must carry the majority head tag
        (the paper: 1.0).
    """

    def __init__(self, templates: Optional[Sequence[Template]] = None, min_count: int = 2,
                 min_precision: float = 1.0):
        if not isinstance(min_count, int) or min_count < 1:
            raise ValueError(f"min_count must be a positive int, got {min_count!r}")
        if not 0.0 < min_precision <= 1.0:
            raise ValueError(f"min_precision must be in (0, 1], got {min_precision!r}")
        self.templates = check_templates(all_templates() if templates is None else templates)
        self.min_count = min_count
        self.min_precision = min_precision
        self.stats: Dict[ContextKey, ContextStats] = {}
        self.tag_class: Dict[str, str] = {ROOT_TAG: ROOT_TAG}

    def fit(self, sentences: Sequence[Tuple[Sequence[str], Sequence[int]]],
            coarse: Optional[Sequence[Sequence[str]]] = None) -> "ContextModel":
        """Count head tags per context over training ``(tags, heads)`` (heads sentence-relative,
        -1 = root). ``coarse`` (UPOS per word) defines which tags are *close* (§4's δ2): tags
        whose most frequent coarse tag is the same."""
        counts: Dict[ContextKey, Counter] = defaultdict(Counter)
        inside: Counter = Counter()
        for tags, heads in sentences:
            if len(tags) != len(heads):
                raise ValueError(f"{len(tags)} tags but {len(heads)} heads")
            for m, h in enumerate(heads):
                if not -1 <= h < len(tags) or h == m:
                    raise ValueError(f"bad head {h} of word {m} in a sentence of {len(tags)}")
                htag = ROOT_TAG if h < 0 else tags[h]
                for tpl in self.templates:
                    key = context_key(tags, m, tpl)
                    counts[key][htag] += 1
                    if h >= 0 and m + tpl[0] <= h <= m + tpl[1]:
                        inside[key] += 1
        self.stats = {k: ContextStats(sum(c.values()), c, inside[k]) for k, c in counts.items()}
        if coarse is not None:
            votes: Dict[str, Counter] = defaultdict(Counter)
            for (tags, _), cs in zip(sentences, coarse):
                for t, c in zip(tags, cs):
                    votes[t][c] += 1
            self.tag_class.update({t: v.most_common(1)[0][0] for t, v in votes.items()})
        return self

    def to_dict(self) -> Dict:
        """msgpack-able state (`from_dict` restores it)."""
        return {"templates": [list(t) for t in self.templates], "min_count": self.min_count,
                "min_precision": self.min_precision, "tag_class": dict(self.tag_class),
                "stats": [[k[0], k[1], list(k[2]), st.head_inside, dict(st.head_tags)]
                          for k, st in self.stats.items()]}

    @classmethod
    def from_dict(cls, msg: Dict) -> "ContextModel":
        try:
            out = cls([tuple(t) for t in msg["templates"]], int(msg["min_count"]),
                      float(msg["min_precision"]))
            out.tag_class = {str(k): str(v) for k, v in msg["tag_class"].items()}
            for r, s, window, inside, heads in msg["stats"]:
                c = Counter({str(k): int(v) for k, v in heads.items()})
                out.stats[(int(r), int(s), tuple(str(x) for x in window))] = ContextStats(
                    sum(c.values()), c, int(inside))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"not a saved ContextModel: {type(e).__name__}: {e}") from None
        return out

    def predictive(self, key: ContextKey) -> Optional[ContextStats]:
        st = self.stats.get(key)
        if st is None or st.count < self.min_count or st.precision < self.min_precision:
            return None
        return st

    def select(self, tags: Sequence[str], m: int) -> Optional[ContextKey]:
        """Word m's context: predictive, head inside the window first, then longest, then most
        frequent; None when no template gives a predictive context."""
        best, best_rank = None, None
        for tpl in self.templates:
            key = context_key(tags, m, tpl)
            st = self.predictive(key)
            if st is None:
                continue
            rank = (st.head_inside * 2 >= st.count, tpl[1] - tpl[0], st.count)
            if best_rank is None or rank > best_rank:
                best, best_rank = key, rank
        return best

    def close(self, a: str, b: str) -> bool:
        """§4's "pos(l_i) is close to l_c": different tags of the same coarse class."""
        ca, cb = self.tag_class.get(a), self.tag_class.get(b)
        return a != b and ca is not None and ca == cb


__all__ = ["BOS", "EOS", "ROOT_TAG", "ContextModel", "ContextStats", "all_templates",
           "check_templates", "context_key", "format_context"]
