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
