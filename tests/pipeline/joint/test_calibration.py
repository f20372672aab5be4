"""Calibrated `token._.sent_start_prob` (`pipeline.joint.calibration`): the fit, the
error measure, the component using and saving its coefficients, and bad saved values."""
import numpy
import pytest
import spacy

from spacy_joint_sbd.pipeline.joint import calibration


def test_fit_recovers_the_coefficients_of_a_logistic_model():
    rng = numpy.random.default_rng(0)
    n = 20_000
    d = rng.random(n) < 0.3
    X = calibration.evidence(d, rng.random(n), rng.random(n))
    true = numpy.array([-2.0, 3.0, 1.5, 0.5, 1.0])
    y = rng.random(n) < calibration.apply(true, X)
    coef = numpy.array(calibration.fit(X, y, l2=1e-6))
    assert numpy.abs(coef - true).max() < 0.25
    # and the fitted probabilities are calibrated on data of the same kind
    X2 = calibration.evidence(d, rng.random(n), rng.random(n))
    y2 = rng.random(n) < calibration.apply(true, X2)
    assert calibration.expected_calibration_error(calibration.apply(coef, X2), y2) < 0.02


def test_a_batch_is_calibrated_as_each_doc_alone():
    """`calibrated_batch` (what the component runs on a batch of Docs) gives each Doc the same bits
    as `calibrated_probs` on it alone, whatever the lengths, whitespace, presets, missing beams or
    priors and the two regimes' coefficients; fixed tokens keep their decision."""
    import spacy_joint_sbd.pipeline.boundary_prior  # noqa: F401  (registers doc._.boundary_probs)
    from spacy.tokens import Doc

    from spacy_joint_sbd.boundary import DOC_PROBS

    rng = numpy.random.default_rng(3)
    nlp = spacy.blank("en")
    coefs = [[-2.0, 3.0, 1.5, 0.5, 1.0], [-1.1, 2.2, 0.7, -0.3, 0.9]]
    items = []
    for k in range(60):
        n = int(rng.integers(0, 40))
        words = ["\n" if rng.random() < 0.1 else "w" for _ in range(n)]
        doc = Doc(nlp.vocab, words=words, spaces=[False] * n)
        if rng.random() < 0.7:
            doc._.set(DOC_PROBS, rng.random(n).astype(numpy.float32))
        decisions = rng.random(n) < 0.3
        beam = None if rng.random() < 0.2 else rng.random(n)
        presets = rng.choice([-1, 0, 0, 0, 1], size=n) if rng.random() < 0.5 else None
        items.append((doc, decisions, beam, coefs[k % 2], presets))
    batch = calibration.calibrated_batch(items)
    for item, got in zip(items, batch):
        alone = calibration.calibrated_probs(*item)
        assert got.tobytes() == alone.tobytes()
        free = calibration.free_tokens(item[0], item[4])
        assert (got[~free] == item[1][~free]).all() and ((got[free] > 0) & (got[free] < 1)).all()
    # `apply` is the logistic function of the evidence (summed column by column)
    X = calibration.evidence(rng.random(50) < 0.5, rng.random(50), rng.random(50))
    assert calibration.apply(coefs[0], X) == pytest.approx(1 / (1 + numpy.exp(-(X @ numpy.array(coefs[0])))), rel=1e-12)


def test_ece_and_reliability():
    probs = numpy.array([0.05, 0.05, 0.95, 0.95])
    assert calibration.expected_calibration_error(probs, numpy.array([0, 0, 1, 1])) == pytest.approx(0.05)
    assert calibration.expected_calibration_error(probs, numpy.array([1, 1, 0, 0])) == pytest.approx(0.95)
    table = calibration.reliability(numpy.array([0.0, 1.0, 0.55]), numpy.array([0, 1, 1]), bins=10)
    assert [(r["lo"], r["count"]) for r in table] == [(0.0, 1), (0.5, 1), (0.9, 1)]  # p = 1 in the last bin


def test_fit_refuses_one_class():
    X = calibration.evidence([True, False], None, None)
    with pytest.raises(ValueError, match="start a sentence"):
        calibration.fit(X, numpy.array([0.0, 0.0]))


@pytest.mark.parametrize("bad", [{"punctuated": [0.0] * 5}, {"punctuated": [0.0] * 4, "unpunctuated": [0.0] * 5},
                                 {"punctuated": [float("nan")] * 5, "unpunctuated": [0.0] * 5},
                                 {"punctuated": [True] * 5, "unpunctuated": [0.0] * 5}, [1, 2]])
def test_bad_saved_calibration_is_named(bad):
    with pytest.raises(ValueError, match="calibration"):
        calibration.check_calibration(bad, "cfg")


def test_component_calibrates_saves_and_loads(trained_model_dir, sample_examples, tmp_path):
    """Fitted on some documents, the probabilities leave 0 / 1 on free tokens, stay 1 / 0 where the
    model has no choice, follow the parser's decision, and travel with the saved pipeline."""
    _, examples = sample_examples
    nlp = spacy.load(trained_model_dir)
    golds = [eg.reference for eg in examples[:20]]
    rows = calibration.collect(nlp, golds)
    assert {r for _, _, r in rows} <= set(calibration.REGIMES)
    coef = calibration.fit_regimes(rows)
    assert set(coef) == set(calibration.REGIMES)
    crossed = calibration.cross_fitted(rows)
    assert [len(p) for p in crossed] == [len(y) for _, y, _ in rows]
    parser = nlp.get_pipe("joint_sbd_parser")
    raw = nlp(" ".join(t.text for t in golds[0]))
    parser.cfg["calibration"] = coef
    doc = nlp(" ".join(t.text for t in golds[0]))
    assert [t.is_sent_start for t in doc] == [t.is_sent_start for t in raw]  # decisions do not move
    probs = numpy.array([t._.sent_start_prob for t in doc])
    assert doc[0]._.sent_start_prob == 1.0
    free = probs[1:]
    assert ((free > 0.0) & (free < 1.0)).all()
    starts = numpy.array([bool(t.is_sent_start) for t in doc])[1:]
    if starts.any():
        assert free[starts].mean() > free[~starts].mean()
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    # srsly's JSON reader parses floats to within an ulp, not always to the nearest double
    saved = loaded.get_pipe("joint_sbd_parser").cfg["calibration"]
    assert set(saved) == set(coef) and all(saved[k] == pytest.approx(coef[k], rel=1e-12, abs=1e-15) for k in coef)
    again = loaded(" ".join(t.text for t in golds[0]))
    assert [t._.sent_start_prob for t in again] == pytest.approx(list(probs))


def test_a_forced_boundary_keeps_probability_one(trained_model_dir):
    nlp = spacy.load(trained_model_dir)
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = {k: [0.0] * 5 for k in calibration.REGIMES}
    doc = nlp.make_doc("the cat sat on the mat and the dog barked")
    doc[4].is_sent_start = True
    doc[6].is_sent_start = False
    doc = nlp(doc)
    probs = [t._.sent_start_prob for t in doc]
    assert probs[4] == 1.0 and probs[6] == 0.0 and probs[0] == 1.0
    assert all(p == pytest.approx(0.5) for i, p in enumerate(probs) if i not in (0, 4, 6))  # all-zero coefficients
