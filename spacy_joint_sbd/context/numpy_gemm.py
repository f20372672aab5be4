"""`spacy_joint_sbd.numpy_gemm.v1`: a pipeline's listed components multiply matrices with numpy's
BLAS on one thread (`context.blas.OneThreadNumpyOps`) instead of Thinc's BLIS.

Put it in `[nlp.after_pipeline_creation]`, so that it applies whenever the pipeline is built from
its config: `spacy train`, `spacy.load`, `spacy package`d pipelines alike; a pipeline built in
Python (`spacy.blank` + `add_pipe`) calls `use_numpy_gemm(nlp)`, which applies the ops and writes
the callback into `nlp.config` for the saved pipeline. The default pipeline uses it for its frozen
tok2vec (the same vectors up to float rounding, at about 0.6 of the CPU time where BLIS
runs its generic kernels). It also makes those that are spaCy `tok2vec` components predict in
bounded pieces (`context.bounded_tok2vec`: the same vectors, at most 4,096 tokens in the network
at once, whatever the Doc's length or the batch's).
"""
from typing import Callable, List, Sequence

from spacy.language import Language
from spacy.pipeline import Tok2Vec
from spacy.util import registry

from .blas import OneThreadNumpyOps
from .bounded_tok2vec import bound_tok2vec

NAME = "spacy_joint_sbd.numpy_gemm.v1"


@registry.callbacks(NAME)
def make_numpy_gemm(components: List[str] = ["tok2vec"]) -> Callable[[Language], Language]:  # noqa: B006
    """components: the names of the components whose models get the ops (absent names are an
    error when the pipeline is built: a misspelt name would silently keep BLIS)."""
    if not isinstance(components, (list, tuple)) or not all(isinstance(c, str) and c for c in components):
        raise ValueError(f"numpy_gemm: components must be a list of component names, got {components!r}")
    names = list(components)

    def numpy_gemm(nlp: Language) -> Language:
        missing = [c for c in names if c not in nlp.component_names]
        if missing:
            raise ValueError(f"numpy_gemm: the pipeline has no component {missing} "
                             f"(it has {nlp.component_names})")
        _set_ops(nlp, names)
        bound_tok2vec(nlp, [c for c in names if isinstance(nlp.get_pipe(c), Tok2Vec)])
        return nlp

    return numpy_gemm


def use_numpy_gemm(nlp: Language, components: Sequence[str] = ("tok2vec",)) -> Language:
    """Give the named components' models `OneThreadNumpyOps` now, and record the callback in
    `nlp.config` (`[nlp.after_pipeline_creation]`) so that the saved pipeline gets them whenever
    it is loaded. ValueError if the config already names another such callback."""
    names = list(components)
    current = nlp.config["nlp"].get("after_pipeline_creation")
    if current is not None and current.get("@callbacks") != NAME:
        raise ValueError(f"numpy_gemm: [nlp.after_pipeline_creation] is already {current!r}")
    make_numpy_gemm(names)(nlp)
    nlp.config["nlp"]["after_pipeline_creation"] = {"@callbacks": NAME, "components": names}
    return nlp


def _set_ops(nlp: Language, components: List[str]) -> None:
    """Give every layer of the named components' models one shared `OneThreadNumpyOps`."""
    ops = OneThreadNumpyOps()
    for name in components:
        model = getattr(nlp.get_pipe(name), "model", None)
        if model is None or not hasattr(model, "walk"):
            raise ValueError(f"numpy_gemm: component {name!r} has no Thinc model")
        for node in model.walk():
            node.ops = ops
