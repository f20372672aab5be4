"""The content of one early, one max-violation and one DLaSO update (bjorkelund2016 §3,
Algorithm 1), worked out by hand on a 3-token document with 2 labels and beam width 2.

Weights by hand: every weight is 0 except the bias feature's weight for SB, which is 1. Every
state has the bias feature (template 1, `state_features(...)[0]`) and no other feature of the
states below shares its row, so every move scores 0 except SB, which scores 1. Ties go to the
candidate found first (parent rank, then class id), as `beam` documents.

Classes (L = 2): SHIFT 0, SWAP 1, SB 2, LEFTARC(0) 3, LEFTARC(1) 4, RIGHTARC(0) 5, RIGHTARC(1) 6.
Gold: one sentence, 2 → 1 (label 0), 2 → 3 (label 1), 2 the root (label 1); the oracle's
sequence is SH SH LA0 SH RA1 RA1. Write c_t for the gold state after t moves.

The beam, step by step (score in brackets, gold items starred):
  t=1  c_0 allows only SHIFT:                                  [*SH (0)]
  t=2  from c_1: SB (1) beats SHIFT, RA0, RA1 (0); SHIFT came first among the 0s:
                                                               [SH SB (1), *SH SH (0)]
  t=3  from SH SB (stack 0 1, b0 = LAST(S) = 2): only RA0, RA1 (1); from c_2 the best is SB (1),
       a tie lost to the earlier parent: gold falls off.        [SH SB RA0 (1), SH SB RA1 (1)]
An update ΔΦ adds φ(gold state)[gold move] for the gold moves after the last common state and
subtracts φ(predicted state)[predicted move] for the predicted ones (the perceptron's step is 1,
so W changes by exactly ΔΦ).
"""
import numpy
import pytest

from spacy_joint_sbd.learn import make_learner
from spacy_joint_sbd.transition import Engine
from spacy_joint_sbd.transition.oracle import OracleError
from spacy_joint_sbd.transition.testing import gold_score, replay, state_features

SH, SWAP, SB, LA0, LA1, RA0, RA1 = range(7)
GOLD = [SH, SH, LA0, SH, RA1, RA1]
N_ROWS = 1 << 16
ATTRS = numpy.arange(6, dtype=numpy.uint64).reshape(3, 2) + 10


def engine_by_hand():
    engine = Engine(2, 2, 0, 1, [], n_rows=N_ROWS)
    W = numpy.zeros((N_ROWS, 7), dtype=numpy.float32)
    bias = state_features(engine, ATTRS, [])[0]
    W[bias % N_ROWS, SB] = 1.0
    engine.weights.set_params({"W": W})
    return engine, bias % N_ROWS


def delta(engine, terms):
    """Σ sign · φ(state reached by `prefix`)[clas] over terms (prefix, clas, sign), dense."""
    out = numpy.zeros((N_ROWS, 7), dtype=numpy.float32)
    for prefix, clas, sign in terms:
        for key in state_features(engine, ATTRS, prefix):
            out[key % N_ROWS, clas] += sign
    return out


def train(update):
    engine, bias_row = engine_by_hand()
    before = engine.weights.get_params()["W"].copy()
    stats = engine.train(ATTRS, GOLD, update, 2, make_learner("perceptron"))
    return engine, engine.weights.get_params()["W"] - before, stats


def test_weights_by_hand_score_only_sb():
    engine, bias_row = engine_by_hand()
    prefixes = [GOLD[:t] for t in range(6)] + [[SH, SB], [SH, SB, RA0], [SH, SB, RA0, SH],
                                                [SH, SB, RA0, SH, SB], [SH, SH, LA0, SB]]
    for prefix in prefixes:
        rows = state_features(engine, ATTRS, prefix) % N_ROWS
        assert (rows == bias_row).sum() == 1, prefix  # no feature collides with the bias
    assert gold_score(engine, ATTRS, GOLD) == 0.0
    assert gold_score(engine, ATTRS, [SH, SB, RA0, SH, SB]) == 2.0


def test_early_update():
    """Search stops at t = 3; the last common state is c_1:
    ΔΦ = φ(c_1)[SH] + φ(c_2)[LA0] − φ(c_1)[SB] − φ(SH SB)[RA0]."""
    engine, dW, stats = train("early")
    want = delta(engine, [(GOLD[:1], SH, 1), (GOLD[:2], LA0, 1),
                          ([SH], SB, -1), ([SH, SB], RA0, -1)])
    assert numpy.array_equal(dW, want)
    assert stats == {"n_gold": 6, "used": 3, "violations": 1, "errors": 1, "tau": 1.0, "end_unfinished": 0}


def test_max_violation_update():
    """Search goes on to t = 6 with the gold item gone (the beam never gets it back):
      t=4  from SH SB RA0 / RA1 (stack 0, b0 = LAST(S) = 2): only SHIFT    [… SH (1), … SH (1)]
      t=5  from each (stack 0 2, b0 = 3): SB (2) beats SHIFT, RA0, RA1 (1)  [… SH SB (2) ×2]
      t=6  only RA0, RA1 (2)
    Violations score(best) − score(c_t) at t = 2..6: 1, 1, 1, 2, 2; the first largest is at t = 5, with
    best item SH SB RA0 SH SB, whose last gold state is c_1:
    ΔΦ = φ(c_1)[SH] + φ(c_2)[LA0] + φ(c_3)[SH] + φ(c_4)[RA1]
         − φ(c_1)[SB] − φ(SH SB)[RA0] − φ(SH SB RA0)[SH] − φ(SH SB RA0 SH)[SB]."""
    engine, dW, stats = train("max_violation")
    want = delta(engine, [(GOLD[:1], SH, 1), (GOLD[:2], LA0, 1), (GOLD[:3], SH, 1),
                          (GOLD[:4], RA1, 1),
                          ([SH], SB, -1), ([SH, SB], RA0, -1), ([SH, SB, RA0], SH, -1),
                          ([SH, SB, RA0, SH], SB, -1)])
    assert numpy.array_equal(dW, want)
    # at t = 6 the best item (SH SB RA0 SH SB RA0) has not shifted token 3: a finished gold
    # derivation is compared with an unfinished one
    assert stats == {"n_gold": 6, "used": 5, "violations": 1, "errors": 1, "tau": 1.0, "end_unfinished": 1}


def test_dlaso_update():
    """DLaSO (Algorithm 1) stores the early update at t = 3, reseeds the beam with c_3, and goes on:
      t=4  from c_3 (stack 0 2, b0 = 3): SB (1) beats SHIFT (0)        [c_3 SB (1), *c_4 (0)]
      t=5  from c_3 SB (b0 = LAST(S) = 3): only RA0, RA1 (1); c_4's moves (0) lose: gold falls off
           again; stored: φ(c_3)[SH] + φ(c_4)[RA1] − φ(c_3)[SB] − φ(c_3 SB)[RA0]; reseed with c_5
      t=6  from c_5: RA0 and RA1 (0) tie, RA0 first: the search ends with a non-gold best item;
           stored: φ(c_5)[RA1] − φ(c_5)[RA0]
    The sum of the three is applied once, after the document."""
    engine, dW, stats = train("dlaso")
    c = GOLD
    want = delta(engine, [(c[:1], SH, 1), (c[:2], LA0, 1), ([SH], SB, -1), ([SH, SB], RA0, -1),
                          (c[:3], SH, 1), (c[:4], RA1, 1), (c[:3], SB, -1), (c[:3] + [SB], RA0, -1),
                          (c[:5], RA1, 1), (c[:5], RA0, -1)])
    assert numpy.array_equal(dW, want)
    assert stats == {"n_gold": 6, "used": 6, "violations": 3, "errors": 2, "tau": 1.0, "end_unfinished": 0}


@pytest.mark.parametrize("update", ["early", "max_violation", "dlaso"])
def test_pa_step_on_the_same_update(update):
    """PA-I scales the same ΔΦ by min(C, loss / ‖ΔΦ‖²), loss = Σ (score(pred) − score(gold) + 1)
    over the violations: early 2; max-violation 2 + 1 = 3; DLaSO 2 + 2 + 1 = 5."""
    _, dW_perceptron, _ = train(update)
    engine, bias_row = engine_by_hand()
    before = engine.weights.get_params()["W"].copy()
    stats = engine.train(ATTRS, GOLD, update, 2, make_learner("pa", C=1.0))
    dW = engine.weights.get_params()["W"] - before
    loss = {"early": 2.0, "max_violation": 3.0, "dlaso": 5.0}[update]
    tau = min(1.0, loss / float((dW_perceptron.astype(numpy.float64) ** 2).sum()))
    assert 0 < tau < 1
    assert numpy.allclose(dW, tau * dW_perceptron, rtol=1e-6, atol=1e-7)
    assert stats["tau"] == pytest.approx(tau, rel=1e-6)


@pytest.mark.parametrize("learner", ["perceptron", "pa"])
def test_greedy_update(learner):
    """greedy (beam 1, §4's baseline) on 2 tokens, gold SH SH LA0 RA1 (2 → 1, 2 the root), with
    bias weights SB 1, LA0 0.5, RA1 0.5: at c_1 SB (1) beats SHIFT (0), the one mistake; at c_2
    LA0 (0.5) and at c_3 RA1 (0.5) win. The update is ΔΦ = φ(c_1)[SH] − φ(c_1)[SB], applied at
    once with the learner's step: 1 for the perceptron (the paper's "plain averaged perceptron"),
    PA-I's min(C, loss / ‖ΔΦ‖²) = 2 / ‖ΔΦ‖² for "pa" (loss = 1 − 0 + 1), which is what
    `update="greedy"` does with the component's default learner "pa"."""
    attrs = ATTRS[:2].copy()
    gold = [SH, SH, LA0, RA1]
    engine = Engine(2, 2, 0, 1, [], n_rows=N_ROWS)
    bias = state_features(engine, attrs, [])[0] % N_ROWS
    for prefix in ([], [SH], [SH, SH], [SH, SH, LA0]):
        assert (state_features(engine, attrs, prefix) % N_ROWS == bias).sum() == 1
    W = numpy.zeros((N_ROWS, 7), dtype=numpy.float32)
    W[bias, [SB, LA0, RA1]] = [1.0, 0.5, 0.5]
    engine.weights.set_params({"W": W})
    stats = engine.train(attrs, gold, "greedy", 1, make_learner(learner))
    dW = engine.weights.get_params()["W"] - W
    dphi = numpy.zeros_like(W)
    for key in state_features(engine, attrs, [SH]):
        dphi[key % N_ROWS, SH] += 1
        dphi[key % N_ROWS, SB] -= 1
    tau = 1.0 if learner == "perceptron" else 2.0 / float((dphi ** 2).sum())
    assert numpy.allclose(dW, tau * dphi, rtol=1e-6, atol=0)
    assert stats == {"n_gold": 4, "used": 4, "violations": 1, "errors": 1,
                     "tau": pytest.approx(tau, rel=1e-6), "end_unfinished": 0}
    assert engine.weights.time == 4  # one tick per transition


def _laso_reference(engine, width, learner):
    """LaSO (Daumé III & Marcu 2005) spelt out with `replay` and `gold_score`: the beam keeps the
    `width` best prefixes by (score desc, parent rank, class id), a final prefix carried over
    unchanged; when the gold prefix falls off, ΔΦ (from the last common prefix) is applied at once
    with the learner's step — loss = score(pred) − score(gold prefix) + 1 under the current
    weights — and the beam restarts from the gold prefix; after the last step a non-gold best
    prefix gets one more update. Returns (updates, Σ τ, whether the end-of-document one was made)."""
    beam, t, n_updates, taus = [[]], 0, 0, 0.0

    def update(pred):
        gold = GOLD[:len(pred)]
        k = next((j for j in range(len(pred)) if pred[j] != gold[j]), len(pred))
        dphi = delta(engine, [(gold[:j], gold[j], 1) for j in range(k, len(pred))]
                     + [(pred[:j], pred[j], -1) for j in range(k, len(pred))])
        loss = gold_score(engine, ATTRS, pred) - gold_score(engine, ATTRS, gold) + 1.0
        tau = learner.step(loss, float((dphi.astype(numpy.float64) ** 2).sum()))
        W = engine.weights.get_params()["W"]
        engine.weights.set_params({"W": W + numpy.float32(tau) * dphi})
        return tau

    while t < len(GOLD):
        cands = []
        for rank, prefix in enumerate(beam):
            if replay(3, 2, prefix)[3]:
                cands.append((gold_score(engine, ATTRS, prefix), rank, -1, prefix))
                continue
            for clas in range(7):
                try:
                    cands.append((gold_score(engine, ATTRS, prefix + [clas]), rank, clas, prefix + [clas]))
                except OracleError:
                    pass
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        beam = [c[3] for c in cands[:width]]
        t += 1
        if GOLD[:t] not in beam:
            taus += update(beam[0])
            n_updates += 1
            beam = [GOLD[:t]]
    end = beam[0] != GOLD
    if end:
        taus += update(beam[0])
        n_updates += 1
    return n_updates, taus, end


@pytest.mark.parametrize("learner", ["perceptron", "pa"])
def test_laso_update(learner):
    """laso (LaSO, the undelayed DLaSO) applies the early update of t = 3 at once, reseeds with c_3
    and searches on with the new weights; the weights it ends with equal a reference search spelt
    out with `replay` / `gold_score` (which also checks that PA's loss compares gold and predicted
    scores of the same, updated, weights)."""
    engine, _ = engine_by_hand()
    stats = engine.train(ATTRS, GOLD, "laso", 2, make_learner(learner))
    reference, _ = engine_by_hand()
    n_updates, taus, _ = _laso_reference(reference, 2, make_learner(learner))
    got, want = engine.weights.get_params()["W"], reference.weights.get_params()["W"]
    assert numpy.allclose(got, want, rtol=1e-6, atol=1e-7)
    assert stats["violations"] == n_updates >= 2
    assert stats["used"] == 6 and stats["tau"] == pytest.approx(taus, rel=1e-6)


def test_laso_matches_reference_on_random_weights():
    """The same reference on random weight tables, beam widths 1–3 and both learners: these reach
    the end-of-document update after earlier ones and final items carried over, which the
    hand-worked weights do not."""
    ends = 0
    for seed in range(8):
        W = (numpy.random.default_rng(seed).normal(size=(N_ROWS, 7)) * 0.3).astype(numpy.float32)
        for width in (1, 2, 3):
            for learner in ("perceptron", "pa"):
                engine, reference = Engine(2, 2, 0, 1, [], n_rows=N_ROWS), Engine(2, 2, 0, 1, [], n_rows=N_ROWS)
                engine.weights.set_params({"W": W})
                reference.weights.set_params({"W": W})
                stats = engine.train(ATTRS, GOLD, "laso", width, make_learner(learner))
                n_updates, taus, end = _laso_reference(reference, width, make_learner(learner))
                assert numpy.allclose(engine.weights.get_params()["W"], reference.weights.get_params()["W"],
                                      rtol=1e-5, atol=1e-6), (seed, width, learner)
                assert stats["violations"] == n_updates and stats["tau"] == pytest.approx(taus, rel=1e-5)
                ends += end and n_updates > 1
    assert ends > 0  # the end-of-document update after an earlier one was exercised
