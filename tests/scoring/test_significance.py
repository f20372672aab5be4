import random

import pytest

from spacy_joint_sbd.significance import (bootstrap_corpus_greater, bootstrap_greater, corpus_score, doc_scores, marks,
                                          paired, wilcoxon_greater)


def metrics(las_per_doc):
    return {"per_doc": [{"doc_id": f"d{i}", "tokens": 100, "las": las, "uas": las, "sb_tp": las // 10,
                         "sb_pred": 10, "sb_gold": 10} for i, las in enumerate(las_per_doc)]}


def test_clear_improvement_is_significant_and_marked():
    rng = random.Random(1)
    base = [rng.randint(60, 80) for _ in range(60)]
    better = [b + rng.randint(1, 5) for b in base]
    xs, ys = paired(metrics(better), metrics(base), "las")
    assert wilcoxon_greater(xs, ys) < 0.01
    assert bootstrap_greater(xs, ys, samples=2000) < 0.01
    assert marks(metrics(better), {"senter": metrics(base), "joint": metrics(better)}, "las") == "†"


def test_noise_is_not_significant():
    rng = random.Random(2)
    base = [rng.randint(60, 80) for _ in range(60)]
    noisy = [b + rng.choice([-2, -1, 1, 2]) for b in base]
    xs, ys = paired(metrics(noisy), metrics(base), "las")
    assert wilcoxon_greater(xs, ys) > 0.01
    assert wilcoxon_greater(ys, ys) == 1.0


def test_sentence_f1_per_document_and_mismatch():
    s = doc_scores(metrics([70, 80]), "sents_f")
    assert s["d0"] == pytest.approx(0.7) and s["d1"] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="same documents"):
        paired(metrics([1, 2]), metrics([1]), "las")


def test_corpus_bootstrap_tests_the_corpus_score_not_the_mean_of_documents():
    """A system better on many short documents but worse on one long one has the better mean of
    per-document LAS and the worse corpus LAS: the corpus-level bootstrap follows the corpus score."""
    def docs(las_short, las_long):
        short = [{"doc_id": f"s{i}", "tokens": 10, "las": las_short, "uas": las_short, "sb_tp": 1, "sb_pred": 1,
                  "sb_gold": 1} for i in range(30)]
        return {"per_doc": short + [{"doc_id": "long", "tokens": 3000, "las": las_long, "uas": las_long,
                                     "sb_tp": 1, "sb_pred": 1, "sb_gold": 1}]}

    a, b = docs(9, 2000), docs(8, 2400)
    xs, ys = paired(a, b, "las")
    assert sum(xs) > sum(ys)  # A wins the per-document mean...
    assert corpus_score(a["per_doc"], "las") < corpus_score(b["per_doc"], "las")  # ...and loses the corpus
    assert bootstrap_corpus_greater(a, b, "las", samples=500) > 0.5
    assert bootstrap_corpus_greater(b, a, "las", samples=500) < 0.5
    assert corpus_score(a["per_doc"], "sents_f") == 1.0
    with pytest.raises(ValueError, match="same"):
        bootstrap_corpus_greater(a, {"per_doc": a["per_doc"][:3]}, "las")
    with pytest.raises(ValueError, match="measure"):
        corpus_score(a["per_doc"], "f1")
