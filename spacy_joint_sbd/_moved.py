"""Old import paths of modules and names that moved to another room, kept working for one version.

``import spacy_joint_sbd.pipeline.calibration`` still works and gives the module's names, with a
DeprecationWarning naming the new path; so does ``from spacy_joint_sbd.cli.tune_bias import
best_bias``, a name that moved out of a module that stays (`MOVED_NAMES`, read by that module's
`__getattr__`). An alias is resolved only when it is used, so a room never imports the rooms its
old names point to. Registered names (factories, architectures, callbacks) never moved: saved
configs load unchanged.
"""
import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Any, Callable, Dict, Optional

MOVED: Dict[str, str] = {
    "spacy_joint_sbd.pipeline.calibration": "spacy_joint_sbd.pipeline.joint.calibration",
    "spacy_joint_sbd.pipeline.doc_encoding": "spacy_joint_sbd.pipeline.joint.doc_encoding",
    "spacy_joint_sbd.pipeline.final_punct": "spacy_joint_sbd.pipeline.joint.final_punct",
    "spacy_joint_sbd.pipeline.joint_settings": "spacy_joint_sbd.pipeline.joint.settings",
    "spacy_joint_sbd.pipeline.prior_scores": "spacy_joint_sbd.pipeline.joint.prior_scores",
    "spacy_joint_sbd.pipeline.sentence_limits": "spacy_joint_sbd.pipeline.joint.sentence_limits",
    "spacy_joint_sbd.pipeline.unmarked": "spacy_joint_sbd.pipeline.joint.unmarked",
    "spacy_joint_sbd.pipeline.whitespace": "spacy_joint_sbd.pipeline.joint.whitespace",
    "spacy_joint_sbd.pipeline.model": "spacy_joint_sbd.learn.hashed_perceptron",
    "spacy_joint_sbd.pipeline.context_clusters": "spacy_joint_sbd.context.clusters",
    "spacy_joint_sbd.pipeline.bounded_tok2vec": "spacy_joint_sbd.context.bounded_tok2vec",
    "spacy_joint_sbd.pipeline.tok2vec_depth": "spacy_joint_sbd.context.tok2vec_depth",
    "spacy_joint_sbd.pipeline.numpy_gemm": "spacy_joint_sbd.context.numpy_gemm",
    "spacy_joint_sbd.learn.kmeans": "spacy_joint_sbd.context.kmeans",
    "spacy_joint_sbd.learn.blas": "spacy_joint_sbd.context.blas",
    "spacy_joint_sbd.learn.shortlist": "spacy_joint_sbd.context.shortlist",
    "spacy_joint_sbd.pipeline.checksums": "spacy_joint_sbd.persist.checksums",
    "spacy_joint_sbd.pipeline.saved_strings": "spacy_joint_sbd.persist.saved_strings",
    "spacy_joint_sbd.pipeline.source_lookups": "spacy_joint_sbd.persist.source_lookups",
}
"""Deprecated module path → the module's home now."""

_EVALUATION = "spacy_joint_sbd.evaluation"
_OPERATING_POINT = "spacy_joint_sbd.operating_point"
_PATHS = "spacy_joint_sbd.persist.paths"
MOVED_NAMES: Dict[str, Dict[str, str]] = {
    "spacy_joint_sbd.cli._util": {"atomic_dir": _PATHS, "portable_path": _PATHS},
    "spacy_joint_sbd.cli.evaluate": {name: _EVALUATION for name in (
        "BASELINES", "PREDICT_BATCH", "evaluate", "evaluate_raw", "load_pipeline", "predict", "predicted_records")},
    "spacy_joint_sbd.cli.tune_bias": {name: _OPERATING_POINT for name in (
        "KEYS", "PRIOR_PUNCT_SHIFTS", "PRIOR_UNPUNCT_SHIFTS", "PRIOR_WEIGHTS", "PUNCT_GRID", "Staged",
        "UNPUNCTUATED_VARIANTS", "UNPUNCT_GRID", "best_bias", "set_sb_bias", "staged_gold", "sweep_raw_scores",
        "sweep_sb_bias", "sweep_sb_bias_scores", "tune_bias", "tune_prior", "usable_raw")},
}
"""Module that stays → {deprecated name in it: the module that holds the name now}."""


class _Alias(ModuleType):
    """A deprecated path: every attribute is the moved module's (read and written through)."""

    def __init__(self, name: str, target: ModuleType):
        super().__init__(name, target.__doc__)
        object.__setattr__(self, "_target", target)

    def __getattr__(self, attr: str):
        return getattr(object.__getattribute__(self, "_target"), attr)

    def __setattr__(self, attr: str, value) -> None:
        if attr.startswith("__") and attr.endswith("__"):  # the import system's own bookkeeping
            object.__setattr__(self, attr, value)
        else:
            setattr(object.__getattribute__(self, "_target"), attr, value)

    def __dir__(self):
        return dir(object.__getattribute__(self, "_target"))


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path=None, target=None) -> Optional[importlib.machinery.ModuleSpec]:
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} is deprecated and goes in the next version: import {new}",
                      DeprecationWarning, stacklevel=3)
        return _Alias(spec.name, importlib.import_module(new))

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the moved module ran when it was imported."""


def install() -> None:
    """Make the old paths importable (once per interpreter)."""
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())


def moved_names(module: str) -> Callable[[str], Any]:
    """The `__getattr__` of `module` (a module that stays): a name `MOVED_NAMES` lists for it is
    the moved one, with a DeprecationWarning naming its new path; any other is an AttributeError."""
    names = MOVED_NAMES[module]

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(f"{module}.{name} is deprecated and goes in the next version: use {names[name]}.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(names[name]), name)

    return __getattr__
