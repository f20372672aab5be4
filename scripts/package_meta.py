"""Write the model card (meta.json) of a packaged EWT pipeline from its metrics files.

    python scripts/package_meta.py GOLD_METRICS RAW_METRICS OUT [VERSION] [--variant plain|star]

Generated, never typed by hand: accuracy and speed come from `python -m spacy_joint_sbd evaluate`
on EWT test (gold tokens) and, where RAW_METRICS exists, on raw text. `--variant star` names the
model trained on lower-cased, unpunctuated EWT (`en_joint_sbd_ewt_star`), for text of that kind.
"""
import argparse
from pathlib import Path

import srsly

VARIANTS = {
    "plain": ("joint_sbd_ewt", "trained on UD English-EWT documents as they are (cased, punctuated)"),
    "star": ("joint_sbd_ewt_star", "trained on UD English-EWT documents lower-cased with every punctuation "
             "token removed, for text like speech transcripts or chat; feed it lower-cased, unpunctuated text"),
}


def make_meta(gold: dict, raw: dict, version: str, variant: str) -> dict:
    name, trained_on = VARIANTS[variant]
    return {
        "name": name,
        "version": version,
        "description": (
            "tok2vec (copied, frozen, from en_core_web_sm 3.8, MIT) + perceptron_tagger + joint_sbd_parser "
            "(spacy_joint_sbd): sentence boundaries and dependency trees predicted jointly over whole documents "
            f"(Björkelund et al. 2016), {trained_on}. Beam 20, DLaSO updates, passive-aggressive learner; the "
            "tagger and the parser read k-means clusters of the tok2vec's token vectors."),
        "license": "CC BY-SA 4.0",
        "author": "spacy_joint_sbd developers",
        "sources": [{"name": "UD English-EWT", "url": "https://github.com/UniversalDependencies/UD_English-EWT",
                     "license": "CC BY-SA 4.0", "author": "Universal Dependencies"},
                    {"name": "en_core_web_sm 3.8 (tok2vec)", "url": "https://github.com/explosion/spacy-models",
                     "license": "MIT", "author": "Explosion"}],
        "performance": {
            "variant": variant,
            "sents_p": gold["sents_p"], "sents_r": gold["sents_r"], "sents_f": gold["sents_f"],
            "dep_uas": gold["dep_uas"], "dep_las": gold["dep_las"],
            "raw_sentences_f": raw.get("sentences_f"), "raw_las_f": raw.get("las_f"),
            "raw_tokens_f": raw.get("tokens_f"),
        },
        "speed": {"cpu_words_per_second_gold_tokens": gold["words_per_second"]},
        "notes": (f"Scores on EWT test ({variant} variant): sentence boundaries at the token level with the "
                  "first token of each document excluded, UAS/LAS over all tokens, gold tokens and predicted "
                  "tags; raw_* are the CoNLL 2018 evaluator's F1 on raw text with spaCy's tokenizer (null where "
                  "not measured). The training data licence (CC BY-SA 4.0) applies to the model."),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gold_metrics")
    parser.add_argument("raw_metrics")
    parser.add_argument("out")
    parser.add_argument("version", nargs="?", default="0.1.0")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="plain")
    args = parser.parse_args()
    gold = srsly.read_json(args.gold_metrics)
    if gold.get("variant", args.variant) != args.variant:
        parser.error(f"{args.gold_metrics} scores the {gold['variant']!r} variant, not {args.variant!r}")
    raw = srsly.read_json(args.raw_metrics) if Path(args.raw_metrics).exists() else {}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(args.out, make_meta(gold, raw, args.version, args.variant))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
