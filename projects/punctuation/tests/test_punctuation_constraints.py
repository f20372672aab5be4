"""Smoke test of `python scripts/constraints_experiment.py --quick` (a few documents,
1 epoch), with test-time tags predicted by a tiny spaCy tagger trained here, and once with gold
tags (which the outputs must say)."""
import json
import random

import pytest
from treebanks import DATA, EWT, GUM, need

from constraints_experiment import UposMap, main, write_report
from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.graph.constraints import ALL_CONSTRAINTS


@pytest.fixture(scope="module")
def tiny_tagger(tmp_path_factory):
    """A tagger pipeline (blank English + `tagger`) trained for a few steps on EWT dev."""
    import spacy
    from spacy.tokens import Doc
    from spacy.training import Example

    recs = read_conllu(need(EWT / "dev.conllu"))[:10]
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    examples = []
    for rec in recs:
        for start, end in rec.sentences():
            doc = Doc(nlp.vocab, words=rec.words[start:end], spaces=list(rec.spaces[start:end]))
            examples.append(Example.from_dict(doc, {"tags": rec.xpos[start:end]}))
    optimizer = nlp.initialize(lambda: examples)
    rng = random.Random(0)
    for _ in range(3):
        rng.shuffle(examples)
        for i in range(0, len(examples), 16):
            nlp.update(examples[i:i + 16], sgd=optimizer)
    path = tmp_path_factory.mktemp("tagger") / "tiny"
    nlp.to_disk(path)
    return path


def _jsons(out):
    return {p.name: json.loads(p.read_text()) for p in out.glob("*.json")}


def test_quick_predicted_tags(tmp_path, tiny_tagger):
    need(EWT / "train.conllu"), need(EWT / "test.conllu"), need(GUM / "train.conllu"), need(GUM / "dev.conllu")
    out = tmp_path / "out"
    main(["--quick", "--tagger", str(tiny_tagger), "--data-dir", str(DATA), "--output", str(out)])
    results = _jsons(out)
    assert len(results) == 2 * 2 * len(ALL_CONSTRAINTS)  # treebanks x orders x decoding
    for name, r in results.items():
        assert r["test_tags"] == "predicted" and r["train_tags"] == "gold"
        assert r["sentence_boundaries"] == "gold" and r["quick"] and r["epochs"] == 1
        assert 0.0 < r["tagging"]["xpos_acc"] < 1.0
        for v in r["metrics"].values():
            assert 0.0 <= v <= 1.0
        tot = r["totals"]
        assert tot["uas"] == sum(d["uas"] for d in r["per_doc"]) == sum(r["per_sent"]["uas"])
        assert len(r["per_sent"]["sent_id"]) == r["sentences"] > 0
        assert r["metrics"]["uas_nopunct"] == pytest.approx(tot["uas_nopunct"] / tot["tokens_nopunct"])
        if r["decode_constraint"] == "none":
            assert r["significance_vs_none"] is None and r["changed_sentences"] == 0
        else:
            s = r["significance_vs_none"]["sentence/uas_nopunct"]
            assert 0.0 <= s["p_better"] <= 1.0 and 0.0 <= s["p_worse"] <= 1.0
            assert "document/las" in r["significance_vs_none"]
            # The constrained decoder's outputs satisfy the constraint (tree checker), or fell back.
            ps = r["per_sent"]
            assert all(ok != 0 or fb for ok, fb in zip(ps["pred_ok"], ps["fallback"]))
    # Every constraint decodes the same sentences as the unconstrained run.
    base = results["en_gum-order2-train_none-decode_none.json"]
    other = results["en_gum-order2-train_none-decode_sprawl.json"]
    assert other["per_sent"]["sent_id"] == base["per_sent"]["sent_id"]
    text = (out / "RESULTS.md").read_text()
    assert "gold sentence boundaries" in text and "predicted" in text and "QUICK MODE" in text
    assert "69.8" in text and "73.0" in text and "GOLD POS" not in text
    for c in ALL_CONSTRAINTS:
        assert f"| {c} |" in text
    # The report is a function of the JSONs only.
    (out / "RESULTS.md").unlink()
    assert write_report(out) == text


@pytest.mark.slow
def test_quick_gold_tags_are_labelled(tmp_path):
    need(DATA / "en_gum" / "train.conllu")
    out = tmp_path / "out"
    main(["--quick", "--test-tags", "gold", "--treebanks", "en_gum:train:dev", "--orders", "1",
          "--data-dir", str(DATA), "--output", str(out)])
    results = _jsons(out)
    assert len(results) == len(ALL_CONSTRAINTS)
    assert all(r["test_tags"] == "gold" for r in results.values())
    assert "GOLD POS tags at test time" in (out / "RESULTS.md").read_text()


def test_upos_map_backs_off_to_the_tag():
    recs = read_conllu(need(GUM / "dev.conllu"))[:2]
    m = UposMap(recs)
    assert m(["the", "zzzunseen", ","], ["DT", "NN", ","]) == ["DET", "NOUN", "PUNCT"]
    assert m(["x"], ["NOT-A-TAG"]) == ["X"]
