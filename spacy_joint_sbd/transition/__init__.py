"""ArcStandard + SWAP + SB transition parsing of whole documents (bjorkelund2016 §2–§3).

Modules, in reading order:
  `_state.pxd`     back-pointer states (§2, after Goldberg et al. 2013) and the one arc reader
  `moves`          the five moves of Figure 2 (`Move`), their Validity and Action; class layout
  `oracle`         the static oracle (Nivre et al. 2009 swap oracle, SB early or late; §2, Table 1)
  `features`       Zhang & Nivre (2011) features plus SB features (§4)
  `beam`           `Engine`: beam search over back-pointer states (EXPANDANDFILTER, parse)
  `updates`        greedy, early, max_violation, dlaso (§3, Algorithm 1) and laso updates
  `parser`         `TransitionParser`, the Python API the spaCy component calls
  `engine_doc`, `labels`  engine inputs (`EngineDoc`) and label ids
  `stateclass`, `testing`  Python views for tests: `StateClass`, `replay`, `gold_score`
"""
from .beam import Engine
from .labels import LabelSet
from .moves import Move, n_classes_for
from .oracle import OracleError, oracle_actions
from .parser import Parse, TransitionParser, head_attrs
from .engine_doc import DEFAULT_ATTRS, EngineDoc
from .updates import UPDATES

__all__ = [
    "DEFAULT_ATTRS", "Engine", "EngineDoc", "LabelSet", "Move", "OracleError", "Parse", "UPDATES",
    "TransitionParser", "head_attrs", "n_classes_for", "oracle_actions",
]
