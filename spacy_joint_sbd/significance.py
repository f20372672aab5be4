"""Paired significance tests over documents (bjorkelund2016 footnote 9).

Each system's metrics file (from `python -m spacy_joint_sbd evaluate --metrics`) holds per-document
counts. For two systems scored on the same documents we compare per-document scores — boundary F1
from the document's tp/pred/gold counts, or LAS as correct/tokens — with the Wilcoxon signed-rank
test (one-sided: is A better than B?) and, as a cross-check, a paired bootstrap over documents.
The paper marks p < 0.01 with † (over MARMOT/senter), ‡ (over NOSYNTAX) and * (over JOINT).

The Wilcoxon test needs SciPy, which is not a runtime requirement of the package: install the
`experiments` extra (`pip install "spacy-joint-sbd[experiments]"`) to use it.
"""
import random
from typing import Dict, List, Sequence, Tuple

MARKS = {"senter": "†", "nosyntax": "‡", "joint": "*"}
ALPHA = 0.01


def doc_scores(metrics: Dict, measure: str) -> Dict[str, float]:
    """Per-document `sents_f` or `las` / `uas` from a metrics dict's `per_doc` counts."""
    out = {}
    for d in metrics["per_doc"]:
        if measure == "sents_f":
            p = d["sb_tp"] / d["sb_pred"] if d["sb_pred"] else 0.0
            r = d["sb_tp"] / d["sb_gold"] if d["sb_gold"] else 0.0
            out[d["doc_id"]] = 2 * p * r / (p + r) if p + r else (1.0 if not d["sb_gold"] and not d["sb_pred"] else 0.0)
        elif measure in ("las", "uas"):
            out[d["doc_id"]] = d[measure] / d["tokens"] if d["tokens"] else 0.0
        else:
            raise ValueError(f"unknown measure {measure!r}: sents_f, las or uas")
    return out


def paired(a: Dict, b: Dict, measure: str) -> Tuple[List[float], List[float]]:
    sa, sb = doc_scores(a, measure), doc_scores(b, measure)
    if set(sa) != set(sb):
        raise ValueError("the two systems were not scored on the same documents")
    ids = sorted(sa)
    return [sa[i] for i in ids], [sb[i] for i in ids]


def wilcoxon_greater(xs: Sequence[float], ys: Sequence[float]) -> float:
    """One-sided p-value that xs > ys (Wilcoxon signed-rank; 1.0 if all pairs are equal)."""
    try:
        from scipy.stats import wilcoxon
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("wilcoxon_greater needs SciPy: pip install 'spacy-joint-sbd[experiments]'") from e

    diffs = [x - y for x, y in zip(xs, ys)]
    if all(d == 0 for d in diffs):
        return 1.0
    return float(wilcoxon(xs, ys, alternative="greater", zero_method="wilcox").pvalue)


def bootstrap_greater(xs: Sequence[float], ys: Sequence[float], samples: int = 10_000, seed: int = 0) -> float:
    """Paired bootstrap: the share of resamples of documents in which A is not better than B."""
    rng = random.Random(seed)
    n = len(xs)
    worse = 0
    for _ in range(samples):
        idx = [rng.randrange(n) for _ in range(n)]
        if sum(xs[i] - ys[i] for i in idx) <= 0:
            worse += 1
    return worse / samples


def corpus_score(per_doc: Sequence[Dict], measure: str) -> float:
    """Corpus-level `sents_f` (from the summed tp / pred / gold) or `las` / `uas` (summed correct /
    summed tokens) of per-document counts: the figure a results table shows."""
    if measure == "sents_f":
        tp = sum(d["sb_tp"] for d in per_doc)
        pred, gold = sum(d["sb_pred"] for d in per_doc), sum(d["sb_gold"] for d in per_doc)
        return 2 * tp / (pred + gold) if pred + gold else 0.0
    if measure in ("las", "uas"):
        tokens = sum(d["tokens"] for d in per_doc)
        return sum(d[measure] for d in per_doc) / tokens if tokens else 0.0
    raise ValueError(f"unknown measure {measure!r}: sents_f, las or uas")


def bootstrap_corpus_greater(a: Dict, b: Dict, measure: str, samples: int = 10_000, seed: int = 0) -> float:
    """Paired bootstrap over documents of the CORPUS-level score (`corpus_score`): the share of
    resamples of documents in which A is not better than B. Use it when the table shows corpus
    F1 / LAS; `bootstrap_greater` on `paired` scores tests the mean of per-document scores."""
    da = {d["doc_id"]: d for d in a["per_doc"]}
    db = {d["doc_id"]: d for d in b["per_doc"]}
    if set(da) != set(db) or len(da) != len(a["per_doc"]) or len(db) != len(b["per_doc"]):
        raise ValueError("the two systems were not scored on the same (uniquely named) documents")
    ids = sorted(da)
    rng = random.Random(seed)
    worse = 0
    for _ in range(samples):
        idx = [ids[rng.randrange(len(ids))] for _ in ids]
        if corpus_score([da[i] for i in idx], measure) <= corpus_score([db[i] for i in idx], measure):
            worse += 1
    return worse / samples


def marks(system: Dict, others: Dict[str, Dict], measure: str, alpha: float = ALPHA) -> str:
    """The paper's marks for `system` against the named reference systems it beats significantly."""
    out = ""
    for name, other in others.items():
        xs, ys = paired(system, other, measure)
        if wilcoxon_greater(xs, ys) < alpha:
            out += MARKS.get(name, "")
    return out


def sign_test_greater(xs: Sequence[float], ys: Sequence[float]) -> float:
    """One-sided exact sign test that xs > ys over paired units (ties dropped; 1.0 if all tie):
    P(Binomial(n, 1/2) >= wins), the test of rush2012 §8. Needs no SciPy."""
    from math import comb

    if len(xs) != len(ys):
        raise ValueError(f"paired samples differ in length: {len(xs)} and {len(ys)}")
    wins = sum(x > y for x, y in zip(xs, ys))
    losses = sum(x < y for x, y in zip(xs, ys))
    n = wins + losses
    if n == 0:
        return 1.0
    return sum(comb(n, k) for k in range(wins, n + 1)) / 2 ** n
