"""Calibrated `token._.sent_start_prob`: a probability that ranks boundaries and means what it says.

The joint parser's own marginal (softmax over the final beam items' scores) saturates: on a document
of a few hundred tokens it is exactly 0 or 1 almost everywhere, so it can neither rank boundaries
nor be thresholded. The calibrator maps each token's evidence to a probability with a logistic
regression fitted on dev documents (Platt scaling with a few inputs), one coefficient vector per
punctuation regime, as the SB biases are chosen per regime (`JointSBDParser.sb_bias_for`):

- `decision`: 1 if the parse starts a sentence at the token;
- `prior`: the boundary prior's log-odds (`doc._.boundary_probs`, clipped to ±8, / 8; 0 without one);
- `decision_x_prior`: their product (the prior counts differently where syntax agreed);
- `beam`: the beam marginal's log-odds (clipped to ±8, / 8).

Only free tokens are calibrated: the first token (always a start), whitespace tokens (never) and
boundaries preset before the parser (forced or forbidden) keep 1 or 0. The coefficients are
fitted parameters saved with the component (`cfg["calibration"]`), not settings.
"""
from typing import Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IS_SPACE, SENT_START
from spacy.tokens import Doc

from ...boundary import DOC_PROBS
from ...learn.logistic import newton_logistic, sigmoid
from .final_punct import has_final_punct

FEATURES = ("bias", "decision", "prior", "decision_x_prior", "beam")
REGIMES = ("punctuated", "unpunctuated")
CLIP = 8.0


def _logit(p: numpy.ndarray) -> numpy.ndarray:
    p = numpy.clip(numpy.asarray(p, dtype=numpy.float64), 1e-12, 1 - 1e-12)
    return numpy.clip(numpy.log(p) - numpy.log1p(-p), -CLIP, CLIP) / CLIP


def doc_prior(doc: Doc) -> Optional[numpy.ndarray]:
    """`doc._.boundary_probs` as float64, or None when the Doc carries none (or they do not fit)."""
    probs = doc._.get(DOC_PROBS) if Doc.has_extension(DOC_PROBS) else None
    if probs is None:
        return None
    p = numpy.asarray(probs, dtype=numpy.float64)
    return p if p.shape == (len(doc),) and numpy.isfinite(p).all() else None


def free_tokens(doc: Doc, presets: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """bool per token: the tokens whose boundary the model decides (not the first token, not
    whitespace, not preset). `presets`: the SENT_START column before the parser ran (1 / -1 preset,
    0 free); None = nothing preset."""
    n = len(doc)
    free = ~doc.to_array([IS_SPACE]).reshape((n,)).astype(bool)
    if presets is not None:
        free &= numpy.asarray(presets).reshape((n,)) == 0
    if n:
        free[0] = False
    return free


def evidence(decisions: Sequence[bool], beam: Optional[Sequence[float]], prior: Optional[numpy.ndarray],
             beam_given: Optional[numpy.ndarray] = None, prior_given: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(n, len(FEATURES)) float64 design matrix of one document (or of the rows of several).
    Without a prior its column is 0; without a beam marginal its column is 2d − 1. `beam_given` /
    `prior_given`: bool per row, False where that row has none (the value there is ignored)."""
    d = numpy.asarray(decisions, dtype=numpy.float64)
    n = d.shape[0]
    q = _logit(prior) if prior is not None else numpy.zeros(n)
    if prior is not None and prior_given is not None:
        q = numpy.where(prior_given, q, 0.0)
    b = _logit(beam) if beam is not None else (2 * d - 1)
    if beam is not None and beam_given is not None:
        b = numpy.where(beam_given, b, 2 * d - 1)
    return numpy.stack([numpy.ones(n), d, q, d * q, b], axis=1)


def regime(punctuated: bool) -> str:
    return REGIMES[0] if punctuated else REGIMES[1]


def apply(coef: Sequence[float], X: numpy.ndarray) -> numpy.ndarray:
    """σ(X · coef) of each row. The columns are summed in order, one row at a time in effect (not
    by BLAS, whose sums may depend on how many rows come together), so a token's probability is
    the same bits whatever Docs are calibrated with it (`calibrated_batch`)."""
    X = numpy.asarray(X, dtype=numpy.float64)
    w = numpy.asarray(coef, dtype=numpy.float64)
    z = X[:, 0] * w[0]
    for j in range(1, len(w)):
        z += X[:, j] * w[j]
    return sigmoid(z)


def fit(X: numpy.ndarray, y: numpy.ndarray, l2: float = 1e-2, iterations: int = 50) -> List[float]:
    """Logistic regression by Newton's method (a handful of inputs, so exact steps are cheap);
    `l2` keeps it finite where a feature separates the data. ValueError without both classes."""
    y = numpy.asarray(y, dtype=numpy.float64)
    if X.shape[0] == 0 or y.min() == y.max():
        raise ValueError("calibration needs tokens that start a sentence and tokens that do not")
    w = newton_logistic(X, y, l2, free=0, iterations=iterations)  # column 0: the intercept
    return [round(float(v), 8) for v in w]  # as the saved cfg (JSON) keeps them


def check_calibration(value, where: str) -> Optional[Dict[str, List[float]]]:
    """A saved calibration as the component uses it (None = off), or a ValueError naming `where`."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != set(REGIMES):
        raise ValueError(f"{where}: calibration must map {' and '.join(REGIMES)} to coefficients, got {value!r}")
    out = {}
    for key in REGIMES:
        coef = value[key]
        if (not isinstance(coef, (list, tuple)) or len(coef) != len(FEATURES)
                or not all(isinstance(c, (int, float)) and not isinstance(c, bool) and numpy.isfinite(c) for c in coef)):
            raise ValueError(f"{where}: calibration[{key!r}] must be {len(FEATURES)} finite numbers ({', '.join(FEATURES)})")
        out[key] = [float(c) for c in coef]
    return out


def calibrated_probs(doc: Doc, decisions: numpy.ndarray, beam: Optional[numpy.ndarray], coef: Sequence[float],
                     presets: Optional[numpy.ndarray]) -> numpy.ndarray:
    """P(sentence starts) per token: the calibrator on free tokens, 1 / 0 on the others (as decided)."""
    return calibrated_batch([(doc, decisions, beam, coef, presets)])[0]


Calibrand = Tuple[Doc, numpy.ndarray, Optional[numpy.ndarray], Sequence[float], Optional[numpy.ndarray]]
"""(doc, decisions, beam, coef, presets): the arguments of `calibrated_probs` for one Doc."""


def calibrated_batch(items: Sequence[Calibrand]) -> List[numpy.ndarray]:
    """`calibrated_probs` of many Docs: the free tokens of all Docs that share coefficients go
    through one `evidence` and one `apply`, instead of a dozen small array operations per Doc
    (which cost a short text more than its calibration: 135 µs of each text's 2.3 ms).
    The same bits as one Doc at a time: every step is elementwise (tested)."""
    outs: List[numpy.ndarray] = []
    groups: Dict[Tuple[float, ...], list] = {}
    for k, (doc, decisions, beam, coef, presets) in enumerate(items):
        d = numpy.asarray(decisions, dtype=numpy.float64)
        outs.append(d.copy())
        free = free_tokens(doc, presets)
        if free.any():
            groups.setdefault(tuple(float(c) for c in coef), []).append((k, free, d, beam, doc_prior(doc)))
    for coef, members in groups.items():
        lengths = [len(m[2]) for m in members]
        free = numpy.concatenate([m[1] for m in members])
        d = numpy.concatenate([m[2] for m in members])[free]
        # a Doc without a beam or a prior: any value in its rows, masked out by `evidence`
        beam_given = numpy.repeat([m[3] is not None for m in members], lengths)[free]
        beam = numpy.concatenate([numpy.full(n, 0.5) if m[3] is None else numpy.asarray(m[3], dtype=numpy.float64)
                                  for m, n in zip(members, lengths)])[free]
        prior_given = numpy.repeat([m[4] is not None for m in members], lengths)[free]
        prior = numpy.concatenate([numpy.full(n, 0.5) if m[4] is None else m[4] for m, n in zip(members, lengths)])[free]
        probs = apply(coef, evidence(d, beam, prior, beam_given, prior_given))
        start = 0
        for k, doc_free, _, _, _ in members:
            n = int(numpy.count_nonzero(doc_free))
            outs[k][doc_free] = probs[start:start + n]
            start += n
    return outs


def expected_calibration_error(probs: numpy.ndarray, labels: numpy.ndarray, bins: int = 10) -> float:
    """Σ over equal-width bins of (share of tokens in the bin) · |mean probability − share of starts|."""
    table = reliability(probs, labels, bins)
    n = sum(row["count"] for row in table)
    return float(sum(row["count"] / n * abs(row["mean_prob"] - row["frequency"]) for row in table)) if n else 0.0


def reliability(probs: numpy.ndarray, labels: numpy.ndarray, bins: int = 10) -> List[Dict[str, float]]:
    """Per non-empty bin: its range, mean predicted probability, observed frequency, count."""
    probs = numpy.asarray(probs, dtype=numpy.float64)
    labels = numpy.asarray(labels, dtype=numpy.float64)
    which = numpy.minimum((probs * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        sel = which == b
        if sel.any():
            out.append({"lo": b / bins, "hi": (b + 1) / bins, "mean_prob": float(probs[sel].mean()),
                        "frequency": float(labels[sel].mean()), "count": int(sel.sum())})
    return out


def document_rows(doc: Doc, gold_starts: Sequence[bool]) -> Tuple[numpy.ndarray, numpy.ndarray, str]:
    """(X, y, regime) of the free tokens of a Doc the joint parser has just processed with its
    calibration off (so `token._.sent_start_prob` is the beam marginal)."""
    decisions = doc.to_array([SENT_START]).reshape((len(doc),)) == 1
    if len(doc):
        decisions[0] = True
    beam = [t._.sent_start_prob for t in doc]
    beam_arr = None if any(p is None for p in beam) else numpy.asarray(beam, dtype=numpy.float64)
    free = free_tokens(doc)
    X = evidence(decisions, beam_arr, doc_prior(doc))[free]
    y = numpy.asarray(gold_starts, dtype=numpy.float64)[free]
    return X, y, regime(has_final_punct(doc))


def collect(nlp, gold_docs: Sequence[Doc], component: str = "joint_sbd_parser",
            batch_size: int = 32) -> List[Tuple[numpy.ndarray, numpy.ndarray, str]]:
    """Per gold document, `document_rows` of the pipeline's prediction on its tokens alone (tags,
    prior and parse all predicted), with the component's calibration off for the run."""
    from ...corpus.readers import tokens_only

    pipe = nlp.get_pipe(component)
    saved = pipe.cfg.get("calibration")
    pipe.cfg["calibration"] = None
    try:
        preds = nlp.pipe((tokens_only(nlp.vocab, d) for d in gold_docs), batch_size=batch_size)
        return [document_rows(p, [bool(t.is_sent_start) for t in g]) for p, g in zip(preds, gold_docs)]
    finally:
        pipe.cfg["calibration"] = saved


def fit_regimes(rows: Sequence[Tuple[numpy.ndarray, numpy.ndarray, str]], l2: float = 1e-2) -> Dict[str, List[float]]:
    """One coefficient vector per regime from `collect`ed rows; a regime without data (both
    classes) borrows the other's."""
    out: Dict[str, List[float]] = {}
    for key in REGIMES:
        sel = [(X, y) for X, y, r in rows if r == key and len(y)]
        if sel:
            X = numpy.concatenate([x for x, _ in sel])
            y = numpy.concatenate([y for _, y in sel])
            if y.min() != y.max():
                out[key] = fit(X, y, l2)
    if not out:
        raise ValueError("calibration needs dev documents with sentence starts and non-starts")
    only = next(iter(out.values()))
    return {key: out.get(key, only) for key in REGIMES}


def cross_fitted(rows: Sequence[Tuple[numpy.ndarray, numpy.ndarray, str]], folds: int = 2,
                 l2: float = 1e-2) -> List[numpy.ndarray]:
    """Per document, the probabilities of a calibrator fitted on the other folds (documents dealt
    round-robin): honest figures for a calibrator that is then fitted on all of them."""
    out: List[numpy.ndarray] = [numpy.zeros(0)] * len(rows)
    for k in range(folds):
        coef = fit_regimes([r for i, r in enumerate(rows) if i % folds != k], l2)
        for i, (X, _, reg) in enumerate(rows):
            if i % folds == k:
                out[i] = apply(coef[reg], X)
    return out
