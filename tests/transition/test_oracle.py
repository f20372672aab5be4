"""Oracle round trip: on every document of EWT train/dev/test and GUM train/dev, plain and star,
replaying the oracle (SB early and late) reproduces gold heads, labels and sentence starts, and
every oracle move is legal (`replay` checks validity before each move)."""
import numpy
import pytest

from treebanks import EWT, GUM, need

from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.transition import EngineDoc, LabelSet, Move, OracleError, oracle_actions
from spacy_joint_sbd.transition.moves import move_name
from spacy_joint_sbd.transition.oracle import projective_order
from spacy_joint_sbd.transition.engine_doc import to_engine_numbering
from spacy_joint_sbd.transition.stateclass import StateClass
from spacy_joint_sbd.transition.testing import replay

FILES = [EWT / "train.conllu", EWT / "dev.conllu", EWT / "test.conllu",
         GUM / "train.conllu", GUM / "dev.conllu"]


def gold_only(rec, labels):
    """The gold tree of a record as an EngineDoc (the oracle reads no features)."""
    return EngineDoc(attrs=numpy.zeros((len(rec), 0), dtype=numpy.uint64),
                     heads=numpy.asarray(rec.heads, dtype=numpy.int32),
                     labels=numpy.asarray(labels.encode_all(rec.deps), dtype=numpy.int32),
                     sent_starts=numpy.asarray([i == 0 or bool(s) for i, s in enumerate(rec.sent_starts)]))


def check_round_trip(rec, labels, late, document_level=True):
    doc = gold_only(rec, labels)
    heads, labs, starts = to_engine_numbering(doc)
    fixed = None if document_level else doc.sent_starts
    actions = oracle_actions(heads, labs, starts, len(labels), late=late, fixed_starts=fixed)
    H, L, S, final = replay(len(doc), len(labels), actions, fixed_starts=fixed)
    assert final, rec.doc_id
    assert H[1:].tolist() == heads[1:], rec.doc_id
    assert L[1:].tolist() == labs[1:], rec.doc_id
    assert S[1:].tolist() == doc.sent_starts.tolist(), rec.doc_id
    return actions


@pytest.mark.parametrize("variant", ["plain", "star"])
def test_oracle_round_trip_on_sample(sample_path, variant):
    records = read_conllu(sample_path, variant=variant)
    labels = LabelSet.from_records(records)
    n_swaps = sum(int((check_round_trip(rec, labels, late) == Move.SWAP).sum())
                  for rec in records for late in (False, True))
    if variant == "plain":
        assert n_swaps > 0, "the sample's non-projective sentences are exercised"


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["plain", "star"])
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_oracle_round_trip_on_treebank(path, variant):
    records = read_conllu(need(path), variant=variant)
    labels = LabelSet.from_records(records)
    n_swaps = 0
    for rec in records:
        for late in (False, True):
            actions = check_round_trip(rec, labels, late)
            n_swaps += int((actions == Move.SWAP).sum())
    if variant == "plain" and "train" in path.name:
        assert n_swaps > 0, "non-projective sentences are exercised"


def test_given_boundaries_round_trip(sample_docs):
    labels = LabelSet.from_records(sample_docs)
    for rec in sample_docs:
        check_round_trip(rec, labels, late=False, document_level=False)


def test_early_and_late_boundaries_table_1():
    # two sentences "1 2 3 | 4 5": 2 → 1, 2 → 3, 2 root; 5 → 4, 5 root
    heads = [0, 2, 0, 2, 5, 0]
    labels = [0, 1, 0, 1, 1, 0]
    starts = [0, 1, 0, 0, 1, 0]
    names = {"SHIFT": "sh", "SWAP": "swap", "SB": "sb", "LEFTARC": "la", "RIGHTARC": "ra"}
    early = [names[move_name(a, 2)] for a in oracle_actions(heads, labels, starts, 2)]
    late = [names[move_name(a, 2)] for a in oracle_actions(heads, labels, starts, 2, late=True)]
    assert early == ["sh", "sh", "la", "sh", "sb", "ra", "ra", "sh", "sh", "la", "ra"]
    assert late == ["sh", "sh", "la", "sh", "ra", "ra", "sb", "sh", "sh", "la", "ra"]


def test_swap_as_late_as_possible():
    # non-projective: 1 ← 3 (root), 2 ← 4, 4 ← 1 ("A hearing is scheduled on ..." style)
    heads = [0, 3, 4, 0, 1]
    actions = oracle_actions(heads, [0] * 5, [0, 1, 0, 0, 0], 1)
    state = StateClass(4, 1)
    for a in actions:
        state.apply_clas(int(a))
    assert state.arcs()[0][1:] == heads[1:]
    assert (actions == Move.SWAP).sum() == 1
    assert projective_order(heads, 4) == [0, 1, 2, 4, 3]


def test_cross_sentence_arc_is_rejected():
    with pytest.raises(OracleError):
        oracle_actions([0, 0, 1], [0, 0, 0], [0, 1, 1], 1)


def test_unknown_label_never_crashes():
    labels = LabelSet(["nsubj", "root", "obj"])
    assert labels.encode("nmod:poss") == labels.encode("root")
    assert labels.decode(99) == "root"
    assert LabelSet([]).labels == ["dep"]
