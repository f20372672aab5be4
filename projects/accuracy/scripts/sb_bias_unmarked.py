"""Edited text stays whole: the joint parser's `sb_bias_unmarked` setting, swept.

`sb_bias_unmarked` (`spacy_joint_sbd.pipeline.joint.unmarked`) is added to SB's score at every token that
no sentence-final mark (`.`, `!`, `?`, … perhaps followed by closing quotes or brackets) and no
line break precedes, in documents with sentence-final punctuation. Unlike `unmarked_gap.py`'s
penalty (after a bare word only), a colon or a dash is no mark here: `Bottom line: | If we…` and
`approached by – | I want to say` get the bias too.

Each value splits EWT dev (the set that chooses the default pipeline's SB biases), GUM dev (a raw-text
target) and EWT test (report only) rebuilt as raw text through `segment`, in the layouts of
`raw_documents.py`, beside pysbd and nupunkt; boundary P / R / F1 as there. `chosen_on_ewt_dev` is
the value with the best mean F1 over EWT dev's layouts, as the default pipeline's biases are chosen.

    python scripts/sb_bias_unmarked.py ../../assets/ud results/full/sb_bias_unmarked.json
"""
import functools
import json
from pathlib import Path
from typing import Dict

import typer
from raw_documents import LAYOUTS, layout, rule_splitters, score, segment_starts, set_summary, treebank_documents

SETS = {"EWT dev": "en_ewt/dev.conllu", "GUM dev": "en_gum/dev.conllu", "EWT test": "en_ewt/test.conllu"}


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline"),
         biases: str = typer.Option("0,-0.25,-0.5,-1,-2", help="values, comma-separated (0 = as shipped)")) -> None:
    import spacy

    grid = [float(x) for x in biases.split(",") if x.strip()]
    sets = treebank_documents(ud_dir, SETS)
    nlp = spacy.load(model)
    parser = nlp.get_pipe("joint_sbd_parser")
    shipped = parser.sb_bias_unmarked
    peers = rule_splitters()
    joint = functools.partial(segment_starts, nlp)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "shipped": shipped,
                    "biases": grid, "sets": {}}
    for name, docs in sets.items():
        report["sets"][name] = set_summary(docs)
        for lay in LAYOUTS:
            texts = [layout(d.text, lay) for d in docs]
            row = report["sets"][name].setdefault(lay, {})
            for b in grid:
                parser.sb_bias_unmarked = b
                row[str(b)] = score(docs, texts, joint)
                s = row[str(b)]
                print(f"{name:8} {lay:10} sb_bias_unmarked {b:5}  P {s['p']:6.2f} R {s['r']:6.2f} F1 {s['f']:6.2f}",
                      flush=True)
            for peer, run in peers.items():
                row[peer] = score(docs, texts, run)
    parser.sb_bias_unmarked = shipped
    if "EWT dev" in report["sets"]:
        dev = report["sets"]["EWT dev"]
        report["chosen_on_ewt_dev"] = max(grid, key=lambda b: (sum(dev[lay][str(b)]["f"] for lay in LAYOUTS), b))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
