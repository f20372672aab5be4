"""The boundary model: encoding (non-space tokens, layout gaps, mark classes, regimes), logistic
SGD that learns, calibration, serialization, argument checks."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.boundary import BoundaryModel, platt_fit
from spacy_joint_sbd.boundary.features import N_ATTR_COLS, gap_features, score_doc, train_doc
from spacy_joint_sbd.boundary.model import (MARK_CLOSER, MARK_FINAL, MARK_PUNCT, MARK_WORD, _density_bins, doc_text,
                                            mark_class)
from spacy_joint_sbd.boundary.train import WEIGHT_KEY, encode_docs, train_encoded
from spacy_joint_sbd.corpus.docs import record_to_doc
from spacy_joint_sbd.corpus.variants import apply_variant
from spacy_joint_sbd.learn import HashedWeights


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


def gold_docs(nlp, records, variant):
    out = []
    for rec in records:
        rv = apply_variant(rec, variant)
        doc = record_to_doc(nlp.vocab, rv, annotations=False)
        for t, s in zip(doc, rv.sent_starts):
            t.is_sent_start = bool(s)
        out.append(doc)
    return out


def test_mark_classes():
    assert mark_class(".", True) == MARK_FINAL
    assert mark_class("?!", True) == MARK_FINAL
    assert mark_class("...", True) == MARK_FINAL
    assert mark_class('"', True) == MARK_CLOSER
    assert mark_class(")", True) == MARK_CLOSER
    assert mark_class(",", True) == MARK_PUNCT
    assert mark_class("word", False) == MARK_WORD


def test_encode_leaves_out_whitespace_and_keeps_layout(nlp):
    doc = nlp("One line.\n\nTwo lines\nhere and there")
    bm = BoundaryModel(1 << 10)
    attrs, pos = bm.encode(doc)
    words = [doc[int(i)].text for i in pos]
    assert words == ["One", "line", ".", "Two", "lines", "here", "and", "there"]
    assert attrs.shape == (8, N_ATTR_COLS)
    gaps = dict(zip(words, attrs[:, 4].tolist()))
    assert gaps["Two"] == 2 and gaps["here"] == 1 and gaps["lines"] == 0
    assert attrs[2, 5] == MARK_FINAL and attrs[0, 5] == MARK_WORD


def test_regimes_tell_punctuated_from_bare_text(nlp):
    bm = BoundaryModel(1 << 10)
    punct, _ = bm.encode(nlp("It rained. We stayed in. The cat slept. Then it stopped."))
    bare, _ = bm.encode(nlp("it rained we stayed in the cat slept then it stopped"))
    assert (punct[:, 6] > 0).all() and (bare[:, 6] == 0).all()  # final-mark density
    assert (punct[:, 7] > 0).all() and (bare[:, 7] == 0).all()  # cased words


def test_paragraph_windows_stop_the_regime_at_blank_lines(nlp):
    """A bare paragraph inside a punctuated document reads as bare text with `paragraphs`; without
    it the punctuated paragraphs around it set its regime. No blank line: the same columns."""
    text = "It rained. We stayed in.\n\nso then we went home and slept\n\nThe cat slept. Then it stopped."
    doc = nlp(text)
    wide, pos = BoundaryModel(1 << 10).encode(doc)
    narrow, _ = BoundaryModel(1 << 10, paragraphs=True).encode(doc)
    bare = numpy.asarray([doc[int(i)].idx in range(text.index("so"), text.index("\n\nThe")) for i in pos])
    assert " ".join(doc[int(i)].text for i in pos[bare]) == "so then we went home and slept"
    assert (wide[bare, 6] > 0).all() and (wide[bare, 7] > 0).all()
    assert (narrow[bare, 6] == 0).all() and (narrow[bare, 7] == 0).all()
    assert numpy.array_equal(wide[:, :6], narrow[:, :6]) and numpy.array_equal(wide[:, 8:], narrow[:, 8:])
    flat = nlp(text.replace("\n\n", " "))
    assert numpy.array_equal(BoundaryModel(1 << 10).encode(flat)[0], BoundaryModel(1 << 10, paragraphs=True).encode(flat)[0])
    with pytest.raises(ValueError, match="paragraphs must be a bool"):
        BoundaryModel(1 << 10, paragraphs=1)


def test_gold_moves_a_start_on_whitespace_to_the_next_word(nlp):
    doc = Doc(nlp.vocab, words=["a", "\n\n", "b", "c"], spaces=[False, False, True, False])
    bm = BoundaryModel(1 << 10)
    _, pos = bm.encode(doc)
    assert bm.gold(doc, pos, [True, True, False, False]).tolist() == [0, 1, 0]


def _gold_by_token(doc, pos, starts=None):
    """The rule of `BoundaryModel.gold` token by token (what it computed before it was vectorised)."""
    starts = [t.is_sent_start for t in doc] if starts is None else starts
    out, carry = numpy.zeros((len(doc) + 1,), dtype=numpy.uint8), False
    for i, t in enumerate(doc):
        s = bool(starts[i]) and i > 0
        if t.is_space:
            carry = carry or s
            continue
        out[i], carry = int(s or carry), False
    return out[pos]


def test_gold_and_doc_text_follow_the_token_rule_on_random_docs(nlp):
    """Sentence starts on words, on whitespace runs (carried to the next word), leading and
    trailing whitespace, given or read from the Doc; and the text rebuilt from ORTH ids."""
    rng = numpy.random.RandomState(7)
    bm = BoundaryModel(1 << 10)
    for _ in range(2000):
        n = int(rng.randint(0, 12))
        words = [str(w) for w in rng.choice(["a", "B", ".", "\n", "\n\n", " ", "\r\n"], n)]
        doc = Doc(nlp.vocab, words=words, spaces=(rng.rand(n) < 0.6).tolist(),
                  sent_starts=[[None, True, False][k] for k in rng.randint(0, 3, n)] if n else None)
        _, pos = bm.encode(doc)
        assert bm.gold(doc, pos).tolist() == _gold_by_token(doc, pos).tolist()
        given = [[None, True, False, 0, 1][k] for k in rng.randint(0, 5, n)]
        assert bm.gold(doc, pos, given).tolist() == _gold_by_token(doc, pos, given).tolist()
        assert doc_text(doc, doc.to_array("ORTH").astype(numpy.uint64)) == doc.text
    with pytest.raises(ValueError, match="starts has 1 values for a Doc of 2 tokens"):
        bm.gold(Doc(nlp.vocab, words=["a", "b"]), numpy.arange(2), [True])
    with pytest.raises(ValueError, match="orth has 1 ids for a Doc of 2 tokens"):
        doc_text(Doc(nlp.vocab, words=["a", "b"]), numpy.zeros((1,), dtype=numpy.uint64))


def test_learns_boundaries_and_calibrates(nlp, sample_docs):
    train, held = sample_docs[:22], sample_docs[22:]
    docs = gold_docs(nlp, train, "plain") + gold_docs(nlp, train, "star")
    bm = BoundaryModel(1 << 18)
    train, _ = encode_docs(bm, docs, held_out_every=0)
    losses = [e["loss"] for e in train_encoded(bm, train, epochs=3, lr=0.1)["epochs"]]
    assert losses[-1] < losses[0]
    test = gold_docs(nlp, held, "plain")
    tp = fp = fn = 0
    for doc in test:
        p = bm.probs(doc)
        assert p.shape == (len(doc),) and p[0] == 1.0 and ((p >= 0) & (p <= 1)).all()
        for i in range(1, len(doc)):
            pred, gold = p[i] >= 0.5, bool(doc[i].is_sent_start)
            tp, fp, fn = tp + (pred and gold), fp + (pred and not gold), fn + (gold and not pred)
    f1 = 2 * tp / (2 * tp + fp + fn)
    assert f1 > 0.6, f1
    a, b = bm.calibrate(test)
    assert numpy.isfinite([a, b]).all() and a > 0


def test_one_class_loops_sum_and_update_as_the_weight_table_does(nlp, sample_docs):
    """The boundary loops add a gap's cells in feature order, bit for bit what `HashedWeights.score`
    (the many-class kernel) gives, and a training step moves exactly the gap's cells, each by the
    logistic step (lr · (gold − p)), U by time · step, one tick per gap."""
    doc = gold_docs(nlp, sample_docs[:1], "plain")[0]
    bm = BoundaryModel(1 << 12)
    attrs, pos = bm.encode(doc)
    rng = numpy.random.RandomState(3)
    W = rng.normal(0, 1, (1 << 12, 1)).astype(numpy.float32)  # sums that depend on their order
    bm.weights.set_params({"W": W})
    scores = score_doc(W, attrs)
    for i in range(1, len(attrs)):
        assert scores[i] == bm.weights.score(gap_features(attrs, i))[0]
    attrs, gold = attrs[:2], numpy.array([0, 1], dtype=numpy.uint8)  # one gap, a boundary
    keys = gap_features(attrs, 1)
    rows = numpy.unique(keys % (1 << 12))
    bm.weights.tick(5)  # a step at time 5: U moves by 5 steps
    before, u_before, t0 = W.copy(), bm.weights.get_params()["U"].copy(), bm.weights.time
    loss = train_doc(bm.weights, attrs, gold, lr=0.5)
    after = bm.weights.get_params()
    s = float(before[keys % (1 << 12), 0].astype(numpy.float64).sum())
    step = 0.5 * (1.0 - 1.0 / (1.0 + numpy.exp(-s)))
    count = numpy.bincount(keys % (1 << 12), minlength=1 << 12)[rows]
    moved = after["W"][rows, 0] - before[rows, 0]
    assert numpy.allclose(moved, count * step, rtol=1e-4, atol=1e-6)
    assert numpy.allclose(after["U"][rows, 0] - u_before[rows, 0], count * t0 * step, rtol=1e-4, atol=1e-6)
    untouched = numpy.setdiff1d(numpy.arange(1 << 12), rows)
    assert numpy.array_equal(after["W"][untouched], before[untouched])
    assert bm.weights.time == t0 + 1 and loss == pytest.approx(numpy.log1p(numpy.exp(-s)), rel=1e-5)
    with pytest.raises(ValueError, match="i must be a gap"):
        gap_features(attrs, 2)


def test_state_round_trip(nlp, sample_docs):
    docs = gold_docs(nlp, sample_docs[:5], "plain")
    bm = BoundaryModel(1 << 12)
    train_encoded(bm, encode_docs(bm, docs, held_out_every=0)[0], epochs=1)
    bm.platt = (0.9, -0.2)
    other = BoundaryModel(1 << 12)
    other.set_state(bm.get_state())
    assert numpy.array_equal(other.probs(docs[0]), bm.probs(docs[0]))
    with pytest.raises(ValueError):
        BoundaryModel(1 << 11).set_state(bm.get_state())
    with pytest.raises(ValueError):
        other.set_state({**bm.get_state(), "platt": [float("nan"), 0.0]})


def test_platt_fit_recovers_a_known_scale():
    rng = numpy.random.RandomState(0)
    x = rng.normal(0, 3, 20000)
    y = (rng.uniform(size=x.shape) < 1 / (1 + numpy.exp(-(0.5 * x - 1.0)))).astype(float)
    a, b = platt_fit(x, y)
    assert abs(a - 0.5) < 0.05 and abs(b + 1.0) < 0.1


def test_hot_loops_check_their_arguments():
    w = HashedWeights(16, 1)
    good = numpy.zeros((3, N_ATTR_COLS), dtype=numpy.uint64)
    with pytest.raises(ValueError):
        train_doc(w, numpy.zeros((3, 2), dtype=numpy.uint64), [0, 1, 0])
    with pytest.raises(ValueError):
        train_doc(w, good, [0, 1])
    with pytest.raises(ValueError):
        train_doc(w, good, [0, 1, 0], lr=float("nan"))
    with pytest.raises(ValueError):
        train_doc(HashedWeights(16, 3), good, [0, 1, 0])
    with pytest.raises(ValueError):
        score_doc(numpy.zeros((16, 2), dtype=numpy.float32), good)
    assert score_doc(numpy.zeros((16, 1), dtype=numpy.float32), good[:0]).shape == (0,)
    assert train_doc(w, good[:1], [1]) == 0.0
    with pytest.raises(ValueError):
        BoundaryModel(0)
    with pytest.raises(ValueError):
        BoundaryModel(16, window=0)


WRAPPED = ("The committee met on Tuesday to discuss the budget for the coming year\n"
           "and agreed that the library would keep its opening hours. Members asked\n"
           "whether the new roof could wait until spring, and the treasurer said it\n"
           "could not.\n\n"
           "A second paragraph follows here with more words than the first line has\n"
           "so that it wraps as well.\n")
TURNS = "A: hi\nB: hello there how are you doing today\nA: ok\nB: fine thanks and you\nA: good\nB: great\n"


def test_line_codes_tell_wrapped_prose_from_turns():
    from spacy_joint_sbd.boundary.model import line_codes

    def codes(text, words):
        return line_codes(text, numpy.asarray([text.index(w) for w in words])).tolist()

    assert codes(WRAPPED, ["and agreed", "whether", "could not", "so that"]) == [4, 4, 4, 4]  # full, regular
    assert codes(TURNS, ["B: hello", "A: ok", "B: fine", "A: good"]) == [1, 2, 1, 1]  # irregular
    assert codes("one\r\ntwo\rthree\n", ["two", "three"]) == [1, 1]  # any newline convention; short beside "three"
    assert line_codes("", numpy.zeros((0,), dtype=numpy.int64)).shape == (0,)


def test_line_codes_only_after_a_single_line_break_and_only_for_new_models(nlp):
    doc = nlp(WRAPPED)
    attrs, pos = BoundaryModel(1 << 10).encode(doc)
    after = {doc[int(i)].text for i, a in zip(pos, attrs) if a[8]}
    assert after == {"and", "whether", "could", "so"}  # not "A" after the blank line
    assert (attrs[attrs[:, 4] != 1, 8] == 0).all()
    old, _ = BoundaryModel(1 << 10, lines=False).encode(doc)
    assert (old[:, 8] == 0).all() and numpy.array_equal(old[:, :8], attrs[:, :8])


def test_a_model_saved_before_line_codes_scores_as_it_did(nlp, sample_docs):
    """A state without "lines" loads without them: column 8 stays 0 and the line templates never
    fire, so its scores are those of the features it was trained on."""
    docs = gold_docs(nlp, sample_docs[:5], "plain")
    bm = BoundaryModel(1 << 12, lines=False)
    train_encoded(bm, encode_docs(bm, docs, held_out_every=0)[0], epochs=1)
    state = bm.get_state()
    assert state["lines"] is False
    del state["lines"]
    loaded = BoundaryModel(1 << 12)
    loaded.set_state(state)
    doc = nlp(WRAPPED)
    assert loaded.lines is False and numpy.array_equal(loaded.probs(doc), bm.probs(doc))
    attrs, _ = BoundaryModel(1 << 12).encode(doc)  # with codes: the extra templates change scores
    bare = attrs.copy()
    bare[:, 8] = 0
    assert numpy.array_equal(score_doc(bm.table(), bare), loaded.logits(doc)[0])
    assert not numpy.array_equal(score_doc(bm.table(), attrs), score_doc(bm.table(), bare))
    with pytest.raises(ValueError, match="lines must be a bool"):
        loaded.set_state({**state, "lines": "yes"})


def test_a_weighted_document_trains_k_times_and_is_held_out_once(nlp):
    """`user_data[WEIGHT_KEY]` = k lists a training document k times (one pair of arrays), and a
    held-out document once whatever its weight: a weighted source never leaks into calibration."""
    bm = BoundaryModel(n_rows=1 << 12)

    def doc(words, weight=None):
        d = Doc(nlp.vocab, words=words, sent_starts=[True] + [False] * (len(words) - 1))
        if weight is not None:
            d.user_data[WEIGHT_KEY] = weight
        return d

    docs = [doc(["a", "b", "c"], 3), doc(["d", "e"]), doc(["f", "g", "h", "i"], 3), doc(["j", "k"], 2)]
    train, held = encode_docs(bm, docs, held_out_every=3)  # the third document is held out
    assert [len(g) for _, g in train.docs] == [3, 3, 3, 2, 2, 2] and train.tokens == 15
    assert train.docs[0][0] is train.docs[2][0]  # copies share their arrays
    assert [len(g) for _, g in held.docs] == [4] and held.tokens == 4
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match=WEIGHT_KEY):
            encode_docs(bm, [doc(["a", "b"], bad)], held_out_every=0)
    for bad in (0, -1, 1.5, True):  # a negative count must not shrink the token total silently
        with pytest.raises(ValueError, match="copies"):
            train.add(*train.docs[0], copies=bad)
    assert train.tokens == 15


@pytest.mark.parametrize("window", [1, 3, 40])
def test_density_bins_short_path_is_the_window_computation(window):
    """A text no longer than one window (every window holds all of it) takes a shortcut; it gives
    what the windows give (forced by passing the whole text as its one segment), at every length
    around the window's and every density around the cuts."""
    rng = numpy.random.RandomState(window)
    for m in range(0, window + 4):
        whole = (numpy.zeros(m, dtype=numpy.int64), numpy.full(m, m, dtype=numpy.int64))
        for density in (0.0, 0.01, 0.03, 0.2, 1.0):
            flags = rng.rand(m) < density
            for cuts in ((0.02, 0.05), (0.04,), (0.5,)):
                fast = _density_bins(flags, window, cuts)
                assert fast.dtype == numpy.uint64 and fast.tolist() == _density_bins(flags, window, cuts, whole).tolist()


HEADING = "The town grew. History The first inhabitants came. They met Mary Jones.\n\nClimate Spring is wet."


def test_cased_gap_codes_mark_a_capital_after_an_unmarked_word_by_distance_from_the_last_stop(nlp):
    """Column 8 where no line break precedes: a capitalised word after a word with no mark, coded by
    the words since the last sentence-final mark (1 right after it, at most 3; + 3 in a document
    with line breaks); nothing after a mark, after a line break, or before a lower-case word;
    nothing at all for a model without cased gaps."""
    doc = nlp(HEADING)
    attrs, pos = BoundaryModel(1 << 10, cased_gaps=True).encode(doc)
    codes = {doc[int(i)].text: int(a[8]) for i, a in zip(pos, attrs) if a[8] and not a[4]}
    # History|The and Climate|Spring: one word since the last full stop; met|Mary: two; Mary|Jones:
    # three; not They after a full stop, nor Climate after the blank line
    assert codes == {"The": 4, "Mary": 5, "Jones": 6, "Spring": 4}  # + 3: the document has a line break
    flat = nlp(HEADING.replace("\n", " "))
    flat_attrs, flat_pos = BoundaryModel(1 << 10, cased_gaps=True).encode(flat)
    assert {flat[int(i)].text: int(a[8]) for i, a in zip(flat_pos, flat_attrs) if a[8]} == {
        "The": 1, "Mary": 2, "Jones": 3, "Spring": 1}
    plain, _ = BoundaryModel(1 << 10).encode(doc)
    assert (plain[plain[:, 4] == 0, 8] == 0).all()
    attrs[attrs[:, 4] == 0, 8] = 0
    assert numpy.array_equal(plain, attrs)
    with pytest.raises(ValueError, match="cased_gaps must be a bool"):
        BoundaryModel(1 << 10, cased_gaps=1)


def test_cased_gap_templates_fire_only_at_coded_gaps_and_old_states_load_without_them(nlp, sample_docs):
    """The four cased templates join a gap's features only where a cased code is set, so a model saved
    before them (no "cased_gaps" in its state) scores as it did; a model with them saves the flag."""
    doc = nlp(HEADING)
    attrs, pos = BoundaryModel(1 << 10, cased_gaps=True).encode(doc)
    base = len(gap_features(attrs, 1))
    at = {doc[int(i)].text: k for k, i in enumerate(pos)}
    assert len(gap_features(attrs, at["The"])) == base + 4
    assert len(gap_features(attrs, at["first"])) == base
    bm = BoundaryModel(1 << 12)
    docs = gold_docs(nlp, sample_docs[:5], "plain")
    train_encoded(bm, encode_docs(bm, docs, held_out_every=0)[0], epochs=1)
    state = bm.get_state()
    assert state["cased_gaps"] is False
    del state["cased_gaps"]
    loaded = BoundaryModel(1 << 12, cased_gaps=True)
    loaded.set_state(state)
    assert loaded.cased_gaps is False and numpy.array_equal(loaded.probs(doc), bm.probs(doc))
    cased = BoundaryModel(1 << 12, cased_gaps=True)
    train_encoded(cased, encode_docs(cased, docs, held_out_every=0)[0], epochs=1)
    again = BoundaryModel(1 << 12)
    again.set_state(cased.get_state())
    assert again.cased_gaps is True and numpy.array_equal(again.probs(doc), cased.probs(doc))
    with pytest.raises(ValueError, match="cased_gaps must be a bool"):
        again.set_state({**cased.get_state(), "cased_gaps": "yes"})
