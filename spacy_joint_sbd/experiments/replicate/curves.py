"""Learning curves of the update strategies (bjorkelund2016 Figures 3, 4 and 5).

One run = one (mode, strategy, beam) trained for N epochs on a setting's training documents; after
every epoch it records the share of each gold transition sequence the updates used (Figure 3) and
the averaged model's sentence F1 and LAS on the tuning split (Figures 4 and 5). `mode="sentence"`
trains on gold sentences (the left plot of Figure 3), `mode="joint"` on whole documents. `greedy`
is decoded with beam 1, as a locally trained classifier.
"""
import time
from typing import Dict, List

from tqdm import tqdm

from ...transition import TransitionParser
from .systems import evaluate, sentence_records


def curve_run(tagged: Dict, mode: str, strategy: str, beam_width: int, epochs: int, label: str = "",
              position: int = 0, seed: int = 0) -> Dict:
    train, tune = tagged["records"]["train"], tagged["records"]["tune"]
    parser = TransitionParser.from_records(train, mode=mode)
    # sentence-level training: every sentence is an instance; document-level: every document
    train_docs = parser.encode(sentence_records(train) if mode == "sentence" else train)
    decode_beam = 1 if strategy == "greedy" else beam_width
    points: List[Dict] = []
    label = label or f"{mode} {strategy} b{beam_width}"
    bar = tqdm(range(1, epochs + 1), desc=label, unit="epoch", position=position, disable=None)
    for epoch in bar:
        start = time.process_time()
        stats = parser.train_epoch(train_docs, strategy=strategy, beam_width=beam_width, shuffle=seed + epoch)
        seconds = time.process_time() - start
        scores = evaluate(parser, tune, tune, decode_beam)[0].scores()
        points.append({"epoch": epoch, "train_cpu_seconds": seconds, "used_pct": stats["used_pct"],
                       **{k: scores[k] for k in ("sents_f", "dep_uas", "dep_las")}})
        if bar.disable:  # not a terminal (a log file): one line per epoch instead of a bar
            print(f"{label} epoch {epoch}/{epochs}: tune F1 {100 * scores['sents_f']:.2f} LAS "
                  f"{100 * (scores['dep_las'] or 0):.2f}, used {stats['used_pct']:.1f}%, {seconds:.0f} CPU s", flush=True)
    return {"mode": mode, "strategy": strategy, "beam": beam_width, "epochs": epochs, "curve": points}
