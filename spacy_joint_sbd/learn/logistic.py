"""Dense logistic regression for a handful of inputs, by Newton's method: the calibrators and
blends that sit on top of the hashed models (`pipeline.joint.calibration`, `boundary.context_head`)."""
from typing import Optional

import numpy


def sigmoid(z: numpy.ndarray) -> numpy.ndarray:
    """σ(z) elementwise, z clipped to ±30 against overflow in exp (in z's own float type)."""
    return 1.0 / (1.0 + numpy.exp(-numpy.clip(z, -30, 30)))


def sigmoid_of(X: numpy.ndarray, w: numpy.ndarray) -> numpy.ndarray:
    """σ(X · w), clipped against overflow."""
    return sigmoid(X @ w)


def newton_logistic(X: numpy.ndarray, y: numpy.ndarray, l2: float, free: int = 0,
                    start: Optional[numpy.ndarray] = None, iterations: int = 50) -> numpy.ndarray:
    """Coefficients w minimising the log loss of σ(X · w) against 0/1 `y` plus l2/2 · |w|² over
    every column but `free` (the intercept's, never shrunk): exact Newton steps from `start`
    (zeros by default) until a step moves no coefficient by 1e-8. Few columns only: each step
    solves a (k × k) system."""
    k = X.shape[1]
    w = numpy.zeros(k) if start is None else numpy.asarray(start, dtype=numpy.float64).copy()
    reg = l2 * numpy.eye(k)
    reg[free, free] = 0.0
    for _ in range(iterations):
        p = sigmoid_of(X, w)
        grad = X.T @ (p - y) + reg @ w
        hess = (X * (p * (1 - p))[:, None]).T @ X + reg + 1e-9 * numpy.eye(k)
        step = numpy.linalg.solve(hess, grad)
        w -= step
        if numpy.abs(step).max() < 1e-8:
            break
    return w
