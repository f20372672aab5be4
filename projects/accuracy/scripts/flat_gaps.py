"""The flat-text target, from the text's side: how much does flat text (every line break a space)
still say about the boundaries that only a line break marked?

The boundaries flat text loses (`operating-points`: 34 on GUM dev at the shipped point) are
headings, datelines, bylines and list items: a word with no mark, then a capitalised word, with a
blank line between them in the document. Flattened, such a gap looks like `By plane The nearest
airport` or `writers Mark Twain`. This script counts, in the treebanks' raw documents (words joined
by their SpaceAfter, a blank line at each `# newpar`: `corpus.raw_text`, what `raw-documents`
reads), every *unmarked capitalised gap*: a whitespace gap whose word before ends in a letter or
digit and whose word after starts with a capital. Per set it reports how many there are, how many
start a gold sentence, how many of those the original layout marked with a line break (and how
many such gaps follow a line break at all), and how often such a gap starts a sentence by how many
words back the last `.`, `!` or `?` is (a heading follows a sentence end closely, so this is the
surface cue a flat-text model can read).

The rest of the lost boundaries follow a mark that ends no sentence by itself: list items after
`;` or `:`, a quoted proclamation after `:`, a line cut off by a dash. `mark_counts` counts every
gap between such a mark (`MID_MARKS`, the last character of the word before) and a capitalised word: how
many start a sentence, how many of those a line break marked, and how often such a gap with no
line break starts one, the rate a flat-text reader faces once the layout is gone.

No model is run: it says what any splitter reading flat text alone is up against. A splitter that
places every such boundary must also place the gaps of the same kind that start nothing.

    python scripts/flat_gaps.py ../../assets/ud results/full/flat_gaps.json
"""
import json
import re
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Tuple

import typer

from spacy_joint_sbd.corpus.raw_text import raw_documents

SETS = {"GUM train": "en_gum/train.conllu", "GUM dev": "en_gum/dev.conllu", "EWT dev": "en_ewt/dev.conllu"}
FINAL = re.compile(r"[.!?][\"'”’)\]]*$")
"""A word that ends a sentence by its mark (closing quotes and brackets after it allowed)."""
MID_MARKS = (";", ":", "—", "–", "-")
"""Marks that end no sentence by themselves but may close a line that does (list items, quoted
lines, a spoken line cut off)."""
MAX_BACK = 8
"""Words between the last sentence-final mark and the gap, binned 1 .. MAX_BACK, then 'more' (a
heading right after a sentence is 1 or 2 words long)."""


def gaps_to_capitals(texts: Iterable[tuple]) -> Iterator[Tuple[str, int, bool, bool]]:
    """Every whitespace gap before a capitalised word in (text, gold start offsets) pairs: the
    word before, the words since the last sentence-final mark (0 when the word before carries
    one), whether the gap starts a gold sentence, and whether a line break lies in it."""
    for text, gold in texts:
        gold = set(gold)
        words = [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
        back = MAX_BACK + 1
        for (prev_at, prev), (at, word) in zip(words, words[1:]):
            back = 0 if FINAL.search(prev) else back + 1
            if word[0].isupper():
                yield prev, back, at in gold, "\n" in text[prev_at + len(prev):at]


def gap_counts(texts: Iterable[tuple]) -> Dict:
    """Counts over (text, gold start offsets) pairs (module doc)."""
    gaps = starts = line_gaps = line_marked = 0
    by_back: Dict[str, List[int]] = {}
    for prev, back, starts_here, after_line_break in gaps_to_capitals(texts):
        if not prev[-1].isalnum():
            continue
        gaps += 1
        starts += starts_here
        line_gaps += after_line_break
        line_marked += starts_here and after_line_break
        key = str(back) if back <= MAX_BACK else "more"
        cell = by_back.setdefault(key, [0, 0])
        cell[0] += 1
        cell[1] += starts_here
    order = [str(k) for k in range(1, MAX_BACK + 1)] + ["more"]
    return {
        "unmarked_capitalised_gaps": gaps,
        "sentence_starts": starts,
        "gaps_after_a_line_break": line_gaps,
        "starts_after_a_line_break": line_marked,
        "start_rate": round(100 * starts / gaps, 2) if gaps else 0.0,
        "by_words_since_final_mark": {k: {"gaps": by_back[k][0], "starts": by_back[k][1],
                                          "start_rate": round(100 * by_back[k][1] / by_back[k][0], 2)}
                                      for k in order if k in by_back},
    }


def mark_counts(texts: Iterable[tuple]) -> Dict[str, Dict]:
    """Per mark of MID_MARKS: gaps from a word ending in the mark to a capitalised word, the
    sentence starts among them, how many of each follow a line break, and the start rate of the
    gaps without one (module doc)."""
    cells = {mark: [0, 0, 0, 0] for mark in MID_MARKS}  # gaps, starts, line gaps, line starts
    for prev, _, starts_here, after_line_break in gaps_to_capitals(texts):
        cell = cells.get(prev[-1])
        if cell is None:
            continue
        cell[0] += 1
        cell[1] += starts_here
        cell[2] += after_line_break
        cell[3] += starts_here and after_line_break
    report = {}
    for mark, (gaps, starts, line_gaps, line_starts) in cells.items():
        if not gaps:
            continue
        inline = gaps - line_gaps
        report[mark] = {"gaps": gaps, "sentence_starts": starts, "gaps_after_a_line_break": line_gaps,
                        "starts_after_a_line_break": line_starts,
                        "start_rate_without_line_break": round(100 * (starts - line_starts) / inline, 2)
                        if inline else 0.0,
                        "start_rate": round(100 * starts / gaps, 2)}
    return report


def main(ud_dir: Path, output: Path) -> None:
    report: Dict = {"definition": "whitespace gap, word before ends in a letter or digit, word after starts "
                                  "with a capital; rates in percent; marked_capitalised_gaps: the same "
                                  "after a word ending in ; : or a dash", "sets": {}}
    for name, rel in SETS.items():
        path = ud_dir / rel
        if not path.exists():
            print(f"{name}: {path} not found, skipped")
            continue
        docs = [(d.text, d.gold[1:]) for d in raw_documents(path) if d.text.strip()]
        counts = gap_counts(docs)
        counts["marked_capitalised_gaps"] = mark_counts(docs)
        report["sets"][name] = counts
        print(f"{name:9}  {counts['unmarked_capitalised_gaps']:6,} gaps, {counts['sentence_starts']:4} start a "
              f"sentence ({counts['start_rate']:.1f}%), {counts['starts_after_a_line_break']} of them after a line break "
              f"(of {counts['gaps_after_a_line_break']} such gaps after one)")
        print("           by words since . ! ?: " + ", ".join(
            f"{k} {v['start_rate']:.1f}% of {v['gaps']}" for k, v in counts["by_words_since_final_mark"].items()))
        print("           after ; : and dashes: " + ", ".join(
            f"{m} {v['sentence_starts']} of {v['gaps']} ({v['starts_after_a_line_break']} after a line break; "
            f"{v['start_rate_without_line_break']:.0f}% without)" for m, v in counts["marked_capitalised_gaps"].items()))
    if not report["sets"]:
        raise SystemExit(f"no treebank of {list(SETS.values())} under {ud_dir} (run the root project's `data`)")
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    typer.run(main)
