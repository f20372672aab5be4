import random

import pytest

from spacy_joint_sbd.significance import bootstrap_greater, doc_scores, marks, paired, wilcoxon_greater


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
