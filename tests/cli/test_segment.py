"""`segment`: raw text in, sentences out — files, folders, stdin, every format, exact offsets,
streaming in windows, and bad input."""
import io
import json
import subprocess
import sys

import pytest

from spacy.tokens import Doc

from spacy_joint_sbd.segment import SegmentStats, doc_sentences, segment_stream, segment_text

AWKWARD = ("so i went to the store   they had no milk left\n\ni asked the clerk about it\t"
           "she said the truck comes on tuesdays  Ünïcödé café — naïve résumé 🙂 ok\r\nthanks i will call you")


def run(*args, stdin=None, check=True):
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", *map(str, args)],
                          capture_output=True, text=True, input=stdin)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def assert_exact(text, sentences):
    """Offsets index the text exactly, in order, without overlap, covering every non-space char."""
    last = 0
    covered = set()
    for s in sentences:
        assert text[s.start_char:s.end_char] == s.text
        assert s.start_char >= last and s.text == s.text.strip() and s.text
        last = s.end_char
        covered.update(range(s.start_char, s.end_char))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_offsets_exact_on_awkward_whitespace_and_unicode(trained_nlp):
    sents = segment_text(trained_nlp, AWKWARD, "x", with_parse=True)
    assert_exact(AWKWARD, sents)
    for s in sents:
        assert sum(t["head"] == -1 for t in s.tokens) >= 1
        for t in s.tokens:
            assert AWKWARD[t["start_char"]:t["end_char"]] == t["text"]


def test_doc_sentences_from_the_callers_text_trim_whitespace_at_the_edges(trained_nlp):
    """The sentences found from the caller's text and one array of the Doc's offsets: whitespace
    tokens at a sentence's edges left out, a whitespace-only sentence dropped, offsets shifted;
    the same as from `Doc.text`; a text of another length refused."""
    words = ["\n", "Hello", "there", ".", "  ", "Bye", "now", "\n\n", "\t"]
    spaces = [False, True, False, True, False, True, False, False, False]
    doc = Doc(trained_nlp.vocab, words=words, spaces=spaces,
              sent_starts=[True, False, False, False, True, False, False, False, True])
    text = doc.text
    got = doc_sentences(doc, "src", offset=10, text=text)
    assert [(s.text, s.start_char, s.end_char, s.source) for s in got] == [
        ("Hello there.", 11, 23, "src"), ("Bye now", 26, 33, "src")]
    assert [s.text for s in doc_sentences(doc)] == ["Hello there.", "Bye now"]
    assert doc_sentences(trained_nlp.make_doc("")) == []
    with pytest.raises(ValueError, match="characters"):
        doc_sentences(doc, text=text + " ")


def _stream_sample(nlp, sample_docs, window):
    """Four sample documents streamed in windows: (text, sentences, stats), offsets checked."""
    text = "\n\n".join(" ".join(r.words) for r in sample_docs[:4])
    stats = SegmentStats()
    sents = list(segment_stream(nlp, io.StringIO(text), "s", window_chars=window, stats=stats))
    assert_exact(text, sents)
    assert stats.windows > 1 and stats.sentences == len(sents)
    return text, sents, stats


@pytest.mark.parametrize("window", [7, 40, 150])
def test_stream_in_windows_cuts_no_sentence(sample_docs, window):
    """The mechanism: with boundaries that depend on local text only (spaCy's sentencizer), the
    streamed sentences are exactly the whole text's, however small the window."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    text, sents, stats = _stream_sample(nlp, sample_docs, window)
    if stats.forced_cuts == 0:
        assert [(s.start_char, s.end_char) for s in sents] == \
            [(s.start_char, s.end_char) for s in segment_text(nlp, text)]


@pytest.mark.parametrize("window", [7, 40, 150])
def test_stream_in_windows_with_the_joint_model(trained_nlp, sample_docs, window):
    """With the joint model, a boundary may move with context a window lacks (a sentence longer
    than the window is parsed in parts before it is whole): the offsets stay exact, and most
    streamed sentence ends are ends of the whole-text parse too."""
    text, sents, stats = _stream_sample(trained_nlp, sample_docs, window)
    if stats.forced_cuts == 0:
        ends = {s.end_char for s in segment_text(trained_nlp, text)}
        agree = sum(s.end_char in ends for s in sents[:-1])
        assert agree >= 0.9 * (len(sents) - 1)


def test_stream_with_a_window_larger_than_the_text_equals_whole_text(trained_nlp):
    sents = list(segment_stream(trained_nlp, io.StringIO(AWKWARD), "x", window_chars=10 * len(AWKWARD)))
    assert [(s.start_char, s.end_char) for s in sents] == \
        [(s.start_char, s.end_char) for s in segment_text(trained_nlp, AWKWARD, "x")]


def test_stream_bounds_memory_on_text_without_any_boundary(trained_nlp, monkeypatch):
    """Every Doc parsed is at most a window long; the cuts between windows are no boundaries:
    the text is one sentence, as `nlp(text)` finds it, with one tree."""
    text = "word " * 3000
    seen = []
    real = trained_nlp.__class__.__call__

    def spy(self, doc, *args, **kwargs):
        seen.append(len(doc.text))
        return real(self, doc, *args, **kwargs)

    monkeypatch.setattr(trained_nlp.__class__, "__call__", spy)
    stats = SegmentStats()
    sents = list(segment_stream(trained_nlp, io.StringIO(text), with_parse=True, window_chars=500,
                                max_carry_chars=2000, stats=stats))
    monkeypatch.undo()
    assert_exact(text, sents)
    assert max(seen) <= 2000 + 500 and stats.forced_cuts > 1
    assert [(s.start_char, s.end_char) for s in sents] == [(s.start_char, s.end_char)
                                                           for s in segment_text(trained_nlp, text)]
    assert sum(t["head"] == -1 for t in sents[0].tokens) == 1
    assert [t["start_char"] for t in sents[0].tokens] == [t.idx for t in trained_nlp.make_doc(text) if not t.is_space]


@pytest.mark.parametrize("case", ["one word repeated", "no whitespace"])
def test_the_command_and_nlp_give_the_same_sentences_on_long_texts(trained_model_dir, trained_nlp, tmp_path, case):
    """Text longer than the window with no boundary the pipeline finds: windows cut as they
    must, and the command still gives `nlp(text)`'s sentences (before, each cut was a boundary,
    and a cut inside a word split it)."""
    text = "word " * 30_000 if case == "one word repeated" else "abcdefghij" * 20_000
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    records = [json.loads(line) for line in run(trained_model_dir, path, "-f", "jsonl").stdout.splitlines()]
    assert [(r["start_char"], r["end_char"]) for r in records] == \
        [(s.start_char, s.end_char) for s in segment_text(trained_nlp, text)]


def test_stream_bounds_the_tokens_of_every_window(trained_nlp, monkeypatch):
    """One-letter words have twice as many tokens per character as prose: every Doc the pipeline
    parses holds at most `window_tokens` tokens, whatever `window_chars` allows, and the
    no-boundary text is cut once per full window instead of being parsed again as it grows."""
    text = "a " * 3000
    seen = []
    real = trained_nlp.__class__.__call__

    def spy(self, doc, *args, **kwargs):
        seen.append(len(doc))
        return real(self, doc, *args, **kwargs)

    monkeypatch.setattr(trained_nlp.__class__, "__call__", spy)
    stats = SegmentStats()
    sents = list(segment_stream(trained_nlp, io.StringIO(text), window_chars=2000, window_tokens=300, stats=stats))
    assert_exact(text, sents)
    assert seen and max(seen) <= 300
    assert stats.windows == len(seen) <= len(text.split()) // 300 + 2
    assert stats.forced_cuts >= len(text.split()) // 300 - 1


def test_a_text_that_fits_one_window_is_parsed_once_as_nlp_parses_it(trained_nlp, sample_path, monkeypatch):
    """The stream is read one chunk ahead: a text shorter than the window is one Doc, the same
    sentences as `nlp(text)`. Before, the window was cut at its last space, so the last sentence
    (with the last word) was parsed a second time on its own, without the text before it; and so
    was every text's last sentence."""
    from spacy_joint_sbd.corpus.raw_text import raw_documents

    seen = []
    real = trained_nlp.__class__.__call__

    def spy(self, doc, *args, **kwargs):
        seen.append(len(doc))
        return real(self, doc, *args, **kwargs)

    for doc in list(raw_documents(sample_path))[24:]:
        whole = [(s.start_char, s.end_char) for s in segment_text(trained_nlp, doc.text)]
        seen.clear()
        monkeypatch.setattr(trained_nlp.__class__, "__call__", spy)
        stats = SegmentStats()
        streamed = [(s.start_char, s.end_char) for s in segment_stream(trained_nlp, io.StringIO(doc.text), stats=stats)]
        monkeypatch.undo()
        assert stats.windows == len(seen) == 1, doc.doc_id
        assert streamed == whole, doc.doc_id
    text = "\n\n".join(d.text for d in raw_documents(sample_path))
    stats = SegmentStats()
    sents = list(segment_stream(trained_nlp, io.StringIO(text), window_chars=len(text) // 3, stats=stats))
    assert_exact(text, sents)
    assert 2 <= stats.windows <= 4  # about a third of the text each, the last holding all that is left


def test_stream_token_bound_keeps_prose_sentences_whole(trained_nlp, sample_docs):
    """On prose, windows cut by tokens still emit only finished sentences: the streamed ends
    agree with the whole-text parse as with a character bound."""
    text = "\n\n".join(" ".join(r.words) for r in sample_docs[:4])
    stats = SegmentStats()
    sents = list(segment_stream(trained_nlp, io.StringIO(text), window_chars=10 * len(text), window_tokens=120,
                                stats=stats))
    assert_exact(text, sents)
    assert stats.windows > 1
    if stats.forced_cuts == 0:
        ends = {s.end_char for s in segment_text(trained_nlp, text)}
        assert sum(s.end_char in ends for s in sents[:-1]) >= 0.9 * (len(sents) - 1)


def test_stream_rejects_a_bad_window_tokens(trained_nlp):
    with pytest.raises(ValueError, match="window_tokens must be a positive integer"):
        list(segment_stream(trained_nlp, io.StringIO("a b c"), window_tokens=0))


def test_files_folder_and_stdin_in_every_format(trained_model_dir, tmp_path):
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text(AWKWARD, encoding="utf8")
    (folder / "sub" / "b.txt").write_text("hello there how are you i am fine", encoding="utf8")
    (folder / "ignored.md").write_text("not a txt file", encoding="utf8")
    out = tmp_path / "out.jsonl"
    run(trained_model_dir, folder, "--format", "jsonl", "--with-parse", "-o", out)
    records = [json.loads(line) for line in out.read_text(encoding="utf8").splitlines()]
    assert {r["source"] for r in records} == {str(folder / "a.txt"), str(folder / "sub" / "b.txt")}
    for r in records:
        path = folder / "a.txt" if r["source"].endswith("a.txt") else folder / "sub" / "b.txt"
        text = path.open(encoding="utf8", newline="").read()  # offsets count "\r\n" as two characters
        assert text[r["start_char"]:r["end_char"]] == r["text"]
        assert r["tokens"] and all("head" in t and "dep" in t for t in r["tokens"])
    lines = run(trained_model_dir, "-", stdin=AWKWARD).stdout.splitlines()
    assert lines and all(line.strip() for line in lines)
    assert " ".join(AWKWARD.split()) == " ".join(" ".join(lines).split())
    conllu = run("--model", trained_model_dir, folder / "a.txt", "--format", "conllu").stdout
    assert conllu.startswith(f"# newdoc id = {folder / 'a.txt'}")
    assert conllu.count("# sent_id") == len([r for r in records if r["source"].endswith("a.txt")])


def test_bad_input_is_a_clear_error(trained_model_dir, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine text here \xff\xfe broken")
    proc = run(trained_model_dir, bad, check=False)
    assert proc.returncode == 1 and f"{bad}: not valid utf-8 at byte 15" in proc.stdout + proc.stderr
    assert "broken" in run(trained_model_dir, bad, "--encoding", "latin-1").stdout
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "good.txt").write_text("one sentence here", encoding="utf8")
    (folder / "bad.txt").write_bytes(b"\xff\xfe\xfa")
    proc = run(trained_model_dir, folder, check=False)
    assert proc.returncode == 1  # something was skipped
    assert "skipped" in proc.stdout + proc.stderr and "bad.txt" in proc.stdout + proc.stderr
    assert "one sentence here" in proc.stdout
    out = tmp_path / "exists.txt"
    out.write_text("keep me")
    proc = run(trained_model_dir, folder / "good.txt", "-o", out, check=False)
    assert proc.returncode == 1 and "--overwrite" in proc.stdout + proc.stderr
    assert out.read_text() == "keep me"
    run(trained_model_dir, folder / "good.txt", "-o", out, "--overwrite")
    assert out.read_text().strip() == "one sentence here"
    proc = run(trained_model_dir, tmp_path / "missing.txt", check=False)
    assert proc.returncode == 1 and "missing.txt: no such file" in proc.stdout + proc.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    proc = run(trained_model_dir, empty)
    assert proc.stdout == "" and "empty input" in proc.stderr + proc.stdout


@pytest.mark.parametrize("mode,forced", [("line", ["i am fine", "see you"]), ("paragraph", ["see you"])])
def test_newlines_as_forced_boundaries(trained_model_dir, tmp_path, mode, forced):
    text = "hello there how are you\ni am fine thanks\n\nsee you soon then"
    path = tmp_path / "t.txt"
    path.write_text(text, encoding="utf8")
    out = run(trained_model_dir, path, "--format", "jsonl", "--newlines", mode).stdout
    starts = {json.loads(line)["start_char"] for line in out.splitlines()}
    assert all(text.index(f) in starts for f in forced)
    for line in out.splitlines():  # no sentence runs across a forced break
        r = json.loads(line)
        assert not any(r["start_char"] < text.index(f) < r["end_char"] for f in forced)


def test_missing_default_model_says_how_to_get_it(tmp_path):
    """Without a model name `segment` loads en_joint_sbd; where it is not installed (simulated:
    spacy.load refuses that name) the error says how to get it."""
    code = ("import sys, spacy; from spacy_joint_sbd.cli import segment as s; from spacy_joint_sbd.cli import app; "
            "real = spacy.load\n"
            "def load(name, *a, **k):\n"
            "    if name == s.DEFAULT_MODEL: raise OSError('[E050] Can\\'t find model')\n"
            "    return real(name, *a, **k)\n"
            "spacy.load = load\n"
            "sys.argv = ['x', 'segment', '-']; app()")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, input="hello there")
    assert proc.returncode != 0
    assert "en_joint_sbd" in proc.stdout + proc.stderr and "project run default" in proc.stdout + proc.stderr


def test_threshold_and_max_length_options(trained_model_dir, tmp_path):
    """--max-length cuts every sentence to the limit (words here are short); --threshold 1 keeps
    only certain boundaries (fewer sentences than the parser's own); bad values are one-line errors."""
    text = tmp_path / "t.txt"
    text.write_text(" ".join(["the cat sat on the mat and then it went home"] * 12), encoding="utf8")
    default = [s for s in run(trained_model_dir, text).stdout.splitlines() if s]
    cut = [s for s in run(trained_model_dir, text, "--max-length", "60").stdout.splitlines() if s]
    assert all(len(s) <= 60 for s in cut) and len(cut) >= len(default)
    assert " ".join(cut).split() == " ".join(default).split()  # nothing lost or reordered
    sure = [s for s in run(trained_model_dir, text, "--threshold", "1").stdout.splitlines() if s]
    assert 1 <= len(sure) <= len(default)
    for option, value, message in (("--threshold", "0", "--threshold must be a probability"),
                                   ("--threshold", "1.5", "--threshold must be a probability"),
                                   ("--max-length", "0", "--max-length must be"),
                                   ("--sb-bias-unmarked", "nan", "--sb-bias-unmarked must be a finite number")):
        proc = run(trained_model_dir, text, option, value, check=False)
        assert proc.returncode == 2 and message in proc.stdout + proc.stderr  # an option value: usage
        assert "Traceback" not in proc.stderr


def test_sb_bias_unmarked_option_keeps_edited_text_whole(trained_model_dir, tmp_path):
    """A very negative --sb-bias-unmarked leaves no boundary after a bare word in punctuated text
    (`pipeline.unmarked`) where the pipeline (saved with an eager SB bias) splits without it; the
    words come out whole and in order either way."""
    import spacy

    eager = tmp_path / "eager"
    spacy.load(trained_model_dir, config={"components": {"joint_sbd_parser": {"sb_bias": 3.0}}}).to_disk(eager)
    text = tmp_path / "t.txt"
    sentence = " ".join(["the cat sat on the mat and then it went home"] * 12)
    text.write_text(sentence + ". The end.", encoding="utf8")
    default = [s for s in run(eager, text).stdout.splitlines() if s]
    whole = [s for s in run(eager, text, "--sb-bias-unmarked", "-30").stdout.splitlines() if s]
    assert len(default) > 2 and whole == [sentence + ".", "The end."]
    assert "".join(whole).replace(" ", "") == "".join(default).replace(" ", "")  # nothing lost or reordered
