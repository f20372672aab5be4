"""evidence_ablation.compare and silver_trees: the tests over documents and the silver documents."""
import spacy
from spacy.tokens import Doc

from evidence_ablation import compare, markdown
from silver_trees import preset, silver
from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.variants import apply_variant


def arm(f1_counts, las=None):
    """Per-document counts: (true positives, predicted, gold) boundaries per document."""
    per_doc = [{"doc_id": f"{i:05d}:d{i}", "tokens": 100, "sb_tp": tp, "sb_pred": pred, "sb_gold": gold,
                "las": (las or [80] * len(f1_counts))[i], "uas": 90} for i, (tp, pred, gold) in enumerate(f1_counts)]
    tp, pred, gold = (sum(c[k] for c in f1_counts) for k in range(3))
    lt = sum(d["las"] for d in per_doc) / sum(d["tokens"] for d in per_doc)
    return {"scores": {"sents_f": 200 * tp / (pred + gold), "dep_las": 100 * lt}, "per_doc": per_doc}


def test_a_later_arm_better_on_every_document_is_significant_and_not_worse():
    earlier = arm([(5, 10, 10)] * 30)
    later = arm([(8, 10, 10)] * 30, las=[81] * 30)
    out = compare(later, earlier, has_parse=True)
    assert out["documents"] == 30 and out["docs_better"] == 30 and out["docs_worse"] == 0
    assert out["sents_f_wilcoxon_p_better"] < 0.01 and out["sents_f_wilcoxon_p_worse"] > 0.5
    assert out["sents_f_bootstrap_p_better"] < 0.01 and out["sents_f_bootstrap_p_worse"] > 0.5
    assert out["sents_f_delta"] == 30.0 and out["las_bootstrap_p_better"] < 0.01


def test_equal_arms_are_no_difference_and_one_document_has_no_test():
    same = arm([(5, 10, 10), (3, 4, 6), (7, 9, 8)])
    out = compare(same, same, has_parse=False)
    assert out["sents_f_wilcoxon_p_better"] == 1.0 and out["sents_f_bootstrap_p_better"] == 1.0
    assert "las_delta" not in out
    assert "note" in compare(arm([(5, 10, 10)]), arm([(4, 10, 10)]), has_parse=True)


def test_silver_documents_keep_the_derived_boundaries_the_trees_and_the_marks_star_drops():
    nlp = spacy.blank("en")
    words = ["Hello", "there", ".", "General", "Kenobi", "!"]
    gold = Doc(nlp.vocab, words=words, sent_starts=[True, False, False, True, False, False])
    gold.user_data["doc_id"] = "talk#0"
    pre = preset(nlp.vocab, gold)
    assert [t.is_sent_start for t in pre] == [True, False, False, True, False, False]  # every token decided
    parsed = Doc(nlp.vocab, words=words, heads=[1, 1, 1, 4, 4, 4], deps=["intj", "ROOT", "punct", "compound", "ROOT", "punct"])
    doc = silver(parsed, gold)
    assert [t.head.i for t in doc] == [1, 1, 1, 4, 4, 4] and [t.pos_ for t in doc] == ["", "", "PUNCT", "", "", "PUNCT"]
    assert doc.user_data["doc_id"] == "silver/talk#0" and not doc.has_annotation("TAG")
    star = apply_variant(doc_to_record(doc), "star")
    assert star.words == ["hello", "there", "general", "kenobi"] and star.sent_starts == [True, False, True, False]


def test_the_table_marks_significant_changes_against_the_arm_above():
    a, b = arm([(5, 10, 10)] * 30), arm([(8, 10, 10)] * 30)
    results = {"arms": {"base": {}, "better": {}},
               "sets": {"x": {"in_sample": False, "scores": {"base": a["scores"], "better": b["scores"]},
                              "tests": {"better vs base": compare(b, a, has_parse=True)}}}}
    table = markdown(results).splitlines()
    assert table[2] == "| base | 50.00 (80.0) |" and table[3] == "| better | 80.00^ (80.0) |"
