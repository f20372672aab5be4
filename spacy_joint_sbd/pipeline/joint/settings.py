"""The joint parser's settings, declared once: `JointSettings`, one typed field per setting with
its default, its rule and how a saved pipeline treats it. The component's default config, the
factory's signature (which spaCy's config validation reads), the constructor, validation and
loading are all derived from it.

A setting reads the same however it arrives (the factory's config, a saved `cfg`, a hand edit of
`cfg`, an attribute assignment such as ``parser.sb_bias = -0.5``): the same check and the same
one-line message, ``[component] setting must be …, got …``, and the same normal form (attribute
names upper-cased, biases as floats). The component's `cfg` stays the one place spaCy saves them,
beside what training learns (labels, clusters, calibration).
"""
import dataclasses
import inspect
import math
import numbers
from typing import Any, Callable, Dict, Generic, Iterable, List, Literal, Mapping, Optional, Tuple, TypeVar, get_args

from ...context.clusters import check_ks
from ...context.kmeans import check_tree_ks
from ...transition import DEFAULT_ATTRS, UPDATES
from ...transition.beam import MAX_BEAM_WIDTH, MAX_HEAD_CANDIDATES
from .doc_encoding import check_attrs
from .sentence_limits import check_limits

Update = Literal["dlaso", "laso", "max_violation", "early", "greedy"]
"""The search's update strategies (`transition.UPDATES`): in the factory's signature, so that
spaCy's config validation names the permitted values."""
SBOracle = Literal["early", "late"]
Learner = Literal["pa", "perceptron"]
LEARNERS = get_args(Learner)


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


def _candidates(value: Any) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or not 0 <= value <= MAX_HEAD_CANDIDATES:
        raise TypeError(f"an int in [0, {MAX_HEAD_CANDIDATES}]")
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


def _threshold(value: Any, name: str) -> Optional[float]:
    check_limits(value, None, name)
    return None if value is None else float(value)


def _max_length(value: Any, name: str) -> Optional[int]:
    check_limits(None, value, name)
    return value


def _attrs(value: Any, name: str) -> List[str]:
    try:
        return check_attrs(value if isinstance(value, (list, tuple)) else [value])
    except (ValueError, AttributeError, TypeError) as e:
        raise ValueError(f"[{name}] attrs: {e}") from None


PREDICTION = "prediction"
"""A setting that changes prediction only: `spacy.load(..., config=...)` sets it over the saved
cfg, and it is a typed attribute of the component (``parser.sb_bias = -0.5``)."""
TRAINING = "training"
"""A setting fixed once the model is trained: a saved cfg's value wins over the config's."""


def setting(default: Any, rule: Callable[..., Any], kind: str, *, named_rule: bool = False,
            from_bytes: bool = True, since_first_version: bool = False) -> Any:
    """One setting's field of `JointSettings`.

    rule: the value in normal form, or TypeError(what the value must be) (`named_rule`: the rule
        takes the component's name and raises the whole ValueError itself).
    kind: `PREDICTION` or `TRAINING`.
    from_bytes: (prediction settings) a component loaded from bytes keeps its own value, as from
        disk; False: the saved one is taken (the beam width: a component built with default
        settings often receives the bytes).
    since_first_version: every saved cfg holds it; otherwise a cfg saved before the setting
        existed means its default (the behaviour of the version that saved it).
    """
    factory = (lambda: list(default)) if isinstance(default, (list, tuple)) else None
    meta = {"rule": rule, "kind": kind, "named_rule": named_rule, "from_bytes": from_bytes,
            "since_first_version": since_first_version}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclasses.dataclass
class JointSettings:
    """The joint parser's settings, each declared once: its type, its default, its rule and how a
    saved pipeline treats it (see `setting`). What each does: `make_joint_sbd_parser`.

    The fields' order is the order of the component's saved `cfg`."""

    beam_width: int = setting(20, _beam, PREDICTION, from_bytes=False, since_first_version=True)
    sb_bias: float = setting(0.0, _bias, PREDICTION)
    sb_bias_unpunctuated: Optional[float] = setting(None, _optional_bias, PREDICTION)
    sb_bias_unmarked: float = setting(0.0, _bias, PREDICTION)
    prior_weight: float = setting(0.0, _weight, PREDICTION)
    threshold: Optional[float] = setting(None, _threshold, PREDICTION, named_rule=True)
    max_length: Optional[int] = setting(None, _max_length, PREDICTION, named_rule=True)
    update: Update = setting("dlaso", _choice(UPDATES), TRAINING, since_first_version=True)
    sb_oracle: SBOracle = setting("early", _choice(get_args(SBOracle)), TRAINING, since_first_version=True)
    learner: Learner = setting("pa", _choice(LEARNERS), TRAINING, since_first_version=True)
    pa_c: float = setting(1.0, _positive, TRAINING, since_first_version=True)
    attrs: List[str] = setting(DEFAULT_ATTRS, _attrs, TRAINING, named_rule=True, since_first_version=True)
    document_level: bool = setting(True, _flag, TRAINING, since_first_version=True)
    context_clusters: Optional[List[int]] = setting([], check_ks, TRAINING, named_rule=True)
    context_tree: bool = setting(False, _flag, TRAINING)
    prior_features: bool = setting(False, _flag, TRAINING)
    head_candidates: int = setting(0, _candidates, TRAINING)


FIELDS: Dict[str, dataclasses.Field] = {f.name: f for f in dataclasses.fields(JointSettings)}
SETTINGS: Tuple[str, ...] = tuple(FIELDS)
"""Every setting, in the order of the saved `cfg`."""
PREDICTION_SETTINGS: Tuple[str, ...] = tuple(s for s, f in FIELDS.items() if f.metadata["kind"] == PREDICTION)
"""Settings `spacy.load(..., config=...)` sets over the saved cfg (they change prediction only)."""
TRAINING_SETTINGS: Tuple[str, ...] = tuple(s for s, f in FIELDS.items() if f.metadata["kind"] == TRAINING)
"""Settings fixed once the model is trained: a saved cfg's values win over the config's."""
KEPT_FROM_BYTES: Tuple[str, ...] = tuple(s for s in PREDICTION_SETTINGS if FIELDS[s].metadata["from_bytes"])
"""Prediction settings a component loaded from bytes keeps as it was built (all but the beam)."""


def defaults() -> Dict[str, Any]:
    """Every setting's default, fresh (lists are new lists): the component's default config."""
    return dataclasses.asdict(JointSettings())


LOAD_DEFAULTS: Dict[str, Any] = {s: v for s, v in defaults().items() if not FIELDS[s].metadata["since_first_version"]}
"""What a cfg saved before a setting existed means by its absence (no prior, no limits, flat
clusters): the behaviour of the version that saved it."""


def check_setting(setting: str, value: Any, name: str) -> Any:
    """`value` in normal form as the setting `setting` of the component `name`, or a one-line
    ValueError naming both: ``[name] setting must be …, got …``."""
    field = FIELDS.get(setting)
    if field is None:
        raise KeyError(f"[{name}] no setting {setting!r}; the settings are {', '.join(SETTINGS)}")
    rule = field.metadata["rule"]
    if field.metadata["named_rule"]:
        return rule(value, name)
    try:
        return rule(value)
    except TypeError as e:
        raise ValueError(f"[{name}] {setting} must be {e}, got {value!r}") from None


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


def factory_signature(leading: Iterable[inspect.Parameter], trailing: Iterable[inspect.Parameter],
                      returns: Any) -> inspect.Signature:
    """A factory's signature: `leading` parameters, then every setting as a typed keyword with its
    default (what spaCy's config system validates a config against), then `trailing`."""
    settings = [inspect.Parameter(s, inspect.Parameter.KEYWORD_ONLY, annotation=f.type,
                                  default=defaults()[s]) for s, f in FIELDS.items()]
    keyword = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in trailing]
    return inspect.Signature([*leading, *settings, *keyword], return_annotation=returns)


T = TypeVar("T")


class Setting(Generic[T]):
    """A setting as a typed attribute of a component (``parser.beam_width = 4``): stored in the
    component's `cfg`, where spaCy saves it, and checked by `check_setting` on every assignment,
    so a bad value is refused where it is written, not at the next prediction."""

    def __init__(self, setting: Optional[str] = None) -> None:
        if setting is not None:
            self.setting = setting

    def __set_name__(self, owner: type, attr: str) -> None:
        self.setting = attr

    def __get__(self, obj: Any, objtype: Optional[type] = None) -> T:
        if obj is None:
            return self  # type: ignore[return-value]  # the descriptor itself, on the class
        return obj.cfg[self.setting]

    def __set__(self, obj: Any, value: T) -> None:
        obj.cfg[self.setting] = check_setting(self.setting, value, obj.name)
