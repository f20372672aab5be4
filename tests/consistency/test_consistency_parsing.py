"""Consistency parsing on the committed EWT sample: zero potentials give the graph parser's trees,
lazy = full re-decoding, a certificate means primal = dual, contexts follow §7, bad input errors."""
import pytest

from spacy_joint_sbd.consistency import (ContextModel, all_templates, build_parsing_mrf,
                                         consistency_parse, format_context)
from spacy_joint_sbd.consistency.contexts import context_key
from spacy_joint_sbd.graph.parser import GraphParser, make_sentence, sentence_tuples


@pytest.fixture(scope="module")
def setup(sample_docs):
    sents = sentence_tuples(sample_docs)
    train, test = sents[:150], sents[150:]
    parser = GraphParser(order=2, n_rows=1 << 18)
    parser.train_sentences(train, epochs=2)
    model = ContextModel(min_count=2).fit([(t, h) for _, t, _, h, _ in train],
                                          [u for _, _, u, _, _ in train])
    return parser, model, [(w, t, u) for w, t, u, _, _ in test]


def test_templates_of_the_paper():
    tpl = all_templates()
    assert len(tpl) == 10 and (0, 0) in tpl and (-3, 0) in tpl and (0, 3) in tpl
    assert all(r <= 0 <= s and s - r < 4 for r, s in tpl)
    key = context_key(["DT", "JJ", "NNS", "VBD", "RB"], 2, (-1, 2))
    assert key == (-1, 2, ("JJ", "NNS", "VBD", "RB")) and format_context(key) == "JJ *NNS* VBD RB"
    assert context_key(["DT"], 0, (-1, 1)) == (-1, 1, ("<s>", "DT", "</s>"))


def test_contexts_are_predictive_and_prefer_head_inside():
    model = ContextModel(templates=[(0, 0), (-1, 0), (0, 1)], min_count=2).fit(
        [(["DT", "NN"], [1, -1]), (["DT", "NN"], [1, -1]), (["DT", "JJ"], [1, -1]),
         (["DT", "NN"], [-1, 0])])
    # (0, 0) "DT" heads: NN, NN, JJ, ROOT -> not predictive; (0, 1) "DT NN": NN, NN, ROOT -> not
    assert model.select(["DT", "NN"], 0) is None
    model = ContextModel(templates=[(0, 0), (0, 1)], min_count=2).fit(
        [(["DT", "NN"], [1, -1]), (["DT", "NN"], [1, -1]), (["DT", "JJ"], [1, -1])])
    # both DT contexts are predictive only for "DT NN" (head inside it) or DT (head NN/JJ: not)
    assert model.select(["DT", "NN"], 0) == (0, 1, ("DT", "NN"))
    with pytest.raises(ValueError, match="bad head"):
        ContextModel().fit([(["DT"], [0])])


def test_zero_potentials_reproduce_the_parser(setup):
    parser, model, test = setup
    out = consistency_parse(parser, test, model, delta=(0.0, 0.0, 0.0), K=50)
    assert out.result.certified and out.result.iterations == 1
    expect = [parser.decode(make_sentence(w, t, u), [x == "PUNCT" for x in u]) for w, t, u in test]
    assert out.heads == expect == out.base_heads


def test_real_data_lazy_equals_full_and_certificate(setup):
    parser, model, test = setup
    problem = build_parsing_mrf(test, model, (2.0, 1.0, 0.0))
    assert problem.words and problem.mrf.n_nodes > 5
    lazy = consistency_parse(parser, test, model, delta=(2.0, 1.0, 0.0), K=40, rate=2.0, lazy=True)
    full = consistency_parse(parser, test, model, delta=(2.0, 1.0, 0.0), K=40, rate=2.0, lazy=False)
    assert lazy.heads == full.heads and lazy.result.dual == full.result.dual
    assert sum(lazy.result.decoded) < sum(full.result.decoded)
    assert lazy.result.iterations > 1  # the constraints changed something
    assert lazy.heads != lazy.base_heads
    # the dual bounds every primal value seen
    assert min(lazy.result.dual) >= max(lazy.result.primal) - 1e-6
    assert lazy.result.certified  # the sample's problem is solved exactly within K
    assert lazy.result.primal[-1] == pytest.approx(lazy.result.dual[-1])


def test_bad_input(setup):
    parser, model, test = setup
    with pytest.raises(ValueError, match="fit"):
        build_parsing_mrf(test, ContextModel(), (1.0, 0.5, 0.0))
    with pytest.raises(ValueError, match="delta"):
        consistency_parse(parser, test, model, delta=(1.0, 0.5))
    with pytest.raises(ValueError, match="delta1 >= delta2"):
        consistency_parse(parser, test, model, delta=(0.1, 0.5, 0.0))
    with pytest.raises(ValueError, match="K must"):
        consistency_parse(parser, test, model, K=0)
    with pytest.raises(ValueError, match="differ in length"):
        consistency_parse(parser, [(["a", "b"], ["DT"], ["DET", "NOUN"])], model)
    from spacy_joint_sbd.consistency.parsing import ParserSolver

    solver = ParserSolver(parser, test)
    for s in (-1, len(test), True, 1.5):
        with pytest.raises(ValueError, match="not in"):
            solver.solve(s, [])
    with pytest.raises(ValueError, match="GraphParser"):
        consistency_parse(object(), test, model)
    with pytest.raises(ValueError, match="template"):
        ContextModel(templates=[(1, 2)])
    with pytest.raises(ValueError, match="min_count"):
        ContextModel(min_count=0)


def test_real_data_fast_consensus_equals_reference(setup):
    """On the EWT sample the vectorised consensus side (dual_decompose(fast=True), the default)
    keeps the reference's certified solution, duals and primals exactly."""
    from spacy_joint_sbd.consistency.dual import dual_decompose
    from spacy_joint_sbd.consistency.parsing import ParserSolver

    parser, model, test = setup
    problem = build_parsing_mrf(test, model, (2.0, 1.0, 0.0))
    solver = ParserSolver(parser, test)
    out = {}
    for fast in (True, False):
        out[fast] = dual_decompose(solver.solve, len(test), problem.words, problem.mrf, K=40,
                                   rate=2.0, fast=fast, removal_rounds=1, extra_iterations=10)
    assert out[True].labels == out[False].labels
    assert out[True].dual == out[False].dual and out[True].primal == out[False].primal
    assert (out[True].certified, out[True].iterations, out[True].removed) == \
        (out[False].certified, out[False].iterations, out[False].removed)


def test_sibling_cache_keeps_constrained_sentences_only(setup):
    """Sibling scores are kept for sentences given penalties (the ones dual_decompose re-decodes)
    within the budget; the trees do not depend on what is cached."""
    import numpy

    from spacy_joint_sbd.consistency.parsing import ParserSolver

    parser, model, test = setup
    s = next(i for i, (w, _, _) in enumerate(test) if len(w) > 3)
    pens = [(1, numpy.array([0, 3]), numpy.array([0.5, -0.25]))]
    kept = ParserSolver(parser, test)
    assert kept.solve(s, []) and s not in kept._dec  # unconstrained: decoded once, not kept
    first = kept.solve(s, pens)
    again = kept.solve(s, pens)
    assert s in kept._dec and first == again
    none = ParserSolver(parser, test, cache_mb=0)
    assert none.solve(s, pens) == none.solve(s, pens) == first and s not in none._dec
    with pytest.raises(ValueError, match="cache_mb"):
        ParserSolver(parser, test, cache_mb=-1)
