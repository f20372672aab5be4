"""`textio.segment_files`: what the `segment` command writes, importable without the CLI; files
in every format, stdin-free, bad inputs skipped with a warning or raised, bad settings refused."""
import io
import json
import subprocess
import sys

import pytest
import spacy

from spacy_joint_sbd.segment import segment_text
from spacy_joint_sbd.textio import InputError, Writer, check_decodable, segment_files, sentences_to_record


@pytest.fixture(scope="module")
def rules_nlp():
    """Boundaries from local text only (spaCy's sentencizer): fast and deterministic."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def _texts(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("One sentence here. Another one follows!\r\nA third?", encoding="utf-8", newline="")
    b.write_text("Short. " * 400, encoding="utf-8")  # longer than the window below: streamed
    return [str(a), str(b)]


@pytest.mark.parametrize("fmt", ["lines", "jsonl", "conllu"])
def test_segment_files_writes_what_the_cli_writes(trained_model_dir, tmp_path, fmt):
    sources = _texts(tmp_path)
    nlp = spacy.load(trained_model_dir)
    out = io.StringIO()
    stats = segment_files(nlp, sources, out, fmt=fmt, window_chars=1000, progress=False)
    cli = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", str(trained_model_dir), *sources,
                          "--format", fmt, "--window-chars", "1000"], capture_output=True, text=True, check=True)
    assert out.getvalue() == cli.stdout and stats.sentences > 2
    assert stats.windows >= 1  # b.txt went through segment_stream


def test_jsonl_offsets_index_each_file_exactly(rules_nlp, tmp_path):
    sources = _texts(tmp_path)
    out = io.StringIO()
    segment_files(rules_nlp, sources, out, fmt="jsonl", with_parse=True, window_chars=1000, progress=False)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    texts = {s: open(s, encoding="utf-8", newline="").read() for s in sources}
    assert {r["source"] for r in records} == set(sources)
    for r in records:
        assert texts[r["source"]][r["start_char"]:r["end_char"]] == r["text"]
    assert records[2]["text"] == "A third?" and records[2]["start_char"] == 41  # CRLF counts two characters


def test_a_bad_file_among_many_is_skipped_with_a_warning(rules_nlp, tmp_path):
    sources = _texts(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"caf\xe9 au lait.")
    warned = []
    out = io.StringIO()
    stats = segment_files(rules_nlp, [sources[0], str(bad)], out, warn=warned.append, progress=False)
    assert stats.extra["skipped"] == 1 and stats.sentences == 3
    assert warned == [f"skipped {bad}: not valid utf-8 at byte 3 (invalid continuation byte); "
                      "give the right --encoding"]
    with pytest.raises(InputError, match=r"bad\.txt: not valid utf-8 at byte 3"):
        segment_files(rules_nlp, [str(bad)], io.StringIO(), progress=False)
    with pytest.warns(UserWarning, match="skipped"):  # the default: Python warnings
        segment_files(rules_nlp, [sources[0], str(tmp_path / "gone.txt")], io.StringIO(), progress=False)


def test_a_long_undecodable_file_writes_nothing_of_itself(rules_nlp, tmp_path):
    bad = tmp_path / "long.txt"
    bad.write_bytes(b"Fine words. " * 500 + b"\xff")
    out = io.StringIO()
    with pytest.raises(InputError, match="at byte 6000"):
        segment_files(rules_nlp, [str(bad)], out, window_chars=100, progress=False)
    assert out.getvalue() == ""


@pytest.mark.parametrize("kwargs, message", [
    ({"fmt": "xml"}, "fmt must be one of lines, jsonl, conllu, html, got 'xml'"),
    ({"with_parse": True}, "with_parse needs fmt jsonl or conllu"),
    ({"batch_size": 0}, "batch_size must be a positive integer, got 0"),
    ({"window_chars": True}, "window_chars must be a positive integer, got True"),
    ({"encoding": "foo-9"}, "encoding 'foo-9' is not an encoding Python knows"),
])
def test_bad_settings_are_refused_before_reading(rules_nlp, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        segment_files(rules_nlp, ["does-not-matter.txt"], io.StringIO(), **kwargs)


def test_stdin_only_once(rules_nlp):
    with pytest.raises(InputError, match="only once"):
        segment_files(rules_nlp, ["-", "-"], io.StringIO(), progress=False)


def test_writer_refuses_an_unknown_format():
    with pytest.raises(ValueError, match="format must be one of"):
        Writer(io.StringIO(), "csv")


def test_check_decodable_names_the_byte_offset(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes(b"a" * 10 + b"\xff")
    with pytest.raises(UnicodeDecodeError) as e:
        check_decodable(str(path), "utf-8", chunk=4)
    assert e.value.start == 10


def test_conllu_record_drops_whitespace_tokens(trained_nlp):
    sents = segment_text(trained_nlp, "hello   there\n\nfriend", "x", with_parse=True)
    rec = sentences_to_record("x", sents)
    assert all(w.strip() for w in rec.words)
    assert all(h == -1 or 0 <= h < len(rec.words) for h in rec.heads)


@pytest.mark.parametrize("brk", list("\v\f\x1c\x1d\x1e\x85\u2028\u2029") + ["\n", "\r\n", " \f\n"])
def test_one_sentence_a_line_for_every_line_break_splitlines_knows(rules_nlp, tmp_path, brk):
    """`lines` and `jsonl` keep one sentence per line as `str.splitlines` reads them: a page break
    (`\\f`) or U+2028 inside a sentence used to come out raw and split its line in two."""
    from spacy_joint_sbd.textio.writing import LINE_BREAKS

    assert set(LINE_BREAKS) == {c for c in map(chr, range(0x3000)) if len(f"a{c}b".splitlines()) == 2}
    path = tmp_path / "t.txt"
    text = f"The first{brk}sentence ends here. The second{brk}one ends too."
    path.write_text(text, encoding="utf-8", newline="")
    for fmt in ("lines", "jsonl"):
        out = io.StringIO()
        stats = segment_files(rules_nlp, [str(path)], out, fmt=fmt, progress=False)
        lines = out.getvalue().splitlines()
        assert stats.sentences == 2 and len(lines) == 2, (fmt, lines)
        if fmt == "jsonl":
            for r in map(json.loads, lines):
                assert text[r["start_char"]:r["end_char"]] == r["text"] and brk.strip(" ") in r["text"]
        else:
            assert lines[0] == "The first sentence ends here."
