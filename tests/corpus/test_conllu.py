"""Reading CoNLL-U into whole documents: the committed sample (fast) and the real treebanks (slow)."""
import pytest

from spacy_joint_sbd.corpus import ROOT, read_conllu
from treebanks import GUM, ZH, need


def assert_forest(rec):
    """One root per sentence, heads inside the sentence, no cycle."""
    for s, e in rec.sentences():
        roots = [i for i in range(s, e) if rec.heads[i] == ROOT]
        assert len(roots) == 1, (rec.doc_id, s)
        for i in range(s, e):
            j, steps = i, 0
            while rec.heads[j] != ROOT:
                j = rec.heads[j]
                assert s <= j < e, (rec.doc_id, i)
                steps += 1
                assert steps <= e - s, f"cycle in {rec.doc_id} at {i}"


def test_sample_documents(sample_docs):
    assert len(sample_docs) == 29
    assert sum(len(r) for r in sample_docs) == 1942
    assert sum(len(r.sentences()) for r in sample_docs) == 180
    assert sample_docs[0].doc_id.startswith("weblog-blogspot.com_marketview_")
    for rec in sample_docs:
        assert_forest(rec)
        assert rec.sent_starts[0]
        assert all(w != "" for w in rec.words)  # the two empty nodes (8.1-style ids) are not tokens


def test_sample_multiword_tokens_and_space_after(sample_docs):
    # "haven't" is a range with two words have|n't and no space inside
    pairs = [(r, i) for r in sample_docs for i in range(len(r) - 1) if r.words[i + 1] == "n't"]
    assert pairs, "no ...|n't multiword token in the sample"
    assert all(r.spaces[i] is False for r, i in pairs)


@pytest.mark.slow
def test_ewt_dev_documents(ewt_dev):
    assert len(ewt_dev) == 318
    assert sum(len(r) for r in ewt_dev) == 25147
    assert sum(len(r.sentences()) for r in ewt_dev) == 2001
    assert ewt_dev[0].doc_id == "weblog-blogspot.com_nominations_20041117172713_ENG_20041117_172713"
    assert ewt_dev[0].words[:4] == ["From", "the", "AP", "comes"]
    assert ewt_dev[0].heads[:4] == [2, 2, 3, ROOT]
    for rec in ewt_dev:
        assert_forest(rec)
        assert rec.sent_starts[0]


@pytest.mark.slow
def test_multiword_tokens_and_space_after(ewt_dev):
    # "didn't" is a range 29-30 with SpaceAfter=No: did|n't, no space inside, none after
    for rec in ewt_dev:
        for i in range(len(rec) - 1):
            if rec.words[i] == "did" and rec.words[i + 1] == "n't":
                assert rec.spaces[i] is False
                break
        else:
            continue
        break
    else:
        pytest.fail("no did|n't multiword token found")
    first = ewt_dev[0]
    assert first.spaces[:3] == [True, True, True]


@pytest.mark.slow
def test_empty_nodes_are_not_tokens(ewt_dev):
    assert all(w != "" for r in ewt_dev for w in r.words)
    # 8.1 'write' (CopyOf=5) is an empty node: no token may carry a decimal id's form alone
    total = sum(len(r) for r in ewt_dev)
    assert total == 25147


@pytest.mark.slow
def test_file_without_document_marks_is_cut_into_n_sentence_documents():
    recs = read_conllu(need(ZH / "dev.conllu"), sents_per_doc=10)
    assert len(recs) == 50
    assert all(len(r.sentences()) == 10 for r in recs)
    recs7 = read_conllu(ZH / "dev.conllu", sents_per_doc=7)
    assert [len(r.sentences()) for r in recs7][-1] == 500 - 7 * 71
    assert len({r.doc_id for r in recs7}) == len(recs7)


@pytest.mark.slow
def test_gum_spoken_genre_filter():
    recs = read_conllu(need(GUM / "dev.conllu"), genres=["spoken"])
    genres = {r.doc_id.split("_")[1] for r in recs}
    assert genres and genres <= {"conversation", "interview", "podcast", "speech", "vlog"}
    assert read_conllu(GUM / "dev.conllu", genres=["interview"])[0].doc_id.startswith("GUM_interview_")
