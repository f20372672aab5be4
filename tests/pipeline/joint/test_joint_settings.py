"""The joint parser's settings are checked by one validator however they arrive:
the factory's config, a saved cfg, a hand edit of `cfg` before prediction, an attribute."""
import math
import re

import pytest
import spacy

from spacy_joint_sbd.pipeline.joint.settings import (LOAD_DEFAULTS, PREDICTION_SETTINGS, SETTINGS, check_setting,
                                                     check_settings)

BAD = [("beam_width", 0), ("beam_width", True), ("beam_width", 2.5), ("beam_width", 65537), ("sb_bias", math.nan), ("sb_bias", "8"),
       ("sb_bias", None), ("sb_bias_unpunctuated", math.inf), ("sb_bias_unmarked", None), ("prior_weight", -1.0),
       ("threshold", 1.5),
       ("max_length", 0), ("update", "beam"), ("sb_oracle", "middle"), ("learner", "svm"), ("pa_c", 0.0),
       ("attrs", ["NORM", "NOT_AN_ATTR"]), ("document_level", 1), ("context_clusters", [0]),
       ("context_tree", "yes"), ("prior_features", None)]


def blank_parser(**config):
    return spacy.blank("en").add_pipe("joint_sbd_parser", config=config)


@pytest.mark.parametrize("setting,value", BAD)
def test_each_bad_setting_is_refused_the_same_way_wherever_it_arrives(setting, value):
    with pytest.raises(ValueError, match=rf"^\[p\] {setting}") as direct:
        check_setting(setting, value, "p")
    message = str(direct.value).replace("[p]", "[joint_sbd_parser]")
    assert "\n" not in message
    parser = blank_parser()
    cfg = dict(parser.cfg, **{setting: value})
    with pytest.raises(ValueError) as loaded:
        parser._check_cfg(cfg, "somewhere/cfg")
    assert message in str(loaded.value) and "somewhere/cfg" in str(loaded.value)
    if setting in PREDICTION_SETTINGS:
        with pytest.raises(ValueError) as assigned:
            setattr(parser, setting, value)
        assert str(assigned.value) == message
        parser.cfg[setting] = value  # a hand edit: refused at the next prediction
        with pytest.raises(ValueError, match="^" + re.escape(message)):
            parser.predict([spacy.blank("en")("a b")])


def test_the_constructor_refuses_what_spacys_config_check_lets_through():
    """Values whose types pass spaCy's config check (a finite float for `pa_c`, ints for the
    clusters) still meet the same rules in the constructor."""
    with pytest.raises(ValueError, match=r"\[joint_sbd_parser\] pa_c must be a finite number > 0, got -1.0"):
        blank_parser(pa_c=-1.0)
    with pytest.raises(ValueError, match=r"\[joint_sbd_parser\] context_clusters: .*divide"):
        blank_parser(context_clusters=[16, 24], context_tree=True)


def test_attributes_are_typed_views_of_the_saved_cfg(tmp_path):
    nlp = spacy.blank("en")
    parser = nlp.add_pipe("joint_sbd_parser")
    parser.sb_bias = -1  # normal form: a float, as the config would give it
    parser.beam_width = 4
    parser.threshold = 1
    assert parser.cfg["sb_bias"] == -1.0 and isinstance(parser.cfg["sb_bias"], float)
    assert (parser.beam_width, parser.threshold, parser.max_length) == (4, 1.0, None)
    assert type(parser).sb_bias.setting == "sb_bias"  # the descriptor, on the class


def test_a_cfg_saved_before_a_setting_existed_loads_with_its_old_meaning():
    parser = blank_parser()
    cfg = {k: v for k, v in parser.cfg.items() if k not in LOAD_DEFAULTS}
    checked = parser._check_cfg(cfg, "old/cfg")
    assert {k: checked[k] for k in LOAD_DEFAULTS} == LOAD_DEFAULTS
    for required in ("update", "beam_width", "attrs"):
        partial = {k: v for k, v in parser.cfg.items() if k != required}
        with pytest.raises(ValueError, match=f"old/cfg: truncated or foreign cfg .*{required}"):
            parser._check_cfg(partial, "old/cfg")


def test_check_settings_normalises_and_names_unknown_settings():
    out = check_settings(dict(blank_parser().cfg, attrs=["norm", "Shape"], sb_bias=2), "p")
    assert out["attrs"] == ["NORM", "SHAPE"] and out["sb_bias"] == 2.0 and set(out) == set(SETTINGS)
    with pytest.raises(KeyError, match="no setting 'beam'"):
        check_setting("beam", 8, "p")


def test_a_beam_wider_than_the_engine_takes_is_refused_at_load(trained_model_dir):
    """The engine's widest beam (`transition.beam.MAX_BEAM_WIDTH`) is the setting's limit, so a
    config override past it fails in `spacy.load`, not at the first parse."""
    from spacy_joint_sbd.transition.beam import MAX_BEAM_WIDTH

    assert check_setting("beam_width", MAX_BEAM_WIDTH, "p") == MAX_BEAM_WIDTH
    with pytest.raises(ValueError, match=rf"beam_width must be an int in \[1, {MAX_BEAM_WIDTH}\], got 65537"):
        spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"beam_width": 65537}}})
