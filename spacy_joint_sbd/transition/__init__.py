"""ArcStandard + SWAP + SB transition parsing of whole documents (bjorkelund2016 §2–§3).

Modules: `_state.pxd` (back-pointer states), `moves` (the five moves, Figure 2), `oracle`
(Nivre et al. 2009 swap oracle + SB), `features` (Zhang & Nivre 2011 + SB features), `search`
(beam search and the update strategies), `parser` (the Python API), `records`, `labels`.
"""
from .labels import LabelSet
from .oracle import OracleError, oracle_actions
from .parser import Parse, TransitionParser
from .records import DEFAULT_ATTRS, EngineDoc, encode_record, encode_records, record_attrs
from .search import STRATEGIES, Engine, n_classes_for

__all__ = [
    "DEFAULT_ATTRS", "Engine", "EngineDoc", "LabelSet", "OracleError", "Parse", "STRATEGIES",
    "TransitionParser", "encode_record", "encode_records", "n_classes_for", "oracle_actions", "record_attrs",
]
