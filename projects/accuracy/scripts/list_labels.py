"""Lists as users paste them (recipes, instructions, minutes): does a list label stay with its item
(`spacy_joint_sbd.pipeline.joint.whitespace.list_labels`), and does a bulleted item start a sentence
(`newline_boundaries`' `list_items`)?

Documents of 10 items each, one item per line, every item one sentence of UD English EWT test (its
`# text`, the first `--items` of 5–40 words, in file order: a test set, reported only), labelled
`1. `, `1) `, `a. `, `• ` or `* ` in turn. Gold: one sentence per item, starting at its label.
Systems: the pipeline through `segment` (as `raw_documents.py`), the same with both list rules off,
pysbd and nupunkt; boundary P / R / F1 over sentence-start offsets (each document's first
excluded) and how many labels became a sentence of their own (`label alone`).

    python scripts/list_labels.py ../../assets/ud results/full/list_labels.json
"""
import functools
import json
import re
import string
from pathlib import Path
from typing import Callable, Dict, List, Set, Tuple

import numpy
import typer
from raw_documents import rule_splitters, segment_starts

STYLES = (lambda k: f"{k}. ", lambda k: f"{k}) ", lambda k: f"{string.ascii_lowercase[k - 1]}. ",
          lambda k: "• ", lambda k: "* ")
ITEMS_PER_DOC = 10
ALONE = re.compile(r"^\s*(?:(?:[0-9]{1,3}|[A-Za-z])[.)]|[•*])\s*$")


def sentences(path: Path, n: int) -> List[str]:
    out = []
    for line in path.read_text(encoding="utf8").splitlines():
        if line.startswith("# text = "):
            text = line[len("# text = "):].strip()
            if 5 <= len(text.split()) <= 40:
                out.append(text)
                if len(out) == n:
                    break
    return out


def documents(items: List[str]) -> List[Tuple[str, Set[int]]]:
    """(text, gold start offsets) per document of `ITEMS_PER_DOC` items."""
    docs = []
    for d, j in enumerate(range(0, len(items) - ITEMS_PER_DOC + 1, ITEMS_PER_DOC)):
        style, text, gold = STYLES[d % len(STYLES)], "", set()
        for k, item in enumerate(items[j:j + ITEMS_PER_DOC], start=1):
            if k > 1:
                text += "\n"
                gold.add(len(text))
            text += style(k) + item
        docs.append((text, gold))
    return docs


def evaluate(docs, run: Callable[[str], Set[int]]) -> Dict[str, float]:
    tp = fp = fn = alone = 0
    for text, gold in docs:
        pred = {s for s in run(text) if s > 0}
        tp, fp, fn = tp + len(pred & gold), fp + len(pred - gold), fn + len(gold - pred)
        cuts = sorted(pred | {0, len(text)})
        alone += sum(bool(ALONE.match(text[a:b])) for a, b in zip(cuts, cuts[1:]))
    p, r = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f": round(100 * 2 * p * r / max(p + r, 1e-12), 2),
            "label_alone": alone}


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline"),
         items: int = typer.Option(300, help="EWT test sentences (10 per document)")) -> None:
    import spacy
    import spacy_joint_sbd.pipeline.joint.whitespace as whitespace

    docs = documents(sentences(ud_dir / "en_ewt" / "test.conllu", items))
    nlp = spacy.load(model)
    joint = functools.partial(segment_starts, nlp)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "documents": len(docs),
                    "labels": sum(len(g) + 1 for _, g in docs), "systems": {}}
    report["systems"]["joint (segment)"] = evaluate(docs, joint)
    rule = whitespace.list_labels
    components = [pipe for _, pipe in nlp.pipeline if hasattr(pipe, "list_items")]
    whitespace.list_labels = lambda doc, arr=None: numpy.zeros((len(doc),), dtype=bool)
    for pipe in components:
        pipe.list_items = False
    try:
        report["systems"]["joint, no list rules"] = evaluate(docs, joint)
    finally:
        whitespace.list_labels = rule
        for pipe in components:
            pipe.list_items = True
    for name, run in rule_splitters().items():
        report["systems"][name] = evaluate(docs, run)
    for name, s in report["systems"].items():
        print(f"{name:22} P {s['p']:6.2f} R {s['r']:6.2f} F1 {s['f']:6.2f}  label alone {s['label_alone']}")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")


if __name__ == "__main__":
    typer.run(main)
