"""Mixed documents: punctuated documents with unpunctuated paragraphs.

Each treebank document with two or more paragraphs (`# newpar`) is rebuilt as raw text twice, with
every other paragraph (the odd ones, then the even ones) turned into star text as a transcript
reads: lower-cased, punctuation stripped from the edges of each word and punctuation-only words
dropped; the gold sentence starts move with their words. The joint pipeline splits them through
`segment` with `boundary_prior`'s `paragraph_windows` off (as shipped) and on; boundary P / R / F1
inside the star paragraphs and inside the punctuated ones (a paragraph's first word excluded: the
blank line before it is a boundary either way). For scale, the same documents without stars
(`raw_documents.py`'s three layouts) with either setting.

    python scripts/mixed_documents.py ../../assets/ud results/full/mixed_documents.json
"""
import functools
import json
import unicodedata
from pathlib import Path
from typing import Dict, List, Set, Tuple

import typer
from raw_documents import LAYOUTS, layout, score, segment_starts, treebank_documents

SETS = {"EWT dev": "en_ewt/dev.conllu", "GUM dev": "en_gum/dev.conllu", "EWT test": "en_ewt/test.conllu"}
Region = Tuple[int, int, bool]
"""A paragraph of a mixed text: [start, end) character offsets and whether it is star text."""


def _punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def star_words(paragraph: str, offset: int, gold: Set[int]) -> Tuple[List[str], List[bool]]:
    """The paragraph's whitespace-separated words as star text (empty ones dropped) and, for each
    kept word, whether a gold sentence starts in it or in a dropped word since the last kept one."""
    words, starts, pending, i = [], [], False, 0
    while i < len(paragraph):
        if paragraph[i].isspace():
            i += 1
            continue
        j = i
        while j < len(paragraph) and not paragraph[j].isspace():
            j += 1
        pending = pending or any(offset + i <= g < offset + j for g in gold)
        w = paragraph[i:j]
        lo, hi = 0, len(w)
        while lo < hi and _punct(w[lo]):
            lo += 1
        while hi > lo and _punct(w[hi - 1]):
            hi -= 1
        if lo < hi:
            words.append(w[lo:hi].lower())
            starts.append(pending)
            pending = False
        i = j
    return words, starts


def mix(text: str, gold: List[int], star_parity: int) -> Tuple[str, List[int], List[Region]]:
    """`text` (paragraphs separated by blank lines) with the paragraphs whose index has
    `star_parity` turned into star text: the new text, its gold starts and its paragraphs."""
    golds = set(gold)
    out: List[str] = []
    new_gold: List[int] = []
    regions: List[Region] = []
    pos = offset = 0
    for k, para in enumerate(text.split("\n\n")):
        if k:
            out.append("\n\n")
            pos += 2
        start = pos
        star = k % 2 == star_parity
        if star:
            words, starts = star_words(para, offset, golds)
            for w, s in zip(words, starts):
                if pos > start:
                    out.append(" ")
                    pos += 1
                if s:
                    new_gold.append(pos)
                out.append(w)
                pos += len(w)
        else:
            new_gold += [pos + g - offset for g in gold if offset <= g < offset + len(para)]
            out.append(para)
            pos += len(para)
        regions.append((start, pos, star))
        offset += len(para) + 2
    return "".join(out), new_gold, regions


def region_counts(gold: List[int], pred: Set[int], regions: List[Region]) -> Dict[bool, List[int]]:
    """[tp, fp, fn] inside the star and the punctuated paragraphs, their first characters excluded."""
    out = {True: [0, 0, 0], False: [0, 0, 0]}
    for a, b, star in regions:
        g = {x for x in gold if a < x < b}
        p = {x for x in pred if a < x < b}
        out[star][0] += len(g & p)
        out[star][1] += len(p - g)
        out[star][2] += len(g - p)
    return out


def prf(tp: int, fp: int, fn: int) -> Dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"p": round(100 * p, 2), "r": round(100 * r, 2), "f": round(100 * 2 * p * r / (p + r), 2) if p + r else 0.0,
            "gold": tp + fn}


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline")) -> None:
    import spacy

    sets = treebank_documents(ud_dir, SETS)
    nlp = spacy.load(model)
    prior = nlp.get_pipe("boundary_prior")
    shipped = prior.paragraph_windows
    run = functools.partial(segment_starts, nlp)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "shipped": shipped, "sets": {}}
    for name, docs in sets.items():
        multi = [d for d in docs if "\n\n" in d.text]
        mixed = [mix(d.text, d.gold, parity) for d in multi for parity in (0, 1)]
        row = report["sets"][name] = {"documents": len(multi), "mixed_texts": len(mixed)}
        for setting in (False, True):
            prior.paragraph_windows = setting
            counts = {True: [0, 0, 0], False: [0, 0, 0]}
            for text, gold, regions in mixed:
                got = region_counts(gold, run(text), regions)
                for star in counts:
                    counts[star] = [a + b for a, b in zip(counts[star], got[star])]
            key = f"paragraph_windows={str(setting).lower()}"
            row[key] = {"star paragraphs": prf(*counts[True]), "punctuated paragraphs": prf(*counts[False])}
            for lay in LAYOUTS:
                row[key][f"unmixed, {lay}"] = score(docs, [layout(d.text, lay) for d in docs], run)
            for part, s in row[key].items():
                print(f"{name:8} {key:24} {part:22} P {s['p']:6.2f} R {s['r']:6.2f} F1 {s['f']:6.2f}", flush=True)
    prior.paragraph_windows = shipped
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
