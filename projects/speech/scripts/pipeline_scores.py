"""A finished pipeline as shipped, on every speech and treebank set: boundaries, LAS and how far
`token._.sent_start_prob` can be trusted.

    python scripts/pipeline_scores.py en_joint_sbd UD_DIR TEXT_DIR results/pipeline_scores.json

Nothing is tuned here: the pipeline's own settings (and calibration) are used. Per set: token-level
boundary P / R / F1 (each document's first token excluded), LAS where the set has trees, words/s
(wall clock, one process), and the expected calibration error of `sent_start_prob` (10 bins, the
tokens the model decides: not the first, not whitespace) with its reliability table. Sets: EWT test
plain / star, GUM dev plain / star, ATIS dev (one stream), AMI dev and SGD dev (punctuated and star:
running-text documents with their layout, boundaries derived from the transcribers' punctuation),
and EWT dev plain / star and AMI dev*, on which the settings were chosen and the
calibration fitted (in-sample: `in_sample`). Short texts: EWT test plain / star cut into texts of
1, 2 and 3 sentences in turn (`short_texts`: one message, one API request), each a Doc of its own,
so that the calibration is checked where a document gives the parser little context.
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List

import numpy
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.readers import tokens_only
from spacy_joint_sbd.pipeline.joint import calibration
from spacy_joint_sbd.scoring import score_records

sys.path.insert(0, str(Path(__file__).parent))
from prior_ablation import figures, sets  # noqa: E402  (the same sets and figures)

IN_SAMPLE = ("ewt-dev-plain", "ewt-dev-star", "ami-dev-star")
"""Sets the default pipeline's weight, biases and calibration were chosen on (AMI: a third of it)."""


def short_texts(golds: List[Doc], longest: int = 3) -> List[Doc]:
    """Each gold Doc cut at sentence boundaries into texts of 1, 2, …, `longest` sentences in turn
    (the cycle runs on across documents), trees and boundaries kept: short texts with gold."""
    out: List[Doc] = []
    size = 0
    for gold in golds:
        sents = list(gold.sents)
        i = 0
        while i < len(sents):
            size = size % longest + 1
            chunk = sents[i:i + size]
            out.append(gold[chunk[0].start:chunk[-1].end].as_doc())
            i += size
    return out


def score_set(nlp, golds, has_parse: bool) -> Dict:
    inputs = [tokens_only(nlp.vocab, g) for g in golds]
    start = time.perf_counter()
    docs = list(nlp.pipe(inputs, batch_size=32))
    seconds = time.perf_counter() - start
    preds = [doc_to_record(d) for d in docs]
    out = figures(score_records(preds, [doc_to_record(g) for g in golds], has_parse=has_parse), golds, seconds,
                  has_parse)
    probs, gold = [], []
    for d, g in zip(docs, golds):
        free = calibration.free_tokens(d)
        probs.append(numpy.asarray([t._.sent_start_prob for t in d], dtype=float)[free])
        gold.append(numpy.asarray([bool(t.is_sent_start) for t in g])[free])
    p, y = numpy.concatenate(probs), numpy.concatenate(gold)
    out["ece"] = round(calibration.expected_calibration_error(p, y), 4)
    out["reliability"] = calibration.reliability(p, y)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="pipeline directory or package, e.g. en_joint_sbd")
    ap.add_argument("ud", type=Path)
    ap.add_argument("text", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--only", default="", help="comma-separated set names (default: all)")
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    data = sets(nlp, args.ud, args.text)
    for variant in ("plain", "star"):
        data[f"ewt-test-short-{variant}"] = (lambda full=data[f"ewt-test-{variant}"]: (short_texts(full()[0]), True))
    names = [n for n in data if not args.only or n in args.only.split(",")]
    results: Dict = {"pipeline": Path(args.pipeline).name, "pipe_names": nlp.pipe_names,
                     "settings": {k: nlp.get_pipe("joint_sbd_parser").cfg.get(k) for k in
                                  ("beam_width", "sb_bias", "sb_bias_unpunctuated", "prior_weight")},
                     "in_sample": list(IN_SAMPLE), "sets": {}}
    for name in names:
        golds, has_parse = data[name]()
        results["sets"][name] = score_set(nlp, golds, has_parse)
        r = results["sets"][name]
        print(f"{name}: P {r['sents_p']} R {r['sents_r']} F1 {r['sents_f']} LAS {r.get('dep_las', '-')} "
              f"ECE {r['ece']} ({r['words_per_second']} words/s)", flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
