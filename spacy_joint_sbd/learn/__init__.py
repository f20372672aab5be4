"""Shared learning machinery: feature hashing, the hashed weight table with averaging, learners.

Used by both the transition stack (`transition/`) and the graph stack (`graph/`).
"""
from .hashing import DEFAULT_SEED, hash_string, hash_values
from .learners import PassiveAggressive, Perceptron, apply_update, make_learner
from .update import SparseUpdate
from .weights import HashedWeights

__all__ = [
    "DEFAULT_SEED", "HashedWeights", "PassiveAggressive", "Perceptron", "SparseUpdate",
    "apply_update", "hash_string", "hash_values", "make_learner",
]
