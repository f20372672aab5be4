"""Shared checks: a component given truncated or foreign model data fails with one clear error
naming the path, loads nothing half-way, and still loads a good model afterwards."""
import pytest
import spacy
import srsly

MODEL_KINDS = ["truncated", "garbage", "foreign", "empty"]
BYTES_KINDS = ["truncated", "garbage", "foreign", "foreign_model", "empty"]
FOLDER_FILES = [(), ("cfg",), ("model",)]


def copy_with_model(saved, dest, model_bytes):
    dest.mkdir()
    (dest / "cfg").write_bytes((saved / "cfg").read_bytes())
    (dest / "model").write_bytes(model_bytes)
    return dest


def check_bad_model_file(factory, path, tmp_path, kind):
    good = (path / "model").read_bytes()
    data = {"truncated": good[: len(good) // 2], "garbage": b"\x00not a model\xff" * 7,
            "foreign": srsly.msgpack_dumps({"W": b"1234"}), "empty": b""}[kind]
    bad = copy_with_model(path, tmp_path / "bad", data)
    pipe = spacy.blank("en").add_pipe(factory)
    cfg = dict(pipe.cfg)
    with pytest.raises(ValueError, match="truncated or foreign") as err:
        pipe.from_disk(bad)
    assert str(bad / "model") in str(err.value)
    assert pipe.cfg == cfg  # nothing half-loaded
    pipe.from_disk(path)  # still loads a good model afterwards


def check_folder_without(factory, path, tmp_path, files):
    for name in files:
        (tmp_path / name).write_bytes((path / name).read_bytes())
    with pytest.raises(ValueError, match="truncated or foreign") as err:
        spacy.blank("en").add_pipe(factory).from_disk(tmp_path)
    assert str(tmp_path) in str(err.value)


def check_bad_cfg(factory, path, tmp_path):
    bad = copy_with_model(path, tmp_path / "bad", (path / "model").read_bytes())
    (bad / "cfg").write_text('{"order": ')
    with pytest.raises(ValueError, match="truncated or foreign") as err:
        spacy.blank("en").add_pipe(factory).from_disk(bad)
    assert str(bad / "cfg") in str(err.value)


def check_bad_bytes(factory, good, kind):
    data = {"truncated": good[: len(good) // 2], "garbage": b"\x00not a model\xff" * 7,
            "foreign": srsly.msgpack_dumps({"labels": ["nsubj"]}),
            "foreign_model": srsly.msgpack_dumps({"cfg": {}, "model": srsly.msgpack_dumps([1, 2])}),
            "empty": b""}[kind]
    pipe = spacy.blank("en").add_pipe(factory)
    with pytest.raises(ValueError, match="truncated or foreign"):
        pipe.from_bytes(data)
    pipe.from_bytes(good)


def bad_model_tests(factory):
    """The tests of these checks for one component, for a test module to bind at module level:
    ``saved, test_bad_model_file, test_folder_without_cfg_or_model, test_bad_cfg_file,
    test_bad_bytes = bad_model_tests("fragment_parser")``. The module supplies a `trained` fixture
    giving (nlp, ...) with the component trained; `saved` is its folder and bytes."""

    @pytest.fixture(scope="module")
    def saved(trained, tmp_path_factory):
        nlp = trained[0]
        path = tmp_path_factory.mktemp("saved") / factory
        nlp.get_pipe(factory).to_disk(path)
        return path, nlp.get_pipe(factory).to_bytes()

    @pytest.mark.parametrize("kind", MODEL_KINDS)
    def test_bad_model_file(saved, tmp_path, kind):
        check_bad_model_file(factory, saved[0], tmp_path, kind)

    @pytest.mark.parametrize("files", FOLDER_FILES)
    def test_folder_without_cfg_or_model(saved, tmp_path, files):
        check_folder_without(factory, saved[0], tmp_path, files)

    def test_bad_cfg_file(saved, tmp_path):
        check_bad_cfg(factory, saved[0], tmp_path)

    @pytest.mark.parametrize("kind", BYTES_KINDS)
    def test_bad_bytes(saved, kind):
        check_bad_bytes(factory, saved[1], kind)

    return saved, test_bad_model_file, test_folder_without_cfg_or_model, test_bad_cfg_file, test_bad_bytes
