"""Training documents from running text: boundary rules, layout, variants, shards."""
import os
from pathlib import Path

import pytest
import spacy

from spacy_joint_sbd.corpus.running_text import (TextInputError, iter_text_docs, iter_text_files, text_records,
                                                 variant_record)
from spacy_joint_sbd.corpus.text_shards import MANIFEST, read_shards, write_text_shards

TEXT = Path(os.environ.get("SJS_TEXT_DATA", Path(__file__).resolve().parents[3] / "shared" / "data" / "text"))


@pytest.fixture(scope="module")
def tok():
    return spacy.blank("en").tokenizer


def sents(text, tok, **kw):
    """The sentences of a text's first document, as strings of its tokens (layout tokens shown)."""
    rec = next(text_records(text, tok, "t", **kw))
    return _split(rec)


def _split(rec):
    out, cur = [], []
    for w, s, st in zip(rec.words, rec.spaces, rec.sent_starts):
        if st and cur:
            out.append("".join(cur).strip(" "))
            cur = []
        cur.append(w + (" " if s else ""))
    out.append("".join(cur).strip(" "))
    return out


def test_abbreviations(tok):
    assert sents("Mr. Smith met Dr. Jones. They spoke, e.g. about money, i.e. gold. Fine.", tok) == [
        "Mr. Smith met Dr. Jones.", "They spoke, e.g. about money, i.e. gold.", "Fine."]


def test_days_and_company_suffixes(tok):
    assert sents("He sat. Then we met on Sat. you know. Acme Inc. Main Street is far.", tok) == [
        "He sat.", "Then we met on Sat. you know.", "Acme Inc. Main Street is far."]


def test_lowercase_opener_after_full_stop(tok):
    assert sents("i went there. now i know. Charles II. was king.", tok) == [
        "i went there.", "now i know.", "Charles II. was king."]


def test_bracketed_reference_stays(tok):
    assert sents("He died in 1805. [19] His son lived.", tok) == ["He died in 1805. [19]", "His son lived."]


def test_etc_final_before_capital_and_at_paragraph_end(tok):
    assert sents("We bought apples, pears etc. Then we left. We had bread etc.\n\nNext.", tok) == [
        "We bought apples, pears etc.", "Then we left.", "We had bread etc.\n\n", "Next."]


def test_initials_and_numbers(tok):
    assert sents("J. R. R. Tolkien wrote it. It costs 3.5 dollars, see No. 5 and p. 191. I said no. Then", tok) == [
        "J. R. R. Tolkien wrote it.", "It costs 3.5 dollars, see No. 5 and p. 191.", "I said no.", "Then"]


def test_ellipsis_needs_capital(tok):
    assert sents("Well... maybe. Wait... What? And . . . So it goes.", tok) == [
        "Well... maybe.", "Wait...", "What?", "And . . .", "So it goes."]


def test_closing_quotes_and_brackets_stay(tok):
    assert sents('He said "it is over." Then he left (for good.) Now! "Stop!" he said. Go. "Why?"', tok) == [
        'He said "it is over."', "Then he left (for good.)", "Now!", '"Stop!" he said.', "Go.", '"Why?"']


def test_lowercase_after_mark_edited_vs_transcript(tok):
    assert sents("Is it love? or hate? No.", tok) == ["Is it love? or hate?", "No."]
    assert sents("A: Is it love? or hate? No.\nB: yes.", tok) == ["Is it love?", "or hate?", "No.\n", "yes."]


def test_blank_lines_and_line_breaks(tok):
    assert sents("CHAPTER I\n\nIt was late\n\nand dark.", tok) == ["CHAPTER I\n\n", "It was late\n\n", "and dark."]
    assert sents("One line\nTwo line. Three", tok) == ["One line\n", "Two line.", "Three"]


def test_hard_wrapped_lines_follow_punctuation(tok):
    text = "\n".join(["This is a long line of prose that", "goes on and on without", "a mark until the end.",
                      "Then another one starts", "and wraps again", "before it ends."])
    assert sents(text, tok) == ["This is a long line of prose that\ngoes on and on without\na mark until the end.\n",
                                "Then another one starts\nand wraps again\nbefore it ends."]


def test_speaker_lines_and_headers_dropped(tok):
    text = ("### dialogue_id=1_0 services=x\nUSER: Hi there. i want food\nSYSTEM: Sure\n\n"
            "### dialogue_id=1_1 services=y\nUSER: ok")
    assert sents(text, tok) == ["Hi there.", "i want food\n", "Sure\n\n", "ok"]


def test_speech_title_block_dropped(tok):
    text = "PRESIDENT X'S ADDRESS TO CONGRESS\n \nApril 16, 1945\n\nMr. Speaker:\nIt is time. We go."
    assert sents(text, tok) == ["Mr. Speaker:\n", "It is time.", "We go."]


def test_illustration_dropped(tok):
    assert sents("It ends.\n\n[Illustration: A dog]\n\nIt starts.", tok) == ["It ends.\n\n", "It starts."]


def test_layout_off_joins_with_space(tok):
    rec = next(text_records("It ends\n\nIt starts.", tok, "t", layout=False))
    assert rec.words == ["It", "ends", "It", "starts", "."] and rec.spaces[1]
    assert rec.sent_starts == [True, False, True, False, False]


def test_whitespace_never_starts_a_sentence_in_variants(tok):
    rec = next(text_records('He left.\n\n* * *\n\n"Why?"\n\nBecause.', tok, "t"))
    for variant in ("plain", "star", "nopunct", "lower"):
        v = variant_record(rec, variant)
        assert v.sent_starts[0]
        for i, w in enumerate(v.words):
            if not w.strip():
                assert not v.sent_starts[i] and i > 0 and v.words[i - 1].strip()
    star = variant_record(rec, "star")
    assert _split(star) == ["he left\n\n", "why\n\n", "because"]


def test_star_keeps_boundaries_when_marks_go(tok):
    rec = next(text_records("Yes. No. Maybe so.", tok, "t"))
    assert _split(variant_record(rec, "star")) == ["yes", "no", "maybe so"]


def test_long_text_cut_at_paragraphs(tok):
    text = "\n\n".join(f"Paragraph {k} has words. And more words here." for k in range(40))
    recs = list(text_records(text, tok, "f/x", max_tokens=50))
    assert [r.doc_id for r in recs[:2]] == ["f/x#0", "f/x#1"]
    assert all(len(r.words) <= 50 for r in recs)
    assert all(r.words[0] == "Paragraph" for r in recs)
    assert sum(sum(r.sent_starts) for r in recs) == 80


def write_folder(root: Path) -> Path:
    (root / "books").mkdir(parents=True)
    (root / "talk" / "dev").mkdir(parents=True)
    (root / "books" / "b.txt").write_text("First one. Second one.\n\nThird one.", encoding="utf8")
    (root / "books" / "a.txt").write_text("Alpha text here. Beta text.\n\n" * 30, encoding="utf8")
    (root / "talk" / "t.txt").write_text("A: Hello. hi\nB: Bye.\n", encoding="utf8")
    (root / "talk" / "dev" / "d.txt").write_text("Held out. Text.", encoding="utf8")
    (root / "books" / "README.md").write_text("not text", encoding="utf8")
    return root


def test_iter_text_docs_api(tmp_path):
    root = write_folder(tmp_path / "src")
    nlp = spacy.blank("en")
    docs = list(iter_text_docs([root / "books", root / "talk"], nlp.vocab, variants=("plain", "star"), max_tokens=40,
                               root=root))
    ids = [d.user_data["doc_id"] for d in docs]
    assert ids[:4] == ["books/a#0", "books/a#0", "books/a#1", "books/a#1"]
    assert not any("dev" in i for i in ids)
    assert [d.user_data["variant"] for d in docs[:2]] == ["plain", "star"]
    for d in docs:
        assert d[0].is_sent_start and all(t.is_sent_start in (True, False) for t in d)
    talk = [d for d in docs if d.user_data["doc_id"] == "talk/t#0"][0]
    assert [s.text.strip() for s in talk.sents] == ["Hello.", "hi", "Bye."]


def test_dev_refused_unless_allowed(tmp_path):
    root = write_folder(tmp_path / "src")
    with pytest.raises(TextInputError, match="'dev' folder"):
        list(iter_text_files([root / "talk" / "dev"], root=root))
    assert [f.name for f in iter_text_files([root / "talk" / "dev"], root=root, allow_dev=True)] == ["talk/dev/d"]
    assert [f.name for f in iter_text_files([root / "talk"], root=root)] == ["talk/t"]


def test_bad_file_names_it_and_keeps_shards(tmp_path):
    root = write_folder(tmp_path / "src")
    (root / "zz").mkdir()
    (root / "zz" / "bad.txt").write_bytes(b"ok text\xff\xfe more")
    out = tmp_path / "out"
    with pytest.raises(TextInputError, match=r"bad\.txt: not UTF-8 text \(byte 0xff at offset 7\)"):
        write_text_shards([root / "books", root / "zz"], out, shard_tokens=10, root=root, progress=False)
    assert (out / "shard-00000.spacy").exists() and (out / MANIFEST).exists()


def test_shards_deterministic_and_resumable(tmp_path):
    root = write_folder(tmp_path / "src")
    paths = [root / "books", root / "talk"]
    kw = dict(variants=("plain", "star"), max_tokens=40, shard_tokens=100, root=root, progress=False)
    full = write_text_shards(paths, tmp_path / "a", **kw)
    names = [s["name"] for s in full["shards"]]
    assert len(names) >= 2 and full["complete"]
    assert full["folders"]["books"]["files"] == 2 and full["folders"]["talk"]["sentences"] == 3
    again = write_text_shards(paths, tmp_path / "b", **kw)
    assert [(tmp_path / "a" / n).read_bytes() for n in names] == [(tmp_path / "b" / n).read_bytes() for n in names]
    # Interrupt after the first shard, then resume: same bytes, the first shard not rewritten.
    class Stop(Exception):
        pass

    def stop(name):
        raise Stop(name)

    with pytest.raises(Stop):
        write_text_shards(paths, tmp_path / "c", on_shard=stop, **kw)
    first = tmp_path / "c" / names[0]
    mtime = first.stat().st_mtime_ns
    assert not (tmp_path / "c" / names[1]).exists()
    resumed = write_text_shards(paths, tmp_path / "c", **kw)
    assert first.stat().st_mtime_ns == mtime
    assert resumed["folders"] == again["folders"]
    assert [(tmp_path / "a" / n).read_bytes() for n in names] == [(tmp_path / "c" / n).read_bytes() for n in names]
    docs = list(read_shards(tmp_path / "c", spacy.blank("en").vocab))
    assert len(docs) == sum(s["docs"] for s in full["shards"])
    with pytest.raises(TextInputError, match="other settings"):
        write_text_shards(paths, tmp_path / "c", **{**kw, "max_tokens": 41})


@pytest.mark.slow
def test_real_sgd_file():
    path = TEXT / "sgd" / "train" / "dialogues_001.txt"
    if not path.exists():
        msg = f"running-text file missing: {path} (set SJS_TEXT_DATA to ../shared/data/text)"
        if os.environ.get("SJS_REQUIRE_DATA"):
            pytest.fail(msg)
        pytest.skip(msg)
    docs = list(iter_text_docs([path], spacy.blank("en"), max_tokens=2000))
    text = "".join(d.text for d in docs)
    assert "USER:" not in text and "SYSTEM:" not in text and "dialogue_id" not in text
    first = docs[0]
    assert first.user_data["doc_id"] == "dialogues_001#0"
    assert list(first.sents)[0].text.startswith("I am feeling hungry so I would like to find a place to eat.")
    assert all(len(d) <= 2001 for d in docs)


def test_cli_text_docs(tmp_path):
    from typer.testing import CliRunner

    from spacy_joint_sbd.cli import app

    root = write_folder(tmp_path / "src")
    runner = CliRunner()
    res = runner.invoke(app, ["text-docs", str(root), str(tmp_path / "out"), "--include", "books,talk",
                              "--variants", "plain,star", "--max-tokens", "40", "--shard-tokens", "100"])
    assert res.exit_code == 0, res.output
    assert "books: 2 files" in res.output and (tmp_path / "out" / "shard-00000.spacy").exists()
    res = runner.invoke(app, ["text-docs", str(root), str(tmp_path / "dev"), "--include", "talk/dev"])
    flat = " ".join(res.output.split())  # wasabi wraps at the terminal width: a long tmp path moves the break
    assert res.exit_code == 1 and "'dev' folder" in flat and "Traceback" not in res.output
    assert not (tmp_path / "dev" / MANIFEST).exists()


def test_corpus_never_imports_the_cli():
    corpus = Path(__file__).resolve().parents[2] / "spacy_joint_sbd" / "corpus"
    for name in ("running_text.py", "punct_boundaries.py", "text_shards.py"):
        source = (corpus / name).read_text(encoding="utf8")
        assert "cli" not in [part for line in source.splitlines() if line.startswith(("from", "import"))
                             for part in line.replace(".", " ").split()]


def test_dialogue_attribution_after_quote(tok):
    text = "“Your mother keeps well?” I asked. “No!” Mary Ann cried. “Go.” He said nothing."
    assert sents(text, tok) == [
        "“Your mother keeps well?” I asked.", "“No!” Mary Ann cried.", "“Go.”", "He said nothing."]


def test_plain_tokens_are_what_nlp_gives_and_star_spaces_infix_marks(tmp_path):
    nlp = spacy.blank("en")
    text = 'He said "it is over." Then...\n\nTwenty-one men and/or women\nleft (quickly).\n\n\n[Illustration]\n\nEnd.'
    (tmp_path / "x.txt").write_text(text, encoding="utf8")
    plain, star = list(iter_text_docs([tmp_path / "x.txt"], nlp, variants=("plain", "star")))
    assert [(t.text, t.whitespace_) for t in nlp(plain.text)] == [(t.text, t.whitespace_) for t in plain]
    assert star.text == "he said it is over then\n\ntwenty one men and/or women\nleft quickly\n\nend"
    assert [t.text for t in nlp(star.text)] == [t.text for t in star]


PROSE = ("The committee met on Tuesday to discuss the new budget for the coming year and the plans for the "
         "renovation of the old library building on the main street. Several members raised concerns about the "
         "cost of the project and asked for more details.\n\nA second paragraph. It is short.")


def test_wrapped_variant_breaks_lines_inside_sentences(tok):
    """`wrapped`: prose hard-wrapped at 72 columns; the sentence starts stay on the same words, the
    text tokenizes back into the same tokens, and a transcript's lines are left alone."""
    from spacy_joint_sbd.corpus.running_text import WRAP_WIDTH, record_doc

    rec = next(text_records(PROSE, tok, "t", max_tokens=0))
    wrapped = variant_record(rec, "wrapped")
    doc = record_doc(tok.vocab, wrapped, "wrapped")
    lines = doc.text.split("\n")
    assert len(lines) > 4 and max(len(line) for line in lines) <= WRAP_WIDTH
    assert [t.text for t in doc if t.is_sent_start] == ["The", "Several", "A", "It"]
    assert [t.text for t in tok(doc.text)] == [t.text for t in doc]
    assert not any(t.is_sent_start for t in doc if t.is_space)
    turns = next(text_records("So I went there and then I came back and nobody had seen the thing at all ok\n"
                              "Right. And what happened then?\n", tok, "t", max_tokens=0))
    assert variant_record(turns, "wrapped").words == turns.words
    docs = list(iter_text_docs([], tok, variants=["plain", "wrapped"]))  # the name is accepted
    assert docs == []


def test_flat_variant_drops_the_layout_but_keeps_the_starts(tok):
    """`flat`: every line break and blank line of prose becomes one space; headings keep their
    sentence starts on the same words, the text tokenizes back into the same tokens, and a record
    without layout or with lines (a transcript) is left as it is."""
    from spacy_joint_sbd.corpus.running_text import record_doc

    text = "Climate\n\nSpring is the best time. It is mild.\n\nRain\n\nIt rarely rains in summer.\n"
    rec = next(text_records(text, tok, "t", max_tokens=0))
    flat = variant_record(rec, "flat")
    doc = record_doc(tok.vocab, flat, "flat")
    assert "\n" not in doc.text and not any(t.is_space for t in doc)
    plain = record_doc(tok.vocab, rec, "plain")
    assert [t.text for t in doc if t.is_sent_start] == [t.text for t in plain if t.is_sent_start and not t.is_space]
    assert [t.text for t in doc if t.is_sent_start][:3] == ["Climate", "Spring", "It"]
    assert [t.text for t in tok(doc.text)] == [t.text for t in doc]
    assert variant_record(flat, "flat") is flat
    turns = next(text_records("So I went there and then I came back and nobody had seen it\n"
                              "Right. And what happened then?\n", tok, "t", max_tokens=0))
    assert variant_record(turns, "flat") is turns  # a transcript keeps its turns
    assert list(iter_text_docs([], tok, variants=["flat"])) == []  # the name is accepted
