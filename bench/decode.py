"""Decode time vs sentence length, constrained vs unconstrained (constrained decoding
should cost at most 1.5x unconstrained).

    python bench/decode.py [--lengths 10,30,...] [--repeats 5] [--order 1,2]

Random Gaussian scores; punctuation at random (p = 0.12 per token, about one mark every eight
tokens, close to EWT/GUM). Times are the minimum of ``repeats`` interleaved runs of the decoder alone (masks
built beforehand; mask building is reported in its own column, as a ratio too). "none" is the
masked decoder with masks that allow everything; for first order, ``none/plain`` compares it with a
textbook mask-free Eisner (`eisner_plain.pyx` beside this script, compiled with pyximport when
Cython is installed; the column is left out otherwise), the cost of reading masks at all.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy

from spacy_joint_sbd.graph.constraints import ALL_CONSTRAINTS, build_masks
from spacy_joint_sbd.graph.eisner import eisner
from spacy_joint_sbd.graph.eisner2 import eisner2
from spacy_joint_sbd.graph.punct_fragments import fragments


def load_eisner_plain():
    """The textbook decoder of `eisner_plain.pyx`, or None without Cython."""
    try:
        import pyximport
    except ImportError:
        return None
    pyximport.install(language_level=3, inplace=False)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from eisner_plain import eisner_plain

    return eisner_plain


def timed_all(fns, repeats):
    """Minimum time of each function, the functions interleaved (the machine is shared)."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - t0)
    return [min(t) for t in times]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="10,30,50,70,90,110,130,150")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--order", default="1,2")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = numpy.random.RandomState(args.seed)
    lengths = [int(x) for x in args.lengths.split(",")]
    names = ALL_CONSTRAINTS[1:]
    eisner_plain = load_eisner_plain()
    for order in [int(o) for o in args.order.split(",")]:
        print(f"\n{order}{'st' if order == 1 else 'nd'}-order Eisner: time of 'none' in ms; "
              f"other columns: constrained / unconstrained time")
        print(f"{'n':>5}{'frags':>6}{'none ms':>10}" + "".join(f"{c:>8}" for c in names) + f"{'masks':>8}"
              + (f"{'none/plain':>12}" if order == 1 and eisner_plain else ""))
        worst = 0.0
        worst_plain = 0.0
        for n in lengths:
            arc = rng.randn(n + 1, n + 1)
            sib = rng.randn(n + 1, n + 1, n + 1) if order == 2 else None
            is_punct = list(rng.rand(n) < 0.12)
            frags = fragments(is_punct)
            if order == 1:
                decode = lambda m: eisner(arc, m)  # noqa: E731
            else:
                decode = lambda m: eisner2(arc, sib, m)  # noqa: E731
            all_masks = [build_masks(n, frags, name) for name in ALL_CONSTRAINTS]
            fns = [(lambda m=m: decode(m)) for m in all_masks]
            fns.append(lambda: build_masks(n, frags, "loose"))
            if order == 1 and eisner_plain:
                fns.append(lambda: eisner_plain(arc))
            times = timed_all(fns, args.repeats)
            base = times[0]
            k = len(ALL_CONSTRAINTS)
            ratios = [t / base for t in times[1:k]]
            mask_time = times[k]
            worst = max([worst] + [r for r, c in zip(ratios, names) if c != "strict"])
            line = (f"{n:>5}{len(frags):>6}{base * 1000:>10.2f}" + "".join(f"{r:>8.2f}" for r in ratios)
                    + f"{mask_time / base:>8.2f}")
            if order == 1 and eisner_plain:
                plain = times[k + 1]
                line += f"{base / plain:>12.2f}"
                worst_plain = max([worst_plain] + [r * base / plain for r, c in zip(ratios, names) if c != "strict"])
            print(line)
        print(f"worst constrained/unconstrained ratio (strict excluded: it fails fast, no tree): {worst:.2f}")
        if order == 1 and eisner_plain:
            print(f"worst constrained / mask-free Eisner (`eisner_plain`): {worst_plain:.2f}")


if __name__ == "__main__":
    main()
