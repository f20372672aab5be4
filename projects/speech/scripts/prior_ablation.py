"""The joint pipeline with and without the boundary prior, and the prior alone.

    python scripts/prior_ablation.py PIPELINE PRIOR UD_DIR TEXT_DIR results/prior_ablation.json

1. Tune on dev sets only (`operating_point.tune_prior`): the prior's weight w (0 = no prior is a
   candidate) and the SB-bias shifts that re-centre it, `sb_bias` on EWT dev (plain),
   `sb_bias_unpunctuated` on EWT dev* + AMI dev* (mean F1).
2. Score the project's sets with the tuned settings, the pipeline as it is, and the prior alone
   (boundaries where its probability is >= 0.5; its calibration error beside): EWT test plain /
   star, GUM dev plain / star, ATIS dev (one stream), AMI dev and SGD dev (punctuated and star:
   running-text documents, their boundaries derived from the transcribers' punctuation, run on
   their tokens, which are `nlp(text)`'s).

Token-level boundary P / R / F1 (each document's first token excluded), LAS where the set has
trees, words/s of the whole pipeline (wall clock, one process).
"""
import argparse
import json
import time
from pathlib import Path
from typing import Dict, List, Tuple

import numpy
import spacy

from spacy_joint_sbd.boundary import DOC_PROBS
from spacy_joint_sbd.corpus.docs import doc_to_record
from spacy_joint_sbd.corpus.readers import load_gold_docs, tokens_only
from spacy_joint_sbd.evaluation import predict
from spacy_joint_sbd.operating_point import tune_prior
from spacy_joint_sbd.corpus.running_text import iter_text_docs
from spacy_joint_sbd.pipeline.boundary_prior import BoundaryPriorPipe  # noqa: F401  (registers the factory)
from spacy_joint_sbd.pipeline.joint.calibration import expected_calibration_error
from spacy_joint_sbd.scoring import score_records



def sets(nlp, ud: Path, text: Path) -> Dict[str, Tuple[List, bool]]:
    """name -> (gold Docs, has trees), loaded lazily by the caller's order."""
    def ud_set(path: Path, variant: str, per_doc: int = 10):
        return lambda: (load_gold_docs(path, nlp.vocab, variant, None, per_doc), True)

    def text_set(folder: str, variant: str):
        return lambda: (list(iter_text_docs([text / folder], nlp, variants=[variant], root=text, allow_dev=True)), False)

    return {
        "ewt-dev-plain": ud_set(ud / "en_ewt/dev.conllu", "plain"),
        "ewt-dev-star": ud_set(ud / "en_ewt/dev.conllu", "star"),
        "ami-dev-star": text_set("ami/dev", "star"),
        "ewt-test-plain": ud_set(ud / "en_ewt/test.conllu", "plain"),
        "ewt-test-star": ud_set(ud / "en_ewt/test.conllu", "star"),
        "gum-dev-plain": ud_set(ud / "en_gum/dev.conllu", "plain"),
        "gum-dev-star": ud_set(ud / "en_gum/dev.conllu", "star"),
        "atis-dev": ud_set(ud / "en_atis/dev.conllu", "plain", 100000),
        "ami-dev-plain": text_set("ami/dev", "plain"),
        "sgd-dev-plain": text_set("sgd/dev", "plain"),
        "sgd-dev-star": text_set("sgd/dev", "star"),
    }


def figures(counts, golds, seconds: float, has_parse: bool) -> Dict[str, float]:
    """Boundary P / R / F1 (and LAS) in percent from `score_records`' counts, and words/s."""
    s = counts.scores()
    out = {k: round(100 * s[k], 2) for k in ("sents_p", "sents_r", "sents_f") if s.get(k) is not None}
    if has_parse:
        out["dep_las"] = round(100 * s["dep_las"], 2)
    out["words_per_second"] = round(sum(len(g) for g in golds) / seconds) if seconds else None
    return out


def score(nlp, golds, has_parse: bool) -> Dict[str, float]:
    preds, seconds = predict(nlp, golds)
    return figures(score_records(preds, [doc_to_record(g) for g in golds], has_parse=has_parse), golds, seconds,
                   has_parse)


def score_prior_alone(prior_nlp, golds, threshold: float = 0.5) -> Dict[str, float]:
    """The prior's own boundaries (p >= threshold) and its expected calibration error (10 bins)."""
    probs, gold = [], []
    start = time.perf_counter()
    docs = list(prior_nlp.pipe(tokens_only(prior_nlp.vocab, g) for g in golds))
    seconds = time.perf_counter() - start
    for d, g in zip(docs, golds):
        probs.append(d._.get(DOC_PROBS)[1:])
        gold.append(numpy.asarray([bool(t.is_sent_start) for t in g][1:]))
    p, y = numpy.concatenate(probs), numpy.concatenate(gold)
    pred = p >= threshold
    tp = float((pred & y).sum())
    prec, rec = tp / max(1, pred.sum()), tp / max(1, y.sum())
    ece = expected_calibration_error(p, y, bins=10)
    return {"sents_p": round(100 * prec, 2), "sents_r": round(100 * rec, 2),
            "sents_f": round(200 * prec * rec / max(1e-9, prec + rec), 2), "ece": round(float(ece), 4),
            "words_per_second": round(sum(len(g) for g in golds) / seconds) if seconds else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pipeline", help="the joint pipeline (directory or package), e.g. en_joint_sbd")
    ap.add_argument("prior", type=Path, help="a boundary_prior pipeline (train-prior)")
    ap.add_argument("ud", type=Path)
    ap.add_argument("text", type=Path)
    ap.add_argument("output", type=Path)
    args = ap.parse_args()
    nlp = spacy.load(args.pipeline)
    prior_nlp = spacy.load(args.prior)
    parser = nlp.get_pipe("joint_sbd_parser")
    base = {"sb_bias": parser.cfg["sb_bias"], "sb_bias_unpunctuated": parser.cfg["sb_bias_unpunctuated"]}
    data = sets(nlp, args.ud, args.text)
    loaded = {}

    def get(name):
        if name not in loaded:
            loaded[name] = data[name]()
        return loaded[name]

    results: Dict = {"pipeline": Path(args.pipeline).name, "prior": args.prior.name, "base_settings": base,
                     "tuning": [], "sets": {}}
    # 1. the pipeline without the prior, then with it, tuned on dev (w = 0 is a candidate too)
    without = {name: score(nlp, *get(name)) for name in data}
    nlp.add_pipe("boundary_prior", source=prior_nlp, before="joint_sbd_parser")
    golds = {name: get(name)[0] for name in ("ewt-dev-plain", "ewt-dev-star", "ami-dev-star")}
    chosen, results["tuning"] = tune_prior(nlp, golds["ewt-dev-plain"], [golds["ewt-dev-star"], golds["ami-dev-star"]])
    results["chosen"] = chosen
    for key, value in chosen.items():
        parser.cfg[key] = value
    print(f"chosen on dev: {chosen}", flush=True)
    # 2. every set: without, with, the prior alone
    for name in data:
        golds, has_parse = get(name)
        results["sets"][name] = {"without_prior": without[name], "with_prior": score(nlp, golds, has_parse),
                                 "prior_alone": score_prior_alone(prior_nlp, golds)}
        print(name, json.dumps(results["sets"][name]), flush=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
