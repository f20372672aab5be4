"""The model card of the default pipeline `en_joint_sbd`, from the main job's report.

    python scripts/default_meta.py MODEL REPORT OUT [--package DIR]

Writes OUT, the part of meta.json that `spacy package --meta-path OUT` lays over the pipeline's
own: a description naming every component and what it learnt from, the training sources with
their licences, `performance` as spaCy pipelines carry it (EWT test, gold tokens, the pipeline's
own tags: sentence P/R/F and UAS/LAS), every scored set under `performance["sets"]`, the
prediction settings dev chose, and notes saying how the figures were measured. Generated, never
typed: a report without a set's scores or without the dev choice is refused with one line naming
the missing file. `--package DIR`: the folder `spacy package` is about to write, removed first,
because `spacy package --force` keeps an earlier run's README.md there, i.e. the old model card.
"""
import argparse
import shutil
from pathlib import Path
from typing import Dict, List

import srsly

from default_scores import SETS as SCORED  # a sibling script: scripts/ is on the path when run

SETS = tuple(SCORED)
"""The report's sets, as `scripts/default_scores.py` scores them (the order of README's table)."""
HEADLINE = "ewt-test-plain"
KEYS = ("sents_p", "sents_r", "sents_f", "dep_uas", "dep_las")
TEXT_SOURCES: List[Dict[str, str]] = [
    {"name": "Project Gutenberg books (gutenberg/)", "url": "https://github.com/rcdm-uga/Gutenberg_Text",
     "license": "public domain (USA)"},
    {"name": "AMI Meeting Corpus transcripts (ami/)", "url": "https://github.com/gcunhase/AMICorpusXML",
     "license": "CC BY 4.0"},
    {"name": "CABNC conversation (cabnc/)", "url": "https://github.com/saulalbert/CABNC", "license": "CC BY 3.0"},
    {"name": "Schema-Guided Dialogue (sgd/)",
     "url": "https://github.com/google-research-datasets/dstc8-schema-guided-dialogue", "license": "CC BY-SA 4.0"},
    {"name": "State of the Union and inaugural speeches, NLTK data (speeches/)",
     "url": "https://github.com/nltk/nltk_data", "license": "public domain"},
]
"""The running text the boundary prior reads (projects/speech's asset list names the commits)."""
TREEBANK_SOURCES: Dict[str, Dict[str, str]] = {
    "corpus/en_ewt/train.spacy": {"name": "UD English-EWT train", "license": "CC BY-SA 4.0",
                                  "url": "https://github.com/UniversalDependencies/UD_English-EWT"},
    "corpus/en_gum/train.spacy": {"name": "UD English-GUM train", "license": "CC BY-NC-SA 4.0",
                                  "url": "https://github.com/UniversalDependencies/UD_English-GUM"},
    "corpus/en_atis/train.spacy": {"name": "UD English-Atis train", "license": "CC BY-SA 4.0",
                                   "url": "https://github.com/UniversalDependencies/UD_English-Atis"},
}
"""The training files `scripts/train_default.py` names in the pipeline's meta, as their treebanks."""


def _read(path: Path) -> Dict:
    if not path.is_file():
        raise SystemExit(f"default_meta: {path} is missing (run `spacy project run default` first)")
    return srsly.read_json(path)


def _scores(path: Path) -> Dict[str, float]:
    """The `KEYS` of one set's scores; SystemExit naming the file and the key if one is not a number."""
    got = _read(path)
    bad = [k for k in KEYS if not isinstance(got.get(k), (int, float)) or isinstance(got.get(k), bool)]
    if bad:
        raise SystemExit(f"default_meta: {path} has no number for {', '.join(bad)}")
    return {k: float(got[k]) for k in KEYS}


def make_meta(model_meta: Dict, report: Path) -> Dict:
    """The meta.json overrides of the pipeline whose own meta is `model_meta`, from `report`."""
    metrics = report / "metrics"
    scores = {name: _scores(metrics / f"{name}.json") for name in SETS}
    chosen = _read(metrics / "prior.json").get("chosen")
    if not isinstance(chosen, dict) or not {"prior_weight", "sb_bias", "sb_bias_unpunctuated"} <= set(chosen):
        raise SystemExit(f"default_meta: {metrics / 'prior.json'} has no dev choice of prior_weight, sb_bias "
                         "and sb_bias_unpunctuated")
    settings = {k: round(float(chosen[k]), 4) for k in ("prior_weight", "sb_bias", "sb_bias_unpunctuated")}
    headline = scores[HEADLINE]
    performance: Dict = {k: headline[k] for k in KEYS}
    performance["sets"] = scores
    rows = "\n".join(f"| {name} | {100 * s['sents_p']:.2f} | {100 * s['sents_r']:.2f} | {100 * s['sents_f']:.2f} | "
                     f"{100 * s['dep_las']:.2f} |" for name, s in scores.items())
    own = str(model_meta.get("description") or "").strip().rstrip(".")
    encoder = "encoder_boundaries" in (model_meta.get("pipeline") or [])
    evidence = (
        "a boundary_prior (a hashed n-gram model of sentence starts trained on the treebanks and on punctuated "
        "running text: books, meeting transcripts, conversation, task dialogues, speeches, in plain, star and "
        "hard-wrapped variants) blended with encoder_boundaries (all-MiniLM-L6-v2, Apache-2.0, fine-tuned on "
        "the same running text to mark sentence starts, a share of it lower-cased without punctuation; run "
        "by onnxruntime in int8)" if encoder else
        "a boundary_prior: a hashed n-gram model of sentence starts trained on the treebanks and on punctuated "
        "running text (books, meeting transcripts, conversation, task dialogues, speeches) in plain, star and "
        "hard-wrapped variants")
    description = (
        f"{own or 'Sentence boundaries and dependency trees predicted jointly over whole documents'}. "
        f"The joint parser also reads {evidence}, "
        f"added to the SB move's score with weight {settings['prior_weight']}. newline_boundaries "
        "makes blank lines boundaries. One pipeline for punctuated and unpunctuated English "
        "(e.g. speech transcripts, lower-cased text).")
    notes = (
        "Boundary precision, recall and F1 at the token level (each document's first token excluded) and "
        "LAS, on whole documents from gold tokens with the pipeline's own tags; star = lower-cased with "
        "punctuation removed; ATIS dev is read as one stream of queries. `performance` carries EWT test "
        "(plain); every set:\n\n| set | P | R | F1 | LAS |\n|---|---|---|---|---|\n" + rows + "\n\n"
        f"Chosen on dev (EWT dev, EWT dev*, AMI dev*): prior_weight {settings['prior_weight']}, sb_bias "
        f"{settings['sb_bias']}, sb_bias_unpunctuated {settings['sb_bias_unpunctuated']}. The licence of GUM "
        "(CC BY-NC-SA 4.0) applies to the model.")
    sources = [TREEBANK_SOURCES.get(src.get("name"), src) if isinstance(src, dict) else {"name": str(src)}
               for src in model_meta.get("sources") or []] + TEXT_SOURCES
    if encoder:
        sources.append({"name": "all-MiniLM-L6-v2 (sentence-transformers), the encoder's pretrained weights",
                        "url": "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2", "license": "Apache-2.0"})
    return {"description": description, "performance": performance, "notes": notes, "sources": sources}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path, help="the pipeline directory (its meta.json is read)")
    ap.add_argument("report", type=Path, help="the main job's report folder (metrics/*.json)")
    ap.add_argument("out", type=Path, help="where to write the meta.json overrides")
    ap.add_argument("--package", type=Path, help="an earlier `spacy package` output folder to remove")
    args = ap.parse_args()
    meta = make_meta(_read(args.model / "meta.json"), args.report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.out, meta)
    if args.package is not None and args.package.is_dir():
        shutil.rmtree(args.package)
        print(f"removed the earlier package {args.package}")
    print(f"wrote {args.out}: EWT test F1 {100 * meta['performance']['sents_f']:.2f}, "
          f"LAS {100 * meta['performance']['dep_las']:.2f}")


if __name__ == "__main__":
    main()
