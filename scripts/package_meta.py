"""Write the model card (meta.json) of the packaged EWT pipeline from the metrics files.

Generated, never typed by hand: accuracy and speed come from `python -m spacy_joint_sbd evaluate`
on EWT test (gold tokens) and raw text.
"""
import sys
from pathlib import Path

import srsly


def main(gold_metrics: str, raw_metrics: str, out: str, version: str = "0.1.0") -> None:
    gold = srsly.read_json(gold_metrics)
    raw = srsly.read_json(raw_metrics) if Path(raw_metrics).exists() else {}
    meta = {
        "name": "joint_sbd_ewt",
        "version": version,
        "description": (
            "Tagger + joint_sbd_parser (spacy_joint_sbd): sentence boundaries and dependency trees "
            "predicted jointly over whole documents (Björkelund et al. 2016), trained on UD English-EWT "
            "documents. Beam 20, DLaSO updates, passive-aggressive learner."),
        "license": "CC BY-SA 4.0",
        "author": "spacy_joint_sbd developers",
        "sources": [{"name": "UD English-EWT", "url": "https://github.com/UniversalDependencies/UD_English-EWT",
                     "license": "CC BY-SA 4.0", "author": "Universal Dependencies"}],
        "performance": {
            "sents_p": gold["sents_p"], "sents_r": gold["sents_r"], "sents_f": gold["sents_f"],
            "dep_uas": gold["dep_uas"], "dep_las": gold["dep_las"],
            "raw_sentences_f": raw.get("sentences_f"), "raw_las_f": raw.get("las_f"),
            "raw_tokens_f": raw.get("tokens_f"),
        },
        "speed": {"cpu_words_per_second_gold_tokens": gold["words_per_second"]},
        "notes": ("Scores on EWT test: sentence boundaries at the token level with the first token of each "
                  "document excluded, UAS/LAS over all tokens, gold tokens and predicted tags; raw_* are the "
                  "CoNLL 2018 evaluator's F1 on raw text with spaCy's tokenizer. The training data licence "
                  "(CC BY-SA 4.0) applies to the model."),
    }
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(out, meta)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
