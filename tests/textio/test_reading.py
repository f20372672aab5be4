"""`textio.reading`: every problem of an input named at its place in the whole input (the byte of a
bad sequence, the character of a lone surrogate), non-text codecs refused, a byte-order mark kept
out of the first token, and CoNLL-U written as the sentences come."""
import io
import json
import re

import pytest
import spacy

from spacy_joint_sbd.corpus.writer import write_records
from spacy_joint_sbd.segment import Sentence, segment_text
from spacy_joint_sbd.textio import InputError, Writer, check_decodable, check_settings, segment_files, sentences_to_record


@pytest.fixture(scope="module")
def rules_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def test_a_bad_byte_is_named_at_its_offset_in_the_file(rules_nlp, tmp_path):
    """A short file is decoded in chunks too: the offset counts from the file's start."""
    good = ("Привет мир. " * 1200)[:14000].encode("utf-8")
    path = tmp_path / "cyrillic.txt"
    path.write_bytes(good + b"\xff")
    with pytest.raises(InputError, match=f"cyrillic.txt: not valid utf-8 at byte {len(good)} "):
        segment_files(rules_nlp, [str(path)], io.StringIO(), progress=False)


def test_truncated_data_is_named_where_it_starts(rules_nlp, tmp_path):
    path = tmp_path / "odd.txt"
    path.write_bytes("Hello world.".encode("utf-16-le") + b"x")
    with pytest.raises(InputError, match=r"odd.txt: not valid utf-16-le at byte 24 \(truncated data\)"):
        segment_files(rules_nlp, [str(path)], io.StringIO(), encoding="utf-16-le", progress=False)
    with pytest.raises(UnicodeDecodeError) as e:
        check_decodable(str(path), "utf-16-le", chunk=5)
    assert e.value.start == 24


def test_a_lone_surrogate_is_named_at_its_character_in_the_input(rules_nlp, tmp_path):
    """utf-7 (and unicode_escape) can decode to a lone surrogate, which no writer can encode: an
    input error naming its character in the whole input, in a streamed file and from a stream."""
    text = "Fine words here. " * 600
    path = tmp_path / "seven.txt"
    path.write_bytes(text.encode("utf-7") + b"+2AA- end.")
    where = re.escape(f"lone surrogate U+D800 at character {len(text)},")
    with pytest.raises(InputError, match=f"seven.txt: not valid utf-7: it decodes to a {where}"):
        segment_files(rules_nlp, [str(path)], io.StringIO(), encoding="utf-7", window_chars=1000, progress=False)
    from spacy_joint_sbd.textio import TextReader

    reader = TextReader("-", io.BytesIO(path.read_bytes()), "utf-7")
    with pytest.raises(InputError, match=f"stdin: not valid utf-7: .* {where}"):
        while reader.read(100):
            pass


@pytest.mark.parametrize("codec", ["rot13", "base64", "hex"])
def test_a_codec_that_does_not_decode_text_is_refused(codec):
    with pytest.raises(ValueError, match=f"encoding '{codec}' is not a text encoding"):
        check_settings("lines", False, codec, 64, 1, 20_000)


def test_a_byte_order_mark_is_no_part_of_a_sentence(rules_nlp, tmp_path):
    """A UTF-8 BOM is read as whitespace: no token carries it, offsets still count it."""
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfThe cat sat. The dog ran.")
    out = io.StringIO()
    segment_files(rules_nlp, [str(path)], out, fmt="jsonl", with_parse=True, progress=False)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    original = path.read_text(encoding="utf-8")
    assert [r["text"] for r in records] == ["The cat sat.", "The dog ran."]
    assert records[0]["start_char"] == 1 and records[0]["tokens"][0]["text"] == "The"
    assert all(original[r["start_char"]:r["end_char"]] == r["text"] for r in records)


def test_a_named_file_that_does_not_decode_stops_the_run_before_any_output(rules_nlp, tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("One sentence. Two.", encoding="utf-8")
    bad.write_bytes(b"caf\xe9 au lait.")
    out = io.StringIO()
    with pytest.raises(InputError, match=r"bad\.txt: not valid utf-8 at byte 3"):
        segment_files(rules_nlp, [str(good), str(bad)], out, skippable=(), progress=False)
    assert out.getvalue() == ""
    stats = segment_files(rules_nlp, [str(good), str(bad)], out, skippable={str(bad)}, warn=lambda _: None,
                          progress=False)
    assert stats.extra["skipped"] == 1 and stats.sentences == 2


def test_conllu_is_written_sentence_by_sentence(trained_nlp):
    """Memory stays flat on a long input: each sentence is out before the next is asked for, and
    the document reads as one record of all its sentences did."""
    sents = segment_text(trained_nlp, "hello there friend. how are you today? fine thanks.", "x", with_parse=True)
    assert len(sents) > 1
    out = io.StringIO()

    def produce():
        for k, s in enumerate(sents):
            if k:
                assert out.getvalue().count("# sent_id") == k
            yield s

    assert Writer(out, "conllu").write("x", produce()) == len(sents)
    whole = io.StringIO()
    write_records([sentences_to_record("x", sents)], whole)
    assert out.getvalue() == whole.getvalue()


def test_conllu_leaves_a_sentence_of_whitespace_tokens_out():
    out = io.StringIO()
    blank = Sentence("x", 0, 1, " ", tokens=[{"text": " ", "start_char": 0, "end_char": 1, "head": -1,
                                               "dep": "root", "tag": None}])
    word = Sentence("x", 2, 4, "Hi", tokens=[{"text": "Hi", "start_char": 2, "end_char": 4, "head": -1,
                                               "dep": "root", "tag": None}])
    Writer(out, "conllu").write("x", iter([blank, word]))
    assert "# sent_id = x-0001\n# text = Hi\n" in out.getvalue() and "x-0002" not in out.getvalue()


def test_a_pattern_may_not_leave_its_folder(tmp_path):
    from spacy_joint_sbd.textio import find_inputs

    (tmp_path / "d").mkdir()
    (tmp_path / "x.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="inside its folder"):
        find_inputs([str(tmp_path / "d")], "../*.txt")
