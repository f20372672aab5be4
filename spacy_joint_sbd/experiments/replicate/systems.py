"""The perceptron systems of the replication, each trained with per-epoch dev curves.

- JOINT: the document-level ArcStandard + SWAP + SB parser (beam search, DLaSO, PA), as our
  `joint_sbd_parser` component; iterations tuned on the best mean of dev sentence F1 and LAS (§6).
- NOSYNTAX: the same machine trained on the trivial `nosyntax` trees (§5), tuned on sentence F1.
- GOLD: a sentence-level parser (the same engine in `mode="sentence"`, gold boundaries at training
  time, max-violation updates as in §6), tuned on dev LAS. It is the second stage of every pipeline
  (senter → parser, NOSYNTAX → parser, JOINT-REPARSED).

Every system reads PREDICTED tags (the `tag` step). The best epoch's averaged weights are kept and
the test splits are parsed with them; the metrics file records the curve, the chosen epoch, the
training time and, per test split, the scores, per-document counts and predicted sentence starts.
"""
import hashlib
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy
from tqdm import tqdm

from ...corpus import DocRecord, apply_variant
from ...scoring import score_records
from ...transition import TransitionParser
from .settings import SETTINGS

SYSTEMS = ("joint", "nosyntax", "gold")

SYSTEM_DEFAULTS = {
    "joint": {"mode": "joint", "strategy": "dlaso", "trees": "gold"},
    "nosyntax": {"mode": "joint", "strategy": "dlaso", "trees": "nosyntax"},
    "gold": {"mode": "sentence", "strategy": "max_violation", "trees": "gold"},
}


def sentence_records(records: Sequence[DocRecord]) -> List[DocRecord]:
    """Every sentence as its own one-sentence record: the training instances of a sentence-level
    parser (GOLD, and the left plot of Figure 3). Heads are re-based; no head crosses a sentence."""
    out = []
    for rec in records:
        for k, (s, e) in enumerate(rec.sentences()):
            out.append(DocRecord(
                f"{rec.doc_id}#{k}", rec.words[s:e], rec.spaces[s:e], rec.lemmas[s:e], rec.upos[s:e],
                rec.xpos[s:e], rec.feats[s:e], [h if h < 0 else h - s for h in rec.heads[s:e]], rec.deps[s:e],
                [True] + [False] * (e - s - 1), source=rec.source))
    return out


def tuning_score(system: str, scores: Dict) -> float:
    """§6: JOINT by the mean of sentence F1 and LAS, NOSYNTAX by F1, GOLD by LAS."""
    if system == "joint":
        return (scores["sents_f"] + scores["dep_las"]) / 2
    if system == "nosyntax":
        return scores["sents_f"]
    return scores["dep_las"]


def with_parse(parser: TransitionParser, golds: Sequence[DocRecord], parses) -> List[DocRecord]:
    out = []
    for gold, parse in zip(golds, parses):
        rec = DocRecord(**asdict(gold))
        rec.heads = [int(h) for h in parse.heads]
        rec.deps = [parser.labels.decode(int(lab)) for lab in parse.labels]
        rec.sent_starts = [bool(s) for s in parse.sent_starts]
        out.append(rec)
    return out


def with_starts(records: Sequence[DocRecord], starts: Sequence[Sequence[bool]]) -> List[DocRecord]:
    """Copies of `records` whose sentence starts are `starts` (what a sentence-level parser is given)."""
    out = []
    for rec, st in zip(records, starts):
        r = DocRecord(**asdict(rec))
        r.sent_starts = [i == 0 or bool(s) for i, s in enumerate(st)]
        out.append(r)
    return out


def evaluate(parser: TransitionParser, docs: Sequence[DocRecord], golds: Sequence[DocRecord],
             beam_width: int, has_parse: bool = True):
    parses = parser.parse(parser.encode(docs), beam_width=beam_width)
    preds = with_parse(parser, golds, parses)
    return score_records(preds, golds, has_parse=has_parse), preds


def config_key(cfg: Dict) -> str:
    return hashlib.sha1(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:12]


def train_system(tagged: Dict, setting: str, system: str, epochs: int, beam_width: int,
                 model_dir: Optional[Path] = None, strategy: Optional[str] = None,
                 position: int = 0, seed: int = 0) -> Dict:
    """Train one system on the tagged data of `setting`; returns its metrics dict."""
    spec = dict(SYSTEM_DEFAULTS[system])
    if strategy:
        spec["strategy"] = strategy
    recs = tagged["records"]
    tests = SETTINGS[setting].tests

    def trees(rs: Sequence[DocRecord]) -> List[DocRecord]:
        return [apply_variant(r, "nosyntax") for r in rs] if spec["trees"] == "nosyntax" else list(rs)

    train, tune = trees(recs["train"]), trees(recs["tune"])
    parser = TransitionParser.from_records(train, mode=spec["mode"])
    train_docs = parser.encode(sentence_records(train) if spec["mode"] == "sentence" else train)
    has_parse = spec["trees"] == "gold"
    curve: List[Dict] = []
    best: Optional[Dict] = None
    best_W: Optional[numpy.ndarray] = None
    train_seconds = 0.0
    bar = tqdm(range(1, epochs + 1), desc=f"{setting} {system}", unit="epoch", position=position, disable=None)
    for epoch in bar:
        start = time.process_time()
        stats = parser.train_epoch(train_docs, strategy=spec["strategy"], beam_width=beam_width,
                                   shuffle=seed + epoch)
        seconds = time.process_time() - start
        train_seconds += seconds
        counts, _ = evaluate(parser, tune, tune, beam_width, has_parse)
        scores = counts.scores()
        point = {"epoch": epoch, "train_cpu_seconds": seconds, "used_pct": stats["used_pct"],
                 **{k: scores[k] for k in ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las")}}
        point["tuning"] = tuning_score(system, {**scores, "dep_las": scores["dep_las"] or 0.0})
        curve.append(point)
        if best is None or point["tuning"] > best["tuning"]:
            best = point
            best_W = parser.weights.averaged().copy()
        bar.set_postfix(F1=f"{100 * scores['sents_f']:.1f}", LAS=f"{100 * (scores['dep_las'] or 0):.1f}")
        if bar.disable:  # not a terminal (a log file): one line per epoch instead of a bar
            print(f"{setting} {system} epoch {epoch}/{epochs}: tune F1 {100 * scores['sents_f']:.2f} "
                  f"LAS {100 * (scores['dep_las'] or 0):.2f}, {seconds:.0f} CPU s", flush=True)
    assert best is not None and best_W is not None
    parser.set_params({"W": best_W})
    if model_dir is not None:
        parser.to_disk(model_dir)
    result: Dict = {"setting": setting, "system": system, **spec, "beam": beam_width, "epochs": epochs,
                    "best_epoch": best["epoch"], "tune": best, "curve": curve,
                    "train_cpu_seconds": train_seconds, "tags": "predicted", "tests": {}}
    for split in tests:
        golds = recs[split]
        # NOSYNTAX is scored against the real gold trees' boundaries; its trees are not a parse.
        if spec["mode"] == "sentence":
            counts, preds = evaluate(parser, golds, golds, beam_width)  # GOLD: gold boundaries
        else:
            counts, preds = evaluate(parser, golds, golds, beam_width, has_parse)
        result["tests"][split] = {**counts.scores(), "per_doc": counts.per_doc,
                                  "starts": [p.sent_starts for p in preds]}
    return result


def reparse(parser: TransitionParser, golds: Sequence[DocRecord], starts: Sequence[Sequence[bool]],
            beam_width: int) -> Dict:
    """Parse `golds` (with their predicted tags) inside the given sentence boundaries with a
    sentence-level parser, and score the result against the gold trees and boundaries."""
    counts, _ = evaluate(parser, with_starts(golds, starts), golds, beam_width)
    return {**counts.scores(), "per_doc": counts.per_doc}
