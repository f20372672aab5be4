"""Fuzzing the library's input edges with Hypothesis: the CoNLL-U reader on randomly corrupted real
files, model loading on truncated and bit-flipped model files, and `segment` on arbitrary text.

Each property allows exactly the clear errors the library promises (a `ConllUError` naming the file
and line, a `ValueError` naming the model file) or success with valid output; anything else — or a
crash of the interpreter — fails. The normal run replays a small derandomised set (the same every
time); set SJS_FUZZ_EXAMPLES (e.g. 2000) or `--fuzz-examples` for a longer campaign with fresh
examples (`python -m spacy project run fuzz`).
"""
import os
import random
import shutil
import tempfile
from pathlib import Path

import spacy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_joint_sbd.corpus import ConllUError, read_conllu
from spacy_joint_sbd.segment import segment_text
from treebanks import SAMPLE

CAMPAIGN = "SJS_FUZZ_EXAMPLES" in os.environ
EXAMPLES = int(os.environ.get("SJS_FUZZ_EXAMPLES", "40"))
# the test suite replays the same examples every run (reproducible CI); a campaign draws new ones
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not CAMPAIGN,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
LINES = SAMPLE.read_text(encoding="utf8").split("\n")[:400]  # the first documents of the sample


def corrupt(lines, seed: int, n_edits: int):
    """Random line-level and character-level damage, as real broken files show it."""
    rng = random.Random(seed)
    lines = list(lines)
    for _ in range(n_edits):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        kind = rng.randrange(7)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 2:  # one column replaced by garbage
            cols = lines[i].split("\t")
            cols[rng.randrange(len(cols))] = rng.choice(["", "_", "-1", "0", "999", "x", "1-", "3.1", "\u00e9"])
            lines[i] = "\t".join(cols)
        elif kind == 3:  # columns lost
            lines[i] = "\t".join(lines[i].split("\t")[: rng.randrange(10)])
        elif kind == 4:
            lines[i] = ""
        elif kind == 5:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines = lines[:i]  # truncated file
            if not lines:
                lines = [""]
    return "\n".join(lines)


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), n_edits=st.integers(1, 6), raw=st.booleans())
def test_conllu_reader_on_corrupted_real_files(tmp_path, seed, n_edits, raw):
    with tempfile.TemporaryDirectory(dir=tmp_path) as tmp:  # removed after each example
        check_corrupted_file(Path(tmp) / "corrupt.conllu", seed, n_edits, raw)


def check_corrupted_file(path, seed, n_edits, raw):
    data = corrupt(LINES, seed, n_edits).encode("utf8")
    if raw:  # byte-level damage too: invalid UTF-8, NUL bytes
        rng = random.Random(seed)
        b = bytearray(data)
        for _ in range(3 if b else 0):
            b[rng.randrange(len(b))] = rng.choice([0x00, 0xFF, 0xC3, 0x09, 0x0A])
        data = bytes(b)
    path.write_bytes(data)
    try:
        records = read_conllu(path)
    except ConllUError as e:
        assert str(path) in str(e)  # the message names the file (and line)
        return
    for rec in records:  # accepted: every document is a forest of sentence trees
        for s, e in rec.sentences():
            roots = [i for i in range(s, e) if rec.heads[i] == -1]
            assert len(roots) == 1
            assert all(h == -1 or s <= h < e for h in rec.heads[s:e])


@FUZZ
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(["truncate", "flip", "cfg"]))
def test_model_loading_on_damaged_files(trained_model_dir, tmp_path, seed, mode):
    with tempfile.TemporaryDirectory(dir=tmp_path) as tmp:  # a model copy per example: removed after it
        check_damaged_model(trained_model_dir, Path(tmp) / "model", seed, mode)


def check_damaged_model(source, path, seed, mode):
    rng = random.Random(seed)
    shutil.copytree(source, path)
    target = path / "joint_sbd_parser" / ("cfg" if mode == "cfg" else "model")
    data = bytearray(target.read_bytes())
    if mode == "truncate":
        data = data[: rng.randrange(max(1, len(data)))]
    else:
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    target.write_bytes(bytes(data))
    try:
        nlp = spacy.load(path)
    except ValueError as e:
        assert "joint_sbd_parser" in str(e)  # names the component (and the file)
        return
    # a flip that keeps the file loadable (e.g. inside a float) must still give valid trees
    doc = nlp("so i went to the store they had no milk")
    for sent in doc.sents:
        assert sum(t.head.i == t.i for t in sent) == 1


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


@FUZZ
@given(text=TEXT)
def test_segment_offsets_on_arbitrary_text(trained_nlp, text):
    sents = segment_text(trained_nlp, text, with_parse=True)
    last = 0
    for s in sents:
        assert text[s.start_char:s.end_char] == s.text and s.text.strip() == s.text and s.text
        assert s.start_char >= last
        last = s.end_char
        for t in s.tokens:
            assert text[t["start_char"]:t["end_char"]] == t["text"]
