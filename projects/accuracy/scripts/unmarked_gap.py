"""Edited text stays whole: does a penalty on boundaries that no mark supports
lift precision on punctuated raw text?

Most of the default pipeline's false boundaries on GUM dev as raw text fall into three kinds: after
a dash or a colon (where GUM's annotation varies: its train documents start a sentence after a dash
before a capital in about two thirds of the cases), after a full stop the annotators kept inside a
sentence, and straight after a word with no mark at all (`Joshua | Abraham Norton`, `writers | Mark
Twain`). Only the last kind can be told from the text alone. This experiment subtracts a penalty
lambda from the score of the SB move at every *unmarked gap*: a word whose previous non-space
token is not punctuation, with no line break between them, inside a punctuated region (sentence-
final marks make at least 2% of the ±40 words around it, the boundary prior's own regime cut), so
that transcripts and unpunctuated stretches of mixed documents are left alone.

The penalty enters where the joint parser forms its SB evidence (`prior_sb_scores`, wrapped here
for the experiment: the library has no such setting; `sb_bias_unmarked`, a stricter one, is
`sb_bias_unmarked.py`). Each lambda splits EWT dev (the set that
chooses the SB biases) and GUM dev (the raw-text target) rebuilt as raw text through `segment`, in
the layouts of `raw_documents.py`; boundary P / R / F1 as there.

    python scripts/unmarked_gap.py ../../assets/ud results/full/unmarked_gap.json
"""
import functools
import json
from pathlib import Path
from typing import Dict, List, Optional

import numpy
import typer
from raw_documents import layout, score, segment_starts, set_summary, treebank_documents

from spacy_joint_sbd.boundary import BoundaryModel
from spacy_joint_sbd.boundary.model import DEFAULT_WINDOW, MARK_WORD

SETS = {"EWT dev": "en_ewt/dev.conllu", "GUM dev": "en_gum/dev.conllu"}
LAYOUTS = ("paragraphs", "wrapped", "flat")
COL_GAP, COL_MARK, COL_PREG = 4, 5, 6
"""The columns of `BoundaryModel.encode` read here (`boundary/features.pxd`): line breaks before the
token, its mark class, and the binned share of sentence-final marks in the ±`DEFAULT_WINDOW` tokens
around it (bin ≥ 2: at least `REGION_CUT`, the first of the prior's two cuts)."""
REGION_CUT = 0.02
_encoder = None


def unmarked_gaps(doc) -> numpy.ndarray:
    """bool per non-space token of `doc`: an unmarked gap inside a punctuated region (module doc),
    read from the boundary prior's own encoding of the Doc."""
    global _encoder
    if _encoder is None:
        _encoder = BoundaryModel(n_rows=1)  # encoding only: no weights read
    attrs, _ = _encoder.encode(doc)
    out = numpy.zeros((len(attrs),), dtype=bool)
    out[1:] = attrs[:-1, COL_MARK] == MARK_WORD
    return out & (attrs[:, COL_GAP] == 0) & (attrs[:, COL_PREG] >= 2)


def with_penalty(penalty: List[float]) -> None:
    """Wrap the parser's SB evidence so that `penalty[0]` is subtracted at every unmarked gap."""
    import spacy_joint_sbd.pipeline.joint_sbd_parser as jp

    original = jp.prior_sb_scores

    def scores(doc, weight: float) -> Optional[numpy.ndarray]:
        s = original(doc, weight)
        if s is None or not penalty[0]:
            return s
        return (s - penalty[0] * unmarked_gaps(doc)).astype(numpy.float32)

    jp.prior_sb_scores = scores


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline"),
         penalties: str = typer.Option("0,0.25,0.5,1,2", help="lambdas, comma-separated (0 = the pipeline as shipped)")) -> None:
    import spacy

    grid = [float(x) for x in penalties.split(",") if x.strip()]
    sets = treebank_documents(ud_dir, SETS)
    penalty = [0.0]
    with_penalty(penalty)
    nlp = spacy.load(model)
    run = functools.partial(segment_starts, nlp)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "window": DEFAULT_WINDOW,
                    "region_cut": REGION_CUT, "penalties": grid, "sets": {}}
    for name, docs in sets.items():
        report["sets"][name] = set_summary(docs)
        for lay in LAYOUTS:
            texts = [layout(d.text, lay) for d in docs]
            for lam in grid:
                penalty[0] = lam
                scores = score(docs, texts, run)
                report["sets"][name].setdefault(lay, {})[str(lam)] = scores
                print(f"{name:8} {lay:10} lambda {lam:4}  P {scores['p']:6.2f} R {scores['r']:6.2f} F1 {scores['f']:6.2f}",
                      flush=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
