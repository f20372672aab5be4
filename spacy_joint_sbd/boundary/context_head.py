"""`ContextHead`: sentence-start evidence from the token vectors around each gap.

The hashed n-gram model (`BoundaryModel`) sees words, shapes and layout near a gap; a tok2vec
before the `boundary_prior` (the pipeline's frozen CNN) has already read a wider, contextual view
of every token. The head is a small MLP over the vectors of the two words before and the two
words after the gap (whitespace tokens left out, zeros past either end): one hidden ReLU layer,
one log-odds out. It is trained with Adam on the log loss, after the n-gram model, on vectors
of the same running text, and the two log-odds are blended by a logistic regression fitted on
held-out documents (`stack_fit`), which also calibrates them. Plain numpy: a few dense products
per document, run on one BLAS thread (`context.blas.single_threaded_blas`: tiny products on
many threads spend their time handing work over).
"""
import time
from typing import Callable, Dict, Optional, Sequence

import numpy

from ..context.blas import single_threaded_blas
from ..learn.logistic import newton_logistic, sigmoid

WINDOW = 2
"""Words either side of the gap before word i: vectors of i - 2, i - 1 (before) and i, i + 1 (after)."""


def window_rows(vectors: numpy.ndarray, window: int = WINDOW) -> numpy.ndarray:
    """(m, 2·window·d) float32: for each of m words (rows of `vectors`, whitespace left out) the
    vectors of words i - window .. i + window - 1, zeros outside the document."""
    v = numpy.asarray(vectors, dtype=numpy.float32)
    if v.ndim != 2:
        raise ValueError(f"window_rows: need (m, d) vectors, got shape {v.shape}")
    m, d = v.shape
    pad = numpy.zeros((window, d), dtype=numpy.float32)
    padded = numpy.vstack([pad, v, pad])
    return numpy.hstack([padded[window + o: window + o + m] for o in range(-window, window)])


def stack_fit(x: numpy.ndarray, y: numpy.ndarray, iters: int = 50, l2: float = 1e-3) -> numpy.ndarray:
    """Logistic regression of 0/1 `y` on the columns of `x` (n, k) plus a bias, by Newton's
    method with a small ridge: returns k + 1 coefficients (the bias last)."""
    X = numpy.hstack([numpy.asarray(x, dtype=numpy.float64), numpy.ones((len(x), 1))])
    t = numpy.asarray(y, dtype=numpy.float64)
    if len(X) == 0 or not numpy.isfinite(X).all():
        raise ValueError("stack_fit: need finite rows")
    start = numpy.zeros(X.shape[1])
    start[0] = 1.0  # the first input as it comes
    return newton_logistic(X, t, l2, free=X.shape[1] - 1, start=start, iterations=iters)


class ContextHead:
    """width: the tok2vec's vector width; hidden: ReLU units. `logits(vectors)` gives the
    log-odds of a sentence start before each word (uncalibrated: the blend calibrates)."""

    def __init__(self, width: int, hidden: int = 128, window: int = WINDOW, seed: int = 0):
        for key, v in (("width", width), ("hidden", hidden), ("window", window)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"ContextHead: {key} must be a positive int, got {v!r}")
        self.width, self.hidden, self.window = width, hidden, window
        n_in = 2 * window * width
        rng = numpy.random.default_rng(seed)
        self.params: Dict[str, numpy.ndarray] = {
            "W1": rng.normal(0, 1 / numpy.sqrt(n_in), (n_in, hidden)).astype(numpy.float32),
            "b1": numpy.zeros(hidden, numpy.float32),
            "w2": rng.normal(0, 1 / numpy.sqrt(hidden), hidden).astype(numpy.float32),
            "b2": numpy.zeros(1, numpy.float32),
            "mu": numpy.zeros(n_in, numpy.float32),
            "inv_sd": numpy.ones(n_in, numpy.float32),
        }

    @property
    def n_in(self) -> int:
        return 2 * self.window * self.width

    def _forward(self, X: numpy.ndarray):
        p = self.params
        H = numpy.maximum((X - p["mu"]) * p["inv_sd"] @ p["W1"] + p["b1"], 0)
        return H @ p["w2"] + p["b2"][0], H

    def logits(self, vectors: numpy.ndarray) -> numpy.ndarray:
        """(m,) float32 log-odds for m words' (m, width) vectors."""
        v = numpy.asarray(vectors)
        if v.ndim != 2 or v.shape[1] != self.width:
            raise ValueError(f"ContextHead: need (m, {self.width}) vectors, got shape {v.shape}")
        if len(v) == 0:
            return numpy.zeros((0,), numpy.float32)
        with single_threaded_blas():
            return self._forward(window_rows(v, self.window))[0].astype(numpy.float32)

    def fit(self, X: numpy.ndarray, y: numpy.ndarray, *, epochs: int = 6, lr: float = 1e-3, batch: int = 256,
            seed: int = 0, log: Optional[Callable[[str], None]] = None) -> Dict:
        """Adam on the log loss over window rows `X` (n, n_in; float16 keeps memory down) and 0/1
        `y`; the input is standardized by the rows' own mean and spread. Returns statistics."""
        if X.ndim != 2 or X.shape[1] != self.n_in or len(X) != len(y) or len(X) == 0:
            raise ValueError(f"ContextHead.fit: need (n, {self.n_in}) rows and n labels, got {X.shape}, {len(y)}")
        if not isinstance(epochs, int) or epochs < 1:
            raise ValueError(f"ContextHead.fit: epochs must be an int >= 1, got {epochs!r}")
        start = time.process_time()
        rng = numpy.random.default_rng(seed)
        sample = X[rng.choice(len(X), size=min(len(X), 200_000), replace=False)].astype(numpy.float32)
        self.params["mu"] = sample.mean(0)
        self.params["inv_sd"] = (1.0 / (sample.std(0) + 1e-6)).astype(numpy.float32)
        trained = ("W1", "b1", "w2", "b2")
        m = {k: numpy.zeros_like(self.params[k]) for k in trained}
        v = {k: numpy.zeros_like(self.params[k]) for k in trained}
        t = numpy.asarray(y, dtype=numpy.float32)
        stats: Dict = {"rows": int(len(X)), "epochs": []}
        step = 0
        with single_threaded_blas():
            for epoch in range(epochs):
                order = rng.permutation(len(X))
                total = 0.0
                for i in range(0, len(order), batch):
                    idx = numpy.sort(order[i:i + batch])
                    xb = (X[idx].astype(numpy.float32) - self.params["mu"]) * self.params["inv_sd"]
                    H = numpy.maximum(xb @ self.params["W1"] + self.params["b1"], 0)
                    z = H @ self.params["w2"] + self.params["b2"][0]
                    p = sigmoid(z)
                    yb = t[idx]
                    total += float(-(yb * numpy.log(p + 1e-9) + (1 - yb) * numpy.log(1 - p + 1e-9)).sum())
                    g = (p - yb) / len(idx)
                    gh = numpy.outer(g, self.params["w2"]) * (H > 0)
                    grads = {"W1": xb.T @ gh, "b1": gh.sum(0), "w2": H.T @ g,
                             "b2": numpy.asarray([g.sum()], numpy.float32)}
                    step += 1
                    for k in trained:
                        m[k] = 0.9 * m[k] + 0.1 * grads[k]
                        v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                        self.params[k] -= (lr * (m[k] / (1 - 0.9 ** step))
                                           / (numpy.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)).astype(numpy.float32)
                stats["epochs"].append({"epoch": epoch, "loss": total / len(X), "cpu_s": time.process_time() - start})
                if log:
                    log(f"context head epoch {epoch}: log loss {total / len(X):.4f}, "
                        f"{time.process_time() - start:.0f} CPU s")
        stats["train_cpu_s"] = time.process_time() - start
        return stats

    # ------------------------------------------------------------------ serialization
    def get_state(self) -> Dict:
        return {"width": self.width, "hidden": self.hidden, "window": self.window,
                **{k: numpy.ascontiguousarray(a, dtype=numpy.float32) for k, a in self.params.items()}}

    @classmethod
    def from_state(cls, state: Dict) -> "ContextHead":
        """A head from `get_state`'s dict; ValueError when it is incomplete or its shapes disagree."""
        try:
            head = cls(int(state["width"]), int(state["hidden"]), int(state["window"]))
            shapes = {k: a.shape for k, a in head.params.items()}
            for k in shapes:
                a = numpy.asarray(state[k], dtype=numpy.float32)
                if a.shape != shapes[k] or not numpy.isfinite(a).all():
                    raise ValueError(f"{k}: shape {a.shape}, expected {shapes[k]}, or not finite")
                head.params[k] = a
        except (KeyError, TypeError) as e:
            raise ValueError(f"ContextHead: incomplete state ({e})") from None
        return head


def blend(sparse: numpy.ndarray, head: numpy.ndarray, coef: Sequence[float]) -> numpy.ndarray:
    """Calibrated probabilities σ(a·sparse + b·head + c) of the two log-odds."""
    a, b, c = coef
    z = a * sparse.astype(numpy.float64) + b * head.astype(numpy.float64) + c
    return sigmoid(z)
