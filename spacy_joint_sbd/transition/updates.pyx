# cython: infer_types=True, binding=True
"""The five update strategies for learning from whole documents (bjorkelund2016 §3, Algorithm 1).

- greedy: a classifier on every oracle state (beam 1), updated at each mistake.
- early (Collins & Roark 2004): beam search until the gold item falls off the beam, then one
  update on the prefixes; the rest of the document is not seen.
- max_violation (Huang et al. 2012): search to the end, update where the best item's score
  exceeds the gold prefix's by most.
- dlaso (Algorithm 1, Björkelund & Kuhn 2014): on every fall-off store the update (CALCUPDATE),
  reseed the beam with the gold item and go on; apply the summed update after the document.
- laso (Daumé III & Marcu 2005, the undelayed ancestor of DLaSO; bjorkelund2016 §3 names it):
  the same search, but each update is applied at once, with its own step, before the beam is
  reseeded, so the rest of the document is searched with the new weights. The paper argues the
  delay matters (no feedback within a document); with PA, DLaSO's one step per document is small
  (τ ≈ loss / ‖Σ ΔΦ‖²) and it converges slowly, which is what laso is there to measure against.

An update is ΔΦ = Φ(gold prefix) − Φ(predicted prefix) over the moves after the point where the
prediction left the gold path (the shared prefix cancels), so each costs O(divergence). The beam
itself (EXPANDANDFILTER, scoring, features) is `beam.Engine`'s; the document, its buffers and the
gold derivation live in one `beam.Workspace` per call.

Learners (`learn.learners`): each strategy computes ΔΦ and a loss (Σ score(pred) − score(gold)
+ 1) and lets the learner choose the step: the perceptron's τ = 1 or PA-I's τ = min(C, loss /
‖ΔΦ‖²). This includes greedy: with learner "pa" the greedy baseline is a passive-aggressive
classifier, not the plain averaged perceptron of bjorkelund2016 §4 (Figure 4's greedy curve);
learner="perceptron" gives the paper's baseline.

Training is single-threaded: it updates the engine's weights in place.
"""
import numpy

from libc.stdint cimport uint64_t

from ..learn.update cimport SparseUpdate
from ._state cimport StateC, is_final, state_decref, state_init
from .beam cimport CandC, Engine, WorkC, Workspace, forget_roles
from .moves cimport N_MOVES, apply_move, move_of, valid_moves

from ..learn.learners import apply_update
from .beam import check_width
from .moves import as_classes

UPDATES = ("greedy", "early", "max_violation", "dlaso", "laso")


def train_document(Engine engine not None, attrs, gold_actions, update="dlaso", beam_width=20,
                   learner=None, fixed_starts=None):
    """Learn from one document whose gold class sequence is `gold_actions` (the oracle's).

    fixed_starts: None (SB predicted) or n bools, 0-based (the boundaries the gold sequence keeps).
    beam_width: in [1, beam.MAX_BEAM_WIDTH] (ignored by greedy, which uses 1). Raises ValueError
    for invalid arguments, including class ids outside [0, n_classes) and gold sequences with an
    invalid move or no final state (nothing is learnt from such a document).
    Returns a dict: n_gold (gold transitions), used (transitions of the gold sequence that
    updates covered; Figure 3's quantity is used / n_gold), violations (updates made),
    errors (greedy: misclassified states; beam: gold fell off the beam), tau (the summed step
    sizes the learner took) and end_unfinished (1 if the search reached the end of the gold
    sequence with an unfinished best item, so that a finished gold derivation was compared with
    an unfinished one; derivations differ in length by their SWAP and SB moves).
    """
    if not isinstance(update, str) or update not in UPDATES:
        raise ValueError(f"unknown update {update!r}; expected one of {UPDATES}")
    if learner is None or not callable(getattr(learner, "step", None)):
        raise ValueError("train() needs a learner (see learn.make_learner)")
    if engine.weights.using_averages:
        raise RuntimeError("cannot train inside weights.use_averages()")
    engine.weights.materialize()  # a loaded half-only table becomes a float one to train
    cdef int width = check_width(beam_width)
    if update == "greedy":
        width = 1
    G_arr = as_classes(gold_actions, engine.n_labels, "gold_actions")
    cdef const int[::1] G = G_arr
    cdef Workspace ws = engine.workspace(attrs, fixed_starts, width)
    cdef WorkC* w = &ws.c
    cdef int n = w.doc.n
    cdef int T = G.shape[0]
    stats = {"n_gold": T, "used": T, "violations": 0, "errors": 0, "tau": 0.0, "end_unfinished": 0}
    if n == 0 or T == 0:
        return stats
    if update != "greedy":  # greedy updates after every move: nothing to reuse
        engine.cache_roles(ws)
    _check_gold(w, &G[0], T, engine.n_labels)  # before any update: a rejected document changes nothing
    cdef SparseUpdate upd = SparseUpdate(engine.weights.n_rows, engine.n_classes)
    # the gold derivation c_0..c_T with its scores under the current weights
    cdef StateC** gold = <StateC**>ws.mem.alloc(T + 1, sizeof(StateC*))
    cdef int t, i
    cdef double tau
    cdef bint valid[N_MOVES]
    gold[0] = state_init(n)
    if gold[0] is NULL:
        raise MemoryError("train: cannot allocate the initial state")
    gold[0].refs = 1
    try:
        for t in range(T):
            engine.score(w, gold[t], w.scores)
            valid_moves(gold[t], &w.doc, valid)
            if not valid[move_of(G[t], engine.n_labels)]:
                raise ValueError(f"gold move {G[t]} is invalid at step {t}")
            if update == "greedy":
                tau = _greedy_update(engine, w, gold[t], G[t], upd, learner)
                if tau >= 0:
                    stats["errors"] += 1
                    stats["violations"] += 1
                    stats["tau"] += tau
                engine.weights.tick()
            gold[t + 1] = apply_move(gold[t], G[t], &w.doc)
            if gold[t + 1] is NULL:
                raise MemoryError("train: out of memory for gold states")
            gold[t + 1].refs = 1
            gold[t + 1].score = gold[t].score + w.scores[G[t]]
        if not is_final(gold[T], n):
            raise ValueError("gold sequence does not reach a final state")
        if update != "greedy":
            _beam_updates(engine, w, gold, &G[0], T, update, width, upd, learner, stats)
            engine.weights.tick()
    finally:
        for i in range(T + 1):
            state_decref(gold[i])  # NULL-safe: an error may leave the tail unset
    return stats


cdef int _check_gold(WorkC* w, const int* G, int T, int n_labels) except -1:
    """ValueError unless G[0..T) is a sequence of valid moves ending in a final state."""
    cdef bint valid[N_MOVES]
    cdef StateC* s = state_init(w.doc.n)
    cdef StateC* nxt
    cdef int t
    if s is NULL:
        raise MemoryError()
    s.refs = 1
    try:
        for t in range(T):
            valid_moves(s, &w.doc, valid)
            if not valid[move_of(G[t], n_labels)]:
                raise ValueError(f"gold move {G[t]} is invalid at step {t}")
            nxt = apply_move(s, G[t], &w.doc)
            if nxt is NULL:
                raise MemoryError()
            nxt.refs = 1
            state_decref(s)  # nxt keeps its back-pointer; s goes when nxt does
            s = nxt
        if not is_final(s, w.doc.n):
            raise ValueError("gold sequence does not reach a final state")
    finally:
        state_decref(s)
    return 0


cdef double _greedy_update(Engine engine, WorkC* w, StateC* st, int gold_clas, SparseUpdate upd,
                           learner) except -2:
    """greedy: if the best valid class (scores of `st` in w.scores) is not the gold one,
    update at once towards the gold class and away from it. Returns the step size, or -1 if the
    gold class was the best one (no update)."""
    cdef bint valid[N_MOVES]
    valid_moves(st, &w.doc, valid)
    cdef int best = -1, c
    cdef float* scores = w.scores
    for c in range(engine.n_classes):
        if valid[move_of(c, engine.n_labels)] and (best < 0 or scores[c] > scores[best]):
            best = c
    if best == gold_clas:
        return -1.0
    cdef int nf = engine.features(w, st)
    upd.clear()
    upd.add_c(w.feats, nf, gold_clas, 1.0)
    upd.add_c(w.feats, nf, best, -1.0)
    upd.loss = scores[best] - scores[gold_clas] + 1.0
    return apply_update(engine.weights, upd, learner)


cdef int _calc_update(Engine engine, WorkC* w, StateC** gold, StateC* pred, SparseUpdate upd,
                      SparseUpdate seg) except -1:
    """Algorithm 1's CALCUPDATE: upd += ΔΦ, ΔΦ = Φ(gold[k+1..t]) − Φ(pred's moves after its last
    gold ancestor, at step k), and upd.loss += score(pred) − score(gold) + 1. One step size (PA:
    min(C, Σ loss / ‖Σ ΔΦ‖²)) is applied to the sum at the end of the document (dlaso): per-
    violation PA steps on the same weights overshoot on repeated violations (measured: dev UAS
    0.60 vs 0.70 after 2 epochs); laso instead applies each update, with its own step, at once.
    Returns t, the length of the gold prefix covered."""
    cdef StateC* x = pred
    cdef int nf
    seg.clear()
    while not x.is_gold:
        nf = engine.features(w, x.prev)
        seg.add_c(w.feats, nf, x.clas, -1.0)
        x = x.prev
    cdef int k = x.steps
    cdef int t = pred.steps
    cdef int j
    for j in range(k + 1, t + 1):
        nf = engine.features(w, gold[j - 1])
        seg.add_c(w.feats, nf, gold[j].clas, 1.0)
    upd.merge(seg, 1.0)
    upd.loss += pred.score - gold[t].score + 1.0
    return t


cdef int _rescore_gold(Engine engine, WorkC* w, StateC** gold, const int* G, int start, int stop
                       ) except -1:
    """gold[j].score for start < j ≤ stop under the current weights, from gold[start].score (the
    score of the state the beam was reseeded with, which every beam item still carries): after
    a laso update the loss score(pred) − score(c_t) must compare scores of the same weights."""
    cdef int j
    for j in range(start, stop):
        engine.score(w, gold[j], w.scores)
        gold[j + 1].score = gold[j].score + w.scores[G[j]]
    return 0


cdef int _beam_updates(Engine engine, WorkC* w, StateC** gold, const int* G, int T, str update,
                       int width, SparseUpdate upd, learner, dict stats) except -1:
    """early, max_violation, dlaso and laso over one document (Algorithm 1, its two baselines and
    its undelayed ancestor)."""
    cdef StateC** beam = w.beam
    cdef StateC** nxt = w.nxt
    cdef StateC** tmp
    cdef CandC* top = w.top
    cdef int beam_len = 1, new_len, i, t = 0
    cdef bint gold_in, fell = False
    cdef StateC* mv_pred = NULL
    cdef double mv_best = 0, viol
    cdef int used = 0
    cdef int stale = T  # laso: gold[stale + 1 ..].score predate the last update (T: none do)
    cdef SparseUpdate seg = SparseUpdate(engine.weights.n_rows, engine.n_classes)
    beam[0] = gold[0]
    gold[0].refs += 1
    upd.clear()
    try:
        while t < T:
            new_len = engine.expand_and_filter(w, beam, beam_len, nxt, width, top, G, T)
            if new_len < 0:
                raise MemoryError("train: out of memory for beam states")
            for i in range(beam_len):
                state_decref(beam[i])
            tmp = beam
            beam = nxt
            nxt = tmp
            beam_len = new_len
            t += 1
            gold_in = False
            for i in range(beam_len):
                if beam[i].is_gold:
                    gold_in = True
                    break
            if update == "max_violation":
                if not beam[0].is_gold and gold[t].steps == t:
                    viol = beam[0].score - gold[t].score
                    if mv_pred is NULL or viol > mv_best:
                        if mv_pred is not NULL:
                            state_decref(mv_pred)
                        mv_pred = beam[0]
                        mv_pred.refs += 1
                        mv_best = viol
                if not gold_in and not fell:
                    stats["errors"] += 1
                    fell = True
            elif not gold_in:
                stats["errors"] += 1
                if update == "early":
                    used = _calc_update(engine, w, gold, beam[0], upd, seg)
                    break
                # dlaso (Algorithm 1, lines 9-12): store the update, reseed the beam with c_t;
                # laso applies it now (gold scores after c_t are then stale: rescored on demand)
                if update == "laso":
                    _rescore_gold(engine, w, gold, G, stale, t)
                _calc_update(engine, w, gold, beam[0], upd, seg)
                stats["violations"] += 1
                if update == "laso":
                    stats["tau"] += apply_update(engine.weights, upd, learner)
                    forget_roles(w)  # its partial scores are of the weights before this update
                    upd.clear()
                    stale = t
                for i in range(beam_len):
                    state_decref(beam[i])
                beam[0] = gold[t]
                gold[t].refs += 1
                beam_len = 1
        else:
            # search reached the end of the gold sequence (Algorithm 1, lines 13-16)
            stats["end_unfinished"] = int(not is_final(beam[0], w.doc.n))
            if update == "max_violation":
                if mv_pred is not NULL:
                    used = _calc_update(engine, w, gold, mv_pred, upd, seg)
                else:
                    used = T
            else:
                used = T
                if not beam[0].is_gold:
                    if update == "laso":
                        _rescore_gold(engine, w, gold, G, stale, beam[0].steps)
                    _calc_update(engine, w, gold, beam[0], upd, seg)
                    if update in ("dlaso", "laso"):
                        stats["violations"] += 1
        if update not in ("dlaso", "laso") and len(upd) > 0:
            stats["violations"] += 1
        stats["used"] = used
        if len(upd) > 0:  # Algorithm 1, lines 17-18
            stats["tau"] += apply_update(engine.weights, upd, learner)
    finally:
        for i in range(beam_len):
            state_decref(beam[i])
        if mv_pred is not NULL:
            state_decref(mv_pred)
    return 0
