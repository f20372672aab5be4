"""Step sizes for the two online learners of §4 (both used with parameter averaging).

- `Perceptron`: τ = 1 (Collins 2002).
- `PassiveAggressive`: PA-I of Crammer et al. (2006): τ = min(C, loss / ‖ΔΦ‖²), with
  loss = score(pred) − score(gold) + cost (the caller sums it into `SparseUpdate.loss`).

`apply_update(weights, update, learner)` applies τ·ΔΦ; the caller ticks the averaging clock.
"""
from typing import Union


class Perceptron:
    name = "perceptron"

    def step(self, loss: float, sqnorm: float) -> float:
        return 1.0 if sqnorm > 0 else 0.0


class PassiveAggressive:
    name = "pa"

    def __init__(self, C: float = 1.0):
        if C <= 0:
            raise ValueError(f"PA aggressiveness C must be positive, got {C}")
        self.C = C

    def step(self, loss: float, sqnorm: float) -> float:
        if sqnorm <= 0 or loss <= 0:
            return 0.0
        return min(self.C, loss / sqnorm)


Learner = Union[Perceptron, PassiveAggressive]


def make_learner(name: str = "perceptron", C: float = 1.0) -> Learner:
    if name == "perceptron":
        return Perceptron()
    if name in ("pa", "passive_aggressive"):
        return PassiveAggressive(C)
    raise ValueError(f"unknown learner {name!r} (expected 'perceptron' or 'pa')")


def apply_update(weights, update, learner: Learner) -> float:
    """Apply τ·ΔΦ to `weights` (τ from `learner`); returns τ. Does not tick the clock."""
    tau = learner.step(update.loss, update.sqnorm())
    if tau > 0:
        update.apply(weights, tau)
    return tau
