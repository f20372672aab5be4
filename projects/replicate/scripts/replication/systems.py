"""The perceptron systems of the replication, each the `joint_sbd_parser` component trained epoch
by epoch with a curve on the tuning split (bjorkelund2016 §4-6).

- JOINT: the document-level ArcStandard + SWAP + SB parser (beam search, DLaSO, PA) on whole
  documents (`document_level=True`); iterations tuned on the mean of sentence F1 and LAS (§6).
- NOSYNTAX: the same machine trained on the trivial `nosyntax` trees (§5), tuned on sentence F1.
- GOLD: the component with `document_level=False` trained on the gold sentences, one Doc each
  (max-violation updates as in §6), tuned on LAS. It is the second stage of every pipeline
  (senter → parser, NOSYNTAX → parser, JOINT-REPARSED): it parses inside the Doc's boundaries.

The replication builds spaCy Docs and trains and predicts through the component, as `spacy train`
does: the predicted Doc holds the tokens and the PREDICTED tags (the `tag` step), the reference Doc
the gold tree. The best epoch's averaged weights (`to_bytes`) are kept, saved as a spaCy pipeline
(`nlp.to_disk`) and used on the test splits; the metrics file records the curve, the chosen epoch,
the training time and, per test split, the scores, per-document counts and predicted sentence starts.
"""
import dataclasses
import random
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from tqdm import tqdm

from spacy_joint_sbd.corpus import DocRecord, apply_variant
from spacy_joint_sbd.corpus.docs import doc_to_record, record_to_doc
from spacy_joint_sbd.scoring import Counts, score_records

from .settings import SETTINGS

SYSTEMS = ("joint", "nosyntax", "gold")

SYSTEM_DEFAULTS = {
    "joint": {"document_level": True, "update": "dlaso", "trees": "gold"},
    "nosyntax": {"document_level": True, "update": "dlaso", "trees": "nosyntax"},
    "gold": {"document_level": False, "update": "max_violation", "trees": "gold"},
}
COMPONENT = "joint_sbd_parser"


def sentence_records(records: Sequence[DocRecord]) -> List[DocRecord]:
    """Every gold sentence as its own one-sentence record (`DocRecord.iter_sentence_slices`): the
    training instances of a sentence-level parser (GOLD, and the left plot of Figure 3)."""
    out = []
    for rec in records:
        for k, s in enumerate(rec.iter_sentence_slices()):
            n = len(s.words)
            out.append(DocRecord(
                f"{rec.doc_id}#{k}", list(s.words), list(rec.spaces[s.start:s.start + n]),
                list(rec.lemmas[s.start:s.start + n]), list(s.upos), list(s.xpos),
                list(rec.feats[s.start:s.start + n]), list(s.heads), list(s.deps),
                [True] + [False] * (n - 1), source=rec.source))
    return out


def tuning_score(system: str, scores: Dict) -> float:
    """§6: JOINT by the mean of sentence F1 and LAS, NOSYNTAX by F1, GOLD by LAS."""
    if system == "joint":
        return (scores["sents_f"] + scores["dep_las"]) / 2
    if system == "nosyntax":
        return scores["sents_f"]
    return scores["dep_las"]


def labels_of(records: Iterable[DocRecord]) -> List[str]:
    return sorted({d for rec in records for d in rec.deps if d})


def make_pipeline(*, document_level: bool, update: str, beam_width: int, learner: str = "pa") -> Language:
    """A blank English pipeline with a `joint_sbd_parser` (to be initialized on its examples)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe(COMPONENT, config={"update": update, "beam_width": beam_width, "learner": learner,
                                    "document_level": document_level})
    return nlp


def initialize(nlp: Language, examples: Sequence[Example], labels: Sequence[str]) -> None:
    nlp.get_pipe(COMPONENT).initialize(lambda: examples, nlp=nlp, labels=list(labels))


def input_doc(vocab, rec: DocRecord, starts: Optional[Sequence[bool]] = None) -> Doc:
    """What the component sees: the tokens, their predicted tags, and (for a parser working inside
    given sentences) the sentence starts."""
    sent_starts = None if starts is None else [i == 0 or bool(s) for i, s in enumerate(starts)]
    return Doc(vocab, words=rec.words, spaces=rec.spaces, tags=list(rec.xpos), sent_starts=sent_starts)


def examples_of(vocab, records: Sequence[DocRecord], document_level: bool) -> List[Example]:
    """Training examples: predicted Doc (tokens, predicted tags) against the gold reference Doc."""
    return [Example(input_doc(vocab, r, None if document_level else r.sent_starts), record_to_doc(vocab, r))
            for r in records if len(r)]


def train_epoch(nlp: Language, examples: Sequence[Example], seed: int) -> Dict:
    """One pass of `update` over the examples in a seeded shuffled order; the epoch's statistics."""
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    comp = nlp.get_pipe(COMPONENT)
    comp.update([examples[i] for i in order])
    return dict(comp.last_epoch_stats)


def parse(nlp: Language, records: Sequence[DocRecord], starts: Optional[Sequence[Sequence[bool]]] = None
          ) -> List[DocRecord]:
    """The component's predictions on `records` (given `starts` when it parses inside sentences)."""
    comp = nlp.get_pipe(COMPONENT)
    if comp.cfg["document_level"]:
        docs = [input_doc(nlp.vocab, r) for r in records]
    else:
        starts = starts if starts is not None else [r.sent_starts for r in records]
        docs = [input_doc(nlp.vocab, r, st) for r, st in zip(records, starts)]
    return [doc_to_record(d, r.doc_id) for d, r in zip(comp.pipe(docs, batch_size=16), records)]


def evaluate(nlp: Language, golds: Sequence[DocRecord], has_parse: bool = True,
             starts: Optional[Sequence[Sequence[bool]]] = None):
    preds = parse(nlp, golds, starts)
    return score_records(preds, golds, has_parse=has_parse), preds


def train_system(tagged: Dict, setting: str, system: str, epochs: int, beam_width: int,
                 model_dir: Optional[Path] = None, update: Optional[str] = None,
                 position: int = 0, seed: int = 0) -> Dict:
    """Train one system on the tagged data of `setting`; returns its metrics dict."""
    spec = dict(SYSTEM_DEFAULTS[system])
    if update:
        spec["update"] = update
    recs = tagged["records"]
    tests = SETTINGS[setting].tests

    def trees(rs: Sequence[DocRecord]) -> List[DocRecord]:
        return [apply_variant(r, "nosyntax") for r in rs] if spec["trees"] == "nosyntax" else list(rs)

    train, tune = trees(recs["train"]), trees(recs["tune"])
    document_level = spec["document_level"]
    instances = train if document_level else sentence_records(train)
    nlp = make_pipeline(document_level=document_level, update=spec["update"], beam_width=beam_width)
    examples = examples_of(nlp.vocab, instances, document_level)
    initialize(nlp, examples, labels_of(train))
    has_parse = spec["trees"] == "gold"
    curve: List[Dict] = []
    best: Optional[Dict] = None
    best_bytes: Optional[bytes] = None
    train_seconds = 0.0
    bar = tqdm(range(1, epochs + 1), desc=f"{setting} {system}", unit="epoch", position=position, disable=None)
    for epoch in bar:
        start = time.process_time()
        stats = train_epoch(nlp, examples, seed + epoch)
        seconds = time.process_time() - start
        train_seconds += seconds
        scores = evaluate(nlp, tune, has_parse)[0].scores()
        point = {"epoch": epoch, "train_cpu_seconds": seconds, "used_pct": stats["used_pct"],
                 **{k: scores[k] for k in ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las")}}
        point["tuning"] = tuning_score(system, {**scores, "dep_las": scores["dep_las"] or 0.0})
        curve.append(point)
        if best is None or point["tuning"] > best["tuning"]:
            best = point
            best_bytes = nlp.get_pipe(COMPONENT).to_bytes()  # the averaged weights
        bar.set_postfix(F1=f"{100 * scores['sents_f']:.1f}", LAS=f"{100 * (scores['dep_las'] or 0):.1f}")
        if bar.disable:  # not a terminal (a log file): one line per epoch instead of a bar
            print(f"{setting} {system} epoch {epoch}/{epochs}: tune F1 {100 * scores['sents_f']:.2f} "
                  f"LAS {100 * (scores['dep_las'] or 0):.2f}, {seconds:.0f} CPU s", flush=True)
    assert best is not None and best_bytes is not None
    nlp.get_pipe(COMPONENT).from_bytes(best_bytes)
    if model_dir is not None:
        nlp.meta["name"] = f"replicate_{setting}_{system}".replace("-", "_")
        nlp.to_disk(model_dir)
    result: Dict = {"setting": setting, "system": system, **spec, "beam": beam_width, "epochs": epochs,
                    "best_epoch": best["epoch"], "tune": best, "curve": curve,
                    "train_cpu_seconds": train_seconds, "tests": {},
                    # derived from the data: `tag` records the tagger whose predictions it stored
                    "tags": f"predicted by {tagged['tagger']}" if tagged.get("tagger") else "gold"}
    for split in tests:
        golds = recs[split]
        # NOSYNTAX is scored against the real gold trees' boundaries; its trees are not a parse.
        # GOLD parses inside the gold boundaries.
        counts, preds = evaluate(nlp, golds, has_parse)
        result["tests"][split] = {**counts.scores(), "per_doc": counts.per_doc,
                                  "starts": [p.sent_starts for p in preds]}
    return result


def reparse(nlp: Language, golds: Sequence[DocRecord], starts: Sequence[Sequence[bool]]) -> Dict:
    """Parse `golds` (with their predicted tags) inside the given sentence boundaries with a
    sentence-level parser, and score the result against the gold trees and boundaries."""
    counts: Counts = evaluate(nlp, golds, True, starts)[0]
    return {**counts.scores(), "per_doc": counts.per_doc}
