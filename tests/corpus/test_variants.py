"""The `star` and `nosyntax` variants (bjorkelund2016 §5)."""
from spacy_joint_sbd.corpus import ROOT, DocRecord, nosyntax, read_conllu, star
from test_conllu import assert_forest


def make(words, upos, heads, starts):
    n = len(words)
    return DocRecord("d", words, [True] * n, words, upos, ["X"] * n, [""] * n, heads, ["dep"] * n, starts)


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


def test_nosyntax_chains(ewt_dev):
    for rec in ewt_dev[:50]:
        out = nosyntax(rec)
        assert out.sent_starts == rec.sent_starts
        for s, e in rec.sentences():
            assert out.heads[e - 1] == ROOT
            assert out.heads[s:e - 1] == list(range(s + 1, e))
        assert set(out.deps) == {"dep"}
