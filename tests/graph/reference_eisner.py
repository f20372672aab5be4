"""Textbook first-order Eisner in pure Python (test helper): no masks, single root.

The reference the masked Cython decoder (`spacy_joint_sbd.graph.eisner`) is compared with on
unconstrained scores: the same chart (complete / incomplete items, left / right), the same
tie-breaking (the first best split), so heads must agree exactly. Same input and output as
`eisner(scores)`: ``scores[h, d]`` over chart positions (0 = root), token heads (-1 = root).
"""
from typing import List, Tuple

import numpy

NEG = float("-inf")


def eisner_reference(scores: numpy.ndarray) -> Tuple[List[int], float]:
    arc = [[float(x) for x in row] for row in numpy.asarray(scores, dtype=numpy.float64)]
    D = len(arc)
    n = D - 1
    if n == 0:
        return [], 0.0
    # CL[s][t]: head t, covering s..t; CR[s][t]: head s; I: the arc item of s, t (one split).
    CL = [[NEG] * D for _ in range(D)]
    CR = [[NEG] * D for _ in range(D)]
    IL = [[NEG] * D for _ in range(D)]
    IR = [[NEG] * D for _ in range(D)]
    bI = [[0] * D for _ in range(D)]
    bCL = [[0] * D for _ in range(D)]
    bCR = [[0] * D for _ in range(D)]
    for s in range(D):
        CL[s][s] = CR[s][s] = 0.0
    for k in range(1, n):
        for s in range(1, n - k + 1):
            t = s + k
            best, arg = NEG, s
            for r in range(s, t):
                v = CR[s][r] + CL[r + 1][t]
                if v > best:
                    best, arg = v, r
            IL[s][t] = best + arc[t][s]
            IR[s][t] = best + arc[s][t]
            bI[s][t] = arg
            best, arg = NEG, s
            for r in range(s, t):
                v = CL[s][r] + IL[r][t]
                if v > best:
                    best, arg = v, r
            CL[s][t], bCL[s][t] = best, arg
            best, arg = NEG, s + 1
            for r in range(s + 1, t + 1):
                v = IR[s][r] + CR[r][t]
                if v > best:
                    best, arg = v, r
            CR[s][t], bCR[s][t] = best, arg
    best, root_child = NEG, 1
    for h in range(1, n + 1):
        v = arc[0][h] + CL[1][h] + CR[h][n]
        if v > best:
            best, root_child = v, h
    heads = [0] * D
    heads[root_child] = 0
    stack = [("CL", 1, root_child), ("CR", root_child, n)]
    while stack:
        kind, s, t = stack.pop()
        if s >= t:
            continue
        if kind == "CL":
            r = bCL[s][t]
            heads[r] = t
            stack += [("CL", s, r), ("I", r, t)]
        elif kind == "CR":
            r = bCR[s][t]
            heads[r] = s
            stack += [("I", s, r), ("CR", r, t)]
        else:
            r = bI[s][t]
            stack += [("CR", s, r), ("CL", r + 1, t)]
    return [heads[p] - 1 for p in range(1, n + 1)], best
