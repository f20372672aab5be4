"""corpus.raw_text: treebank documents as raw text with the offsets of their gold sentence starts,
and the starts of predicted character spans."""
from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.corpus.raw_text import raw_documents, span_starts


def test_every_gold_offset_starts_the_sentence_it_names(sample_path):
    """On the committed EWT sample: one text per document, and the text at each gold offset is
    the first word of the matching gold sentence (multi-word tokens by their surface form)."""
    docs = list(raw_documents(sample_path))
    records = read_conllu(sample_path, sents_per_doc=0)
    assert len(docs) == len(records) and all(d.text and d.gold and d.gold[0] == 0 for d in docs)
    checked = 0
    for doc, rec in zip(docs, records):
        firsts = [w for w, s in zip(rec.words, rec.sent_starts) if s]
        assert len(doc.gold) == len(firsts), doc.doc_id
        assert doc.gold == sorted(set(doc.gold))
        for at, word in zip(doc.gold, firsts):
            surface = doc.text[at:].split()[0] if doc.text[at:].split() else ""
            assert surface.startswith(word[:1]) and not doc.text[at].isspace(), (doc.doc_id, at, word)
            checked += 1
    assert checked > 100


def test_span_starts_skip_leading_whitespace_and_empty_spans():
    text = "Hi.   Yes\n\n  ok"
    assert span_starts([(0, 3), (3, 9), (9, 11), (11, 15)], text) == {0, 6, 13}
    assert span_starts([], text) == set()


def test_a_str_path_without_newdoc_and_malformed_lines(tmp_path):
    """A file without `# newdoc` is one document named by its stem (a str path too: it used to
    fail on `str.stem`); a malformed word line is one ConllUError naming the file and line."""
    import pytest

    from spacy_joint_sbd.corpus import ConllUError

    rows = ["1\tHi\t_\tX\t_\t_\t0\troot\t_\tSpaceAfter=No", "2\t.\t_\tX\t_\t_\t1\tpunct\t_\t_", "",
            "1\tYes\t_\tX\t_\t_\t0\troot\t_\t_", ""]
    good = tmp_path / "plain.conllu"
    good.write_text("\n".join(rows), encoding="utf8")
    (doc,) = raw_documents(str(good))
    assert (doc.doc_id, doc.text, doc.gold) == ("plain", "Hi. Yes", [0, 4])
    for bad_row, why in (("x\tHi\t_\tX\t_\t_\t0\troot\t_\t_", "bad word id 'x'"), ("1\tHi\tX", "3 tab-separated")):
        bad = tmp_path / "bad.conllu"
        bad.write_text("\n".join(rows[:3] + [bad_row]), encoding="utf8")
        with pytest.raises(ConllUError, match=f"bad.conllu:4: {why}"):
            list(raw_documents(bad))


def test_gold_tokens_words_and_heads(sample_path, tmp_path):
    """Tokens cover the text but its whitespace; the words (multi-word tokens split) and their
    document-level heads and labels are those `read_conllu` reads; a bad head names its line."""
    import pytest

    from spacy_joint_sbd.corpus import ConllUError

    docs = list(raw_documents(sample_path))
    records = read_conllu(sample_path, sents_per_doc=0)
    multiword = 0
    for doc, rec in zip(docs, records):
        assert [w.form for w in doc.words] == rec.words, doc.doc_id
        assert [w.head for w in doc.words] == rec.heads and [w.dep for w in doc.words] == rec.deps
        assert doc.tokens[0][0] == 0 and doc.tokens[-1][1] == len(doc.text)
        assert all(doc.text[a:b].strip() and not doc.text[b:c].strip()
                   for (a, b), (c, _) in zip(doc.tokens, doc.tokens[1:]))  # tokens cover the text but whitespace
        assert [doc.tokens[doc.words[k].token][0] for k in doc.sent_words] == doc.gold
        multiword += len(doc.words) - len({w.token for w in doc.words})
        for t, (a, b) in enumerate(doc.tokens):
            forms = [w.form for w in doc.words if w.token == t]
            assert forms and ("".join(forms) == doc.text[a:b] or len(forms) > 1), (doc.doc_id, t)
    assert multiword > 10
    # a sentence that ends in a multi-word token: the next sentence keeps its first words
    rows = ["1\tSo\t_\tX\t_\t_\t2\tadvmod\t_\t_", "2-3\tI'm\t_\t_\t_\t_\t_\t_\t_\t_",
            "2\tI\t_\tX\t_\t_\t0\troot\t_\t_", "3\t'm\t_\tX\t_\t_\t2\tcop\t_\t_", "",
            "1\tYes\t_\tX\t_\t_\t_\t_\t_\t_", ""]
    path = tmp_path / "mwt.conllu"
    path.write_text("\n".join(rows), encoding="utf8")
    (doc,) = raw_documents(path)
    assert (doc.text, doc.tokens, doc.sent_words, doc.gold) == ("So I'm Yes", [(0, 2), (3, 6), (7, 10)], [0, 3], [0, 7])
    assert [(w.token, w.head) for w in doc.words] == [(0, 1), (1, -1), (1, 1), (2, None)]
    path.write_text("\n".join(rows).replace("\t2\tcop", "\tx\tcop"), encoding="utf8")
    with pytest.raises(ConllUError, match="mwt.conllu:4: bad head 'x'"):
        list(raw_documents(path))
