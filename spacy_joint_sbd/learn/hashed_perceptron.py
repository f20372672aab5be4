"""`spacy_joint_sbd.HashedPerceptron.v1`: the hashed linear model as a Thinc `Model`.

The Model is the parameter container of a perceptron / passive-aggressive transition model: one
param `W` of shape (n_rows, nO), float32, where a hashed feature selects a row and the row holds
one weight per transition class. `nO` (the number of classes) is set when the component learns its
labels. Search, features and updates live in `spacy_joint_sbd.transition` (Cython); the
component keeps the engine's live table and this param in sync, and what is serialized is the
*averaged* table, so `to_bytes`/`to_disk` round-trip the predicting model exactly.

Thinc's optimizers average by exponential moving average; a perceptron needs its own averaging
(Daumé's trick in `learn.weights`), so this model is never updated by an `Optimizer`.

On disk and in bytes `W` is packed by its nonzero weights (`learn.packing`): most of a hashed
perceptron's weights are never touched, and the saved pipeline halves. Loading accepts both the
packed and the dense form, so pipelines saved before packing still load.
"""
from typing import Dict, List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from . import packing

DEFAULT_N_ROWS = 1 << 17


def _forward(model: Model, docs: List[Doc], is_train: bool):
    raise NotImplementedError(
        "HashedPerceptron holds weights only: prediction and training run through the "
        "joint_sbd_parser component's beam search, not Model.__call__"
    )


def _init(model: Model, X=None, Y=None) -> Model:
    import numpy

    if model.has_dim("nO") is True and not model.has_param("W"):
        model.set_param("W", numpy.zeros((model.attrs["n_rows"], model.get_dim("nO")), dtype="float32"))
    return model


class HashedPerceptron(Model):
    """A Thinc `Model` whose serialized params are packed (`learn.packing.pack`)."""

    __slots__ = ()  # Thinc's Model has slots: keep its layout, so that a copy can be re-classed

    def to_dict(self) -> Dict:
        msg = super().to_dict()
        msg["params"] = [{name: packing.pack(value) for name, value in params.items()}
                         for params in msg["params"]]
        return msg

    def from_dict(self, msg: Dict) -> "HashedPerceptron":
        """Thinc's `from_dict`, except that a packed table is adopted as `unpack` rebuilt it:
        Thinc copies every param it reads, and for a fresh table that copy only doubled the
        load's peak memory and left the freed first copy in the allocator (the default
        pipeline: 0.1-0.2 s and about 48 MB)."""
        if not (isinstance(msg, dict) and isinstance(msg.get("params"), list)):
            return super().from_dict(msg)
        fresh = [{name: packing.unpack(value) for name, value in params.items() if packing.is_packed(value)}
                 if isinstance(params, dict) else {} for params in msg["params"]]
        msg = dict(msg, params=[{name: None if name in new else value for name, value in params.items()}
                                if isinstance(params, dict) else params for params, new in zip(msg["params"], fresh)])
        super().from_dict(msg)
        for node, new in zip(self.walk(), fresh):
            for name, value in new.items():
                node.set_param(name, value)
        return self

    def _copy(self, seen=None) -> "HashedPerceptron":
        copied = super()._copy(seen)  # Thinc builds a plain Model: keep the packing
        copied.__class__ = HashedPerceptron
        return copied


@registry.architectures("spacy_joint_sbd.HashedPerceptron.v1")
def build_hashed_perceptron(n_rows: int = DEFAULT_N_ROWS, nO: Optional[int] = None) -> Model[List[Doc], List]:
    """A hashed weight table of `n_rows` rows (hash buckets) × `nO` classes.

    n_rows (int): hash buckets; memory is 4 · n_rows · nO bytes to predict (twice that to train).
    nO (Optional[int]): number of transition classes, inferred from the labels when None.
    """
    if n_rows < 1:
        raise ValueError(f"n_rows must be positive, got {n_rows}")
    return HashedPerceptron(
        "hashed_perceptron",
        _forward,
        init=_init,
        dims={"nO": nO},
        params={"W": None},
        attrs={"n_rows": n_rows},
    )
