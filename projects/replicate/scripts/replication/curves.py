"""Learning curves of the update strategies (bjorkelund2016 Figures 3, 4 and 5).

One run = one (document_level, update, beam) trained for N epochs on a setting's training documents;
after every epoch it records the share of each gold transition sequence the updates used (Figure 3)
and the averaged model's sentence F1 and LAS on the tuning split (Figures 4 and 5).
`document_level=False` trains on gold sentences (the left plot of Figure 3), True on whole
documents. `greedy` is decoded with beam 1, as a locally trained classifier.

A run is named `joint:<update>:<beam>` (whole documents, the paper's JOINT) or
`sentence:<update>:<beam>`; its metrics file is `<name>-<update>-beam<beam>.json`.
"""
import time
from typing import Dict, List, Tuple

from tqdm import tqdm

from .systems import evaluate, examples_of, initialize, labels_of, make_pipeline, sentence_records, train_epoch

RUN_KINDS = {"joint": True, "sentence": False}
"""Run name prefix → document_level."""


def parse_run(run: str) -> Tuple[str, str, int]:
    """`joint:dlaso:20` → ("joint", "dlaso", 20)."""
    kind, update, beam = run.split(":")
    if kind not in RUN_KINDS:
        raise ValueError(f"run {run!r}: the first field must be one of {sorted(RUN_KINDS)}")
    return kind, update, int(beam)


def curve_run(tagged: Dict, document_level: bool, update: str, beam_width: int, epochs: int, label: str = "",
              position: int = 0, seed: int = 0) -> Dict:
    train, tune = tagged["records"]["train"], tagged["records"]["tune"]
    # greedy trains a local classifier (the beam plays no part in its updates) and decodes with beam 1
    nlp = make_pipeline(document_level=document_level, update=update,
                        beam_width=1 if update == "greedy" else beam_width)
    examples = examples_of(nlp.vocab, train if document_level else sentence_records(train), document_level)
    initialize(nlp, examples, labels_of(train))
    points: List[Dict] = []
    label = label or f"{'joint' if document_level else 'sentence'} {update} b{beam_width}"
    bar = tqdm(range(1, epochs + 1), desc=label, unit="epoch", position=position, disable=None)
    for epoch in bar:
        start = time.process_time()
        stats = train_epoch(nlp, examples, seed + epoch)
        seconds = time.process_time() - start
        scores = evaluate(nlp, tune)[0].scores()
        points.append({"epoch": epoch, "train_cpu_seconds": seconds, "used_pct": stats["used_pct"],
                       "violations": stats["violations"],
                       **{k: scores[k] for k in ("sents_f", "dep_uas", "dep_las")}})
        if bar.disable:  # not a terminal (a log file): one line per epoch instead of a bar
            print(f"{label} epoch {epoch}/{epochs}: tune F1 {100 * scores['sents_f']:.2f} LAS "
                  f"{100 * (scores['dep_las'] or 0):.2f}, used {stats['used_pct']:.1f}%, {seconds:.0f} CPU s", flush=True)
    return {"document_level": document_level, "update": update, "beam": beam_width, "epochs": epochs,
            "curve": points}
