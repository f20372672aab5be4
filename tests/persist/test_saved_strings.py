"""persist.saved_strings: a saved pipeline whose vocab keeps only its labels loads and predicts as
before, and bad paths or files are refused with the file named, the file left as it was."""
import shutil

import numpy
import pytest
import spacy
import srsly
from spacy.attrs import DEP, HEAD, SENT_START

from spacy_joint_sbd.persist.saved_strings import pipeline_labels, trim_strings

TEXTS = ["so we went home. it was late and then we slept",
         'Zyxwvut Qqqq said: "Flibbertigibbet!" Then nothing happened at all.\n\nThe end', "", "a"]


def test_a_trimmed_pipeline_predicts_the_same(trained_model_dir, tmp_path):
    trimmed = tmp_path / "trimmed"
    shutil.copytree(trained_model_dir, trimmed)
    full = spacy.load(trained_model_dir)
    labels = list(full.get_pipe("joint_sbd_parser").labels)
    assert pipeline_labels(full.pipe_labels) == labels
    before, after = trim_strings(trimmed, pipeline_labels(full.pipe_labels))
    assert after == len(labels) and before > 10 * after  # the training documents' strings went
    assert srsly.read_json(trimmed / "vocab" / "strings.json") == labels
    small = spacy.load(trimmed)
    for text in TEXTS:
        want, got = full(text), small(text)
        assert numpy.array_equal(got.to_array([HEAD, DEP, SENT_START]), want.to_array([HEAD, DEP, SENT_START]))
        assert [(t.text, t.dep_, t.head.i) for t in got] == [(t.text, t.dep_, t.head.i) for t in want]
        assert [t._.sent_start_prob for t in got] == [t._.sent_start_prob for t in want]


def test_pipeline_labels_once_each_in_order():
    assert pipeline_labels({"tagger": ["NN", "VB"], "parser": ["nsubj", "NN"], "tok2vec": []}) == ["NN", "VB", "nsubj"]


def test_bad_paths_and_files_are_refused(tmp_path):
    with pytest.raises(ValueError, match="strings.json does not exist"):
        trim_strings(tmp_path)
    target = tmp_path / "vocab" / "strings.json"
    target.parent.mkdir()
    for content, message in (('{"a": 1}', "holds a dict"), ("[1, 2", "is not JSON")):
        target.write_text(content, encoding="utf8")
        with pytest.raises(ValueError, match=message) as err:
            trim_strings(tmp_path, ["a"])
        assert str(target) in str(err.value)
        assert target.read_text(encoding="utf8") == content
    target.write_text('["x", "y"]', encoding="utf8")
    with pytest.raises(ValueError, match="keep must be strings"):
        trim_strings(tmp_path, ["a", 1])
    assert srsly.read_json(target) == ["x", "y"]
    assert trim_strings(tmp_path, ["b", "a", "b"]) == (2, 2)
    assert srsly.read_json(target) == ["b", "a"] and not list(target.parent.glob("*.trim"))
