"""Saved weights carry checksums (`persist.checksums`): a flipped byte or a truncated file in a
saved tagger, boundary prior or joint parser (whose cfg holds the calibration) is a one-line error
at load naming the component and the file; a folder saved without checksums loads as before."""
import numpy
import pytest
import spacy
import srsly

import spacy_joint_sbd.pipeline.boundary_prior  # noqa: F401  (registers the factory)
from spacy_joint_sbd.persist import checksums

COMPONENTS = ("perceptron_tagger", "boundary_prior", "joint_sbd_parser")
TEXT = "so we went home it was late. then we slept and the dog barked all night"


@pytest.fixture(scope="module")
def saved(sample_examples, tmp_path_factory):
    """A small tagger + prior + parser pipeline (parser calibrated by hand) saved to disk."""
    _, examples = sample_examples
    nlp = spacy.blank("en")
    nlp.add_pipe("perceptron_tagger", config={"model": {"n_rows": 1 << 12}})
    nlp.add_pipe("boundary_prior", config={"model": {"n_rows": 1 << 12}})
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 2, "model": {"n_rows": 1 << 12}})
    train = examples[:6]
    nlp.initialize(lambda: train)
    nlp.update(train)
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = {"punctuated": [-1.0, 2.0, 0.5, 0.5, 1.0],
                                                           "unpunctuated": [-1.5, 2.5, 0.5, 0.5, 1.0]}
    path = tmp_path_factory.mktemp("checksums") / "m"
    nlp.to_disk(path)
    return nlp, path


def copy_of(path, dest):
    for component in (p for p in path.iterdir() if p.is_dir()):
        (dest / component.name).mkdir(parents=True)
        for f in component.iterdir():
            (dest / component.name / f.name).write_bytes(f.read_bytes())
    for f in (p for p in path.iterdir() if p.is_file()):
        (dest / f.name).write_bytes(f.read_bytes())
    return dest


def flip_a_byte(data: bytes) -> bytes:
    i = len(data) // 2
    return data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1:]


@pytest.mark.parametrize("component", COMPONENTS)
@pytest.mark.parametrize("file", ["model", "cfg"])
@pytest.mark.parametrize("damage", ["flipped", "truncated"])
def test_a_damaged_saved_file_is_a_one_line_error_naming_it(saved, tmp_path, component, file, damage):
    _, path = saved
    assert (path / component / checksums.FILE).is_file()
    model = copy_of(path, tmp_path / "m")
    target = model / component / file
    data = target.read_bytes()
    target.write_bytes(flip_a_byte(data) if damage == "flipped" else data[: len(data) - 7])
    with pytest.raises(ValueError) as err:
        spacy.load(model)
    message = str(err.value)
    assert message.startswith(f"[{component}] {target}: corrupted or changed since it was saved")
    assert "\n" not in message


def test_a_folder_saved_without_checksums_loads_unchecked(saved, tmp_path):
    nlp, path = saved
    model = copy_of(path, tmp_path / "m")
    for component in COMPONENTS:
        (model / component / checksums.FILE).unlink()
    loaded = spacy.load(model)
    want, got = nlp(TEXT), loaded(TEXT)
    assert [t.tag_ for t in got] == [t.tag_ for t in want]
    assert [(t.head.i, t.is_sent_start) for t in got] == [(t.head.i, t.is_sent_start) for t in want]
    assert numpy.array_equal(got._.boundary_probs, want._.boundary_probs)


def test_a_listed_file_that_is_missing_or_a_broken_checksums_file_is_refused(saved, tmp_path):
    _, path = saved
    model = copy_of(path, tmp_path / "m")
    (model / "boundary_prior" / checksums.FILE).write_text('{"sha256": {"cfg": "abc"}}')
    with pytest.raises(ValueError, match=r"^\[boundary_prior\] .*checksums.json: truncated or foreign checksums"):
        spacy.load(model)
    srsly.write_json(model / "boundary_prior" / checksums.FILE, {"sha256": {"head": "0" * 64}})
    with pytest.raises(ValueError, match=r"^\[boundary_prior\] .*head: missing, but checksums.json lists it"):
        spacy.load(model)


@pytest.mark.parametrize("component", COMPONENTS)
def test_damaged_bytes_are_refused_naming_the_part(saved, component):
    nlp, _ = saved
    pipe = nlp.get_pipe(component)
    msg = srsly.msgpack_loads(pipe.to_bytes())
    inner = srsly.msgpack_loads(msg["weights"]) if component == "boundary_prior" else msg
    assert set(inner[checksums.KEY]) >= {"cfg", "model"}
    inner["model"] = flip_a_byte(inner["model"])
    if component == "boundary_prior":
        msg["weights"] = srsly.msgpack_dumps(inner)
    with pytest.raises(ValueError, match=rf"^\[{component}\] bytes: part 'model' corrupted"):
        pipe.from_bytes(srsly.msgpack_dumps(msg))
    del inner[checksums.KEY]  # bytes saved before checksums: loaded unchecked
    inner["model"] = flip_a_byte(inner["model"])
    if component == "boundary_prior":
        msg["weights"] = srsly.msgpack_dumps(inner)
    pipe.from_bytes(srsly.msgpack_dumps(msg))
