"""Words-only decoding for the supervised graph parser: decode the words with punctuation stripped
and re-attach the marks (`graph.constrained_decoding.decode_words_only`)."""
import numpy
import pytest
import spacy

from spacy_joint_sbd.graph.punct_attach import reattach_punct
from spacy_joint_sbd.graph.constrained_decoding import decode_constrained, decode_words_only
from spacy_joint_sbd.graph.constraints import CONSTRAINTS, violations
from spacy_joint_sbd.graph.punct_fragments import strip_punct, word_fragments


@pytest.mark.parametrize("order", [1, 2])
def test_words_tree_is_the_constrained_tree_of_the_words(order):
    rng = numpy.random.default_rng(order)
    for _ in range(30):
        n = int(rng.integers(2, 12))
        is_punct = [bool(rng.random() < 0.25) for _ in range(n)]
        arc = rng.normal(size=(n + 1, n + 1))
        sib = rng.normal(size=(n + 1, n + 1, n + 1)) if order == 2 else None
        keep = [0] + [i + 1 for i, p in enumerate(is_punct) if not p]
        for name in ("none",) + CONSTRAINTS:
            heads, fell = decode_words_only(arc, sib, is_punct, name)
            assert len(heads) == n and sum(h == -1 for h in heads) == 1
            # marks take no dependents
            assert not any(is_punct[h] for h in heads if h >= 0)
            words, _ = strip_punct(heads, is_punct)
            if len(keep) > 1:
                sub = arc[numpy.ix_(keep, keep)]
                subsib = None if sib is None else sib[numpy.ix_(keep, keep, keep)]
                expect, efell = decode_constrained(sub, subsib, word_fragments(is_punct), name)
                assert words == expect and fell == efell
                assert heads == reattach_punct(expect, is_punct)
                if not fell:
                    assert violations(words, word_fragments(is_punct), name) == []


def test_without_punctuation_it_is_plain_decoding():
    rng = numpy.random.default_rng(5)
    arc = rng.normal(size=(7, 7))
    assert decode_words_only(arc, None, [False] * 6, "sprawl") == decode_constrained(arc, None, [], "sprawl")
    assert decode_words_only(arc[:3, :3], None, [True, True], "loose") == ([-1, 0], False)
    with pytest.raises(ValueError, match="punctuation flags"):
        decode_words_only(arc, None, [False] * 5)


def test_component_option():
    import spacy_joint_sbd.pipeline.constrained_parser  # noqa: F401

    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("sprawl_decoder", config={"words_only": True})
    assert pipe.cfg["words_only"] is True
    assert nlp.add_pipe("constrained_parser").cfg["words_only"] is False
