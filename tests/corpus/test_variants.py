"""The `star` and `nosyntax` variants (bjorkelund2016 §5)."""
import pytest

from spacy_joint_sbd.corpus import ROOT, DocRecord, nosyntax, read_conllu, star
from test_conllu import assert_forest


def make(words, upos, heads, starts):
    n = len(words)
    return DocRecord("d", words, [True] * n, words, upos, ["X"] * n, [""] * n, heads, ["dep"] * n, starts)


def test_star_on_sample_has_no_punct_no_uppercase_valid_trees(sample_path, sample_docs):
    recs = read_conllu(sample_path, "star")
    assert len(recs) == len(sample_docs)
    assert all(u != "PUNCT" for r in recs for u in r.upos)
    assert all(w == w.lower() for r in recs for w in r.words)
    n_punct = sum(u == "PUNCT" for r in sample_docs for u in r.upos)
    assert n_punct > 0
    assert sum(len(r) for r in recs) == sum(len(r) for r in sample_docs) - n_punct
    for r in recs:
        assert_forest(r)


@pytest.mark.slow
def test_star_on_ewt_dev_has_no_punct_no_uppercase_valid_trees(ewt_dev_path):
    plain = read_conllu(ewt_dev_path)
    recs = read_conllu(ewt_dev_path, "star")
    assert len(recs) == 318
    assert all(u != "PUNCT" for r in recs for u in r.upos)
    assert all(w == w.lower() for r in recs for w in r.words)
    n_punct = sum(u == "PUNCT" for r in plain for u in r.upos)
    assert sum(len(r) for r in recs) == 25147 - n_punct
    for r in recs:
        assert_forest(r)


def test_star_reattaches_to_nearest_surviving_ancestor():
    # A ( , B ) : "," is the head of B, "," attaches to A (the root); then "." the last token
    rec = make(["A", ",", "B", "."], ["NOUN", "PUNCT", "NOUN", "PUNCT"], [ROOT, 0, 1, 0], [True, False, False, False])
    out = star(rec)
    assert out.words == ["a", "b"]
    assert out.heads == [ROOT, 0]


def test_star_punct_root_and_punct_only_sentence():
    # sentence 1: "!" is the root of X and Y; sentence 2 is only punctuation and disappears
    rec = make(["X", "!", "Y", "..."], ["NOUN", "PUNCT", "NOUN", "PUNCT"], [1, ROOT, 1, ROOT],
               [True, False, False, True])
    out = star(rec)
    assert out.words == ["x", "y"]
    assert out.heads == [ROOT, 0]
    assert out.sent_starts == [True, False]
    assert len(out.sentences()) == 1


def test_star_keeps_sentence_boundaries_and_spaces():
    rec = make(["Hi", ",", "you", ".", "Bye", "."], ["INTJ", "PUNCT", "PRON", "PUNCT", "INTJ", "PUNCT"],
               [ROOT, 0, 0, 0, ROOT, 4], [True, False, False, False, True, False])
    rec.spaces = [False, True, False, True, False, False]
    out = star(rec)
    assert out.words == ["hi", "you", "bye"]
    assert out.spaces == [True, True, False]
    assert out.sent_starts == [True, False, True]


def test_nosyntax_chains(sample_docs):
    for rec in sample_docs:
        out = nosyntax(rec)
        assert out.sent_starts == rec.sent_starts
        for s, e in rec.sentences():
            assert out.heads[e - 1] == ROOT
            assert out.heads[s:e - 1] == list(range(s + 1, e))
        assert set(out.deps) == {"dep"}


def test_partial_variants_lower_and_nopunct(sample_docs):
    from spacy_joint_sbd.corpus import lower, nopunct

    for rec in sample_docs[:10]:
        low, nop = lower(rec), nopunct(rec)
        assert low.words == [w.lower() for w in rec.words] and low.heads == rec.heads
        assert low.sent_starts == rec.sent_starts
        assert "PUNCT" not in nop.upos and nop.words == [w for w, u in zip(rec.words, rec.upos) if u != "PUNCT"]
        assert [w.lower() for w in nop.words] == star(rec).words and nop.heads == star(rec).heads
        assert_forest(nop)


def test_star_augmenter_probability_and_partial(sample_examples):
    import random

    from spacy_joint_sbd.corpus.readers import create_star_augmenter

    nlp, examples = sample_examples
    eg = examples[0]
    words = [t.text for t in eg.reference]

    def kinds(aug, n=300):
        random.seed(0)
        out = []
        for _ in range(n):
            got = [t.text for t in next(iter(aug(nlp, eg))).reference]
            has_punct = any(w in {".", ",", ":"} for w in got)
            is_lower = all(w == w.lower() for w in got)
            out.append("plain" if got == words else "lower" if has_punct and is_lower
                       else "nopunct" if not has_punct and not is_lower else "star")
        return out

    assert set(kinds(create_star_augmenter())) == {"star"}
    assert set(kinds(create_star_augmenter(probability=0.0))) == {"plain"}
    mixed = kinds(create_star_augmenter(probability=0.5, partial=0.5))
    assert set(mixed) == {"plain", "star", "lower", "nopunct"}
    assert 100 < mixed.count("plain") < 200
    with pytest.raises(ValueError, match="probability"):
        create_star_augmenter(probability=1.5)


def test_a_record_with_upos_on_some_tokens_becomes_a_doc_and_its_star_variant():
    """Running-text records (and silver documents built from them) carry UPOS PUNCT on their marks
    and nothing else: the Doc keeps those, so the star variant still finds the marks to drop."""
    import spacy

    from spacy_joint_sbd.corpus.docs import doc_to_record, record_to_doc
    from spacy_joint_sbd.corpus.variants import apply_variant

    words = ["Hello", "there", ".", "General", "Kenobi", "!"]
    rec = DocRecord("d", words, [True, False, True, True, False, False], [""] * 6,
                    ["", "", "PUNCT", "", "", "PUNCT"], [""] * 6, [""] * 6, [1, ROOT, 1, 4, ROOT, 4],
                    ["intj", "root", "punct", "compound", "root", "punct"], [True, False, False, True, False, False])
    doc = record_to_doc(spacy.blank("en").vocab, rec)
    assert [t.pos_ for t in doc] == ["", "", "PUNCT", "", "", "PUNCT"]
    back = apply_variant(doc_to_record(doc), "star")
    assert back.words == ["hello", "there", "general", "kenobi"] and back.sent_starts == [True, False, True, False]
