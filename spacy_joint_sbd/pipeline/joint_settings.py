"""The joint parser's settings: one rule per setting, one validator that construction, loading
and prediction all call, and typed attributes that call it on every assignment.

A setting reads the same however it arrives (the factory's config, a saved `cfg`, a hand edit of
`cfg`, an attribute assignment such as ``parser.sb_bias = -0.5``): the same check and the same
one-line message, ``[component] setting must be …, got …``, and the same normal form (attribute
names upper-cased, biases as floats). The component's `cfg` stays the one place spaCy saves them,
beside what training learns (labels, clusters, calibration).
"""
import math
import numbers
from typing import Any, Callable, Dict, Generic, Iterable, Literal, Mapping, Optional, TypeVar, get_args

from ..learn.kmeans import check_tree_ks
from ..transition import UPDATES
from ..transition.beam import MAX_BEAM_WIDTH
from .context_clusters import check_ks
from .doc_encoding import check_attrs
from .sentence_limits import check_limits

Update = Literal["dlaso", "laso", "max_violation", "early", "greedy"]
"""The search's update strategies (`transition.UPDATES`): in the factory's signature, so that
spaCy's config validation names the permitted values."""
SBOracle = Literal["early", "late"]
Learner = Literal["pa", "perceptron"]
LEARNERS = get_args(Learner)

PREDICTION_SETTINGS = ("beam_width", "sb_bias", "sb_bias_unpunctuated", "sb_bias_unmarked", "prior_weight", "threshold",
                       "max_length")
"""Settings `spacy.load(..., config=...)` sets over the saved cfg (they change prediction only)."""
TRAINING_SETTINGS = ("update", "sb_oracle", "learner", "pa_c", "attrs", "document_level", "context_clusters",
                     "context_tree", "prior_features")
"""Settings fixed once the model is trained: a saved cfg's values win over the config's."""
SETTINGS = PREDICTION_SETTINGS + TRAINING_SETTINGS

LOAD_DEFAULTS: Dict[str, Any] = {"sb_bias": 0.0, "sb_bias_unpunctuated": None, "sb_bias_unmarked": 0.0, "prior_weight": 0.0,
                                 "threshold": None, "max_length": None, "context_clusters": [],
                                 "context_tree": False, "prior_features": False}
"""What a cfg saved before a setting existed means by its absence (no prior, no limits, flat
clusters): the behaviour of the version that saved it."""


def is_finite_number(value: Any) -> bool:
    """A real number (never a bool or a numeric string), finite and at most 1e30 in size."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value) \
        and abs(value) <= 1e30


def _bias(value: Any) -> float:
    if not is_finite_number(value):
        raise TypeError("a finite number")
    return float(value)


def _optional_bias(value: Any) -> Optional[float]:
    if value is None:
        return None
    if not is_finite_number(value):
        raise TypeError("None or a finite number")
    return float(value)


def _weight(value: Any) -> float:
    if not is_finite_number(value) or value < 0:
        raise TypeError("a finite number >= 0")
    return float(value)


def _positive(value: Any) -> float:
    if not is_finite_number(value) or value <= 0:
        raise TypeError("a finite number > 0")
    return float(value)


def _beam(value: Any) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not 1 <= value <= MAX_BEAM_WIDTH:
        raise TypeError(f"an int in [1, {MAX_BEAM_WIDTH}]")
    return int(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("true or false")
    return value


def _choice(choices: Iterable[str]) -> Callable[[Any], str]:
    choices = tuple(choices)

    def check(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise TypeError(f"one of {', '.join(choices)}")
        return value
    return check


RULES: Dict[str, Callable[[Any], Any]] = {
    "beam_width": _beam, "sb_bias": _bias, "sb_bias_unpunctuated": _optional_bias, "sb_bias_unmarked": _bias,
    "prior_weight": _weight,
    "update": _choice(UPDATES), "sb_oracle": _choice(get_args(SBOracle)), "learner": _choice(LEARNERS),
    "pa_c": _positive, "document_level": _flag, "context_tree": _flag, "prior_features": _flag,
}
"""Each simple setting's rule: the normal value, or TypeError(what the value must be)."""


def check_setting(setting: str, value: Any, name: str) -> Any:
    """`value` in normal form as the setting `setting` of the component `name`, or a one-line
    ValueError naming both: ``[name] setting must be …, got …``."""
    rule = RULES.get(setting)
    if rule is not None:
        try:
            return rule(value)
        except TypeError as e:
            raise ValueError(f"[{name}] {setting} must be {e}, got {value!r}") from None
    if setting == "threshold":
        check_limits(value, None, name)
        return None if value is None else float(value)
    if setting == "max_length":
        check_limits(None, value, name)
        return value
    if setting == "attrs":
        try:
            return check_attrs(value if isinstance(value, (list, tuple)) else [value])
        except (ValueError, AttributeError, TypeError) as e:
            raise ValueError(f"[{name}] attrs: {e}") from None
    if setting == "context_clusters":
        return check_ks(value, name)
    raise KeyError(f"[{name}] no setting {setting!r}; the settings are {', '.join(SETTINGS)}")


def check_settings(values: Mapping[str, Any], name: str, settings: Iterable[str] = SETTINGS) -> Dict[str, Any]:
    """The `settings` of `values` (a config, a saved or hand-edited cfg) checked one by one and
    together, in normal form; the first bad one is a one-line ValueError naming it. A missing
    setting is checked as None (refused unless None is a permitted value)."""
    out = {s: check_setting(s, values.get(s), name) for s in settings}
    if out.get("context_tree") and out.get("context_clusters"):
        try:
            check_tree_ks(out["context_clusters"])
        except ValueError as e:
            raise ValueError(f"[{name}] context_clusters: {e}") from None
    return out


T = TypeVar("T")


class Setting(Generic[T]):
    """A setting as a typed attribute of a component (``parser.beam_width = 4``): stored in the
    component's `cfg`, where spaCy saves it, and checked by `check_setting` on every assignment,
    so a bad value is refused where it is written, not at the next prediction."""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.setting = attr

    def __get__(self, obj: Any, objtype: Optional[type] = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]  # the descriptor itself, on the class
        return obj.cfg[self.setting]

    def __set__(self, obj: Any, value: T) -> None:
        obj.cfg[self.setting] = check_setting(self.setting, value, obj.name)
