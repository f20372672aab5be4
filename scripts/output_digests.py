"""Digests of everything a pipeline outputs on fixed inputs, to prove a refactoring changed nothing.

    python scripts/output_digests.py train MODEL_DIR            # a small pipeline from tests/fixtures
    python scripts/output_digests.py digest MODEL_DIR -o before.json
    python scripts/output_digests.py digest MODEL_DIR -o after.json --compare before.json

`train` builds a small pipeline deterministically from the committed EWT sample (boundary_prior →
perceptron_tagger → joint_sbd_parser with prior weight and a calibration fitted on held-out
documents), so that the calibration, the prior's SB scores and the tagger's tags are all on
the path; it prints digests of the trained weights and settings, so training can be compared too.

`digest` runs MODEL (a directory or an installed package such as en_joint_sbd or
en_joint_sbd_trf) over the raw text of the documents of tests/fixtures and, where the data is
present, of EWT dev ($SJS_DATA or ../shared/data/ud): through the Python API (sentence offsets,
every token's `sent_start_prob` to the last bit, heads and labels) and through every output format
of `segment` (lines, jsonl, jsonl --with-parse, conllu, html; and on the fixtures with --threshold,
--max-length, --sb-bias-unmarked, --newlines and streamed windows). Each output is reduced to a
SHA-256; `--compare` names every digest that differs and exits 1.
"""
import argparse
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "en_ewt-sample.conllu"
SEGMENT_RUNS: Dict[str, List[str]] = {
    "lines": ["--format", "lines"],
    "jsonl": ["--format", "jsonl"],
    "jsonl_parse": ["--format", "jsonl", "--with-parse"],
    "conllu": ["--format", "conllu"],
    "html": ["--format", "html"],
}
"""`segment` runs over every input set."""
FIXTURE_ONLY_RUNS: Dict[str, List[str]] = {
    "threshold": ["--format", "jsonl", "--with-parse", "--threshold", "0.8"],
    "max_length": ["--format", "jsonl", "--with-parse", "--max-length", "120"],
    "unmarked": ["--format", "jsonl", "--with-parse", "--sb-bias-unmarked", "-0.5"],
    "newlines_paragraph": ["--format", "jsonl", "--newlines", "paragraph"],
    "newlines_line": ["--format", "jsonl", "--newlines", "line"],
    "windows": ["--format", "conllu", "--window-chars", "400"],
}
"""`segment` options that change prediction, run on the fixtures only (seconds each)."""
DISPLACY_ID = re.compile(rb"\b[0-9a-f]{32}\b")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def ud_dir() -> Path:
    return Path(os.environ.get("SJS_DATA", ROOT.parent / "shared" / "data" / "ud"))


def input_sets() -> Dict[str, Path]:
    """Input set → its CoNLL-U; `fixtures_layout` is the fixtures' text with a line per sentence
    and a blank line after every third (what `--newlines` and the layout features read)."""
    sets = {"fixtures": FIXTURE, "fixtures_layout": FIXTURE}
    dev = ud_dir() / "en_ewt" / "en_ewt-ud-dev.conllu"
    if not dev.exists():
        dev = ud_dir() / "en_ewt" / "dev.conllu"
    if dev.exists():
        sets["ewt_dev"] = dev
    return sets


def raw_texts(conllu: Path, layout: bool = False) -> List[Tuple[str, str]]:
    """(document id, raw text) of each whole document of a CoNLL-U file, as its tokens and spaces
    spell it (what a user's text file would hold); `layout`: a line per gold sentence, a blank
    line after every third."""
    import spacy

    from spacy_joint_sbd.corpus import read_conllu
    from spacy_joint_sbd.corpus.docs import record_to_doc

    vocab = spacy.blank("en").vocab
    out = []
    for i, rec in enumerate(read_conllu(conllu)):
        doc = record_to_doc(vocab, rec, annotations=layout)
        if layout:
            sents = [s.text.strip() for s in doc.sents]
            text = "".join(s + ("\n\n" if k % 3 == 2 else "\n") for k, s in enumerate(sents))
        else:
            text = doc.text
        out.append((f"doc{i:04d}", text))
    return out


def api_digest(nlp, texts: List[str]) -> Dict[str, str]:
    """Digests of sentences (character offsets), probabilities (the float64 bits) and trees."""
    sents, probs, trees = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for doc in nlp.pipe(texts, batch_size=8):
        sents.update(json.dumps([(s.start_char, s.end_char) for s in doc.sents]).encode())
        ps = [t._.sent_start_prob if t.has_extension("sent_start_prob") else None for t in doc]
        probs.update(b"".join(b"N" if p is None else struct.pack("<d", p) for p in ps))
        trees.update(json.dumps([(t.i, t.head.i, t.dep_, t.tag_) for t in doc]).encode())
    return {"sentences": sents.hexdigest(), "probabilities": probs.hexdigest(), "trees": trees.hexdigest()}


def segment_digest(model: str, folder: Path, options: List[str], out: Path) -> str:
    """The digest of `segment`'s output on the files of `folder`, named relative to its parent
    (the outputs name their sources: the digest must not depend on where the folder is)."""
    model = str(Path(model).resolve()) if Path(model).exists() else model
    cmd = [sys.executable, "-m", "spacy_joint_sbd", "segment", model, folder.name, "-o", str(out), "--overwrite",
           *options]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=folder.parent)
    if run.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd)} exited {run.returncode}: {run.stderr.strip()[-500:]}")
    data = out.read_bytes()
    if "html" in options:  # displaCy names each tree by a random uuid4: number them in order instead
        ids: Dict[bytes, bytes] = {}
        data = DISPLACY_ID.sub(lambda m: ids.setdefault(m.group(0), b"id%d" % len(ids)), data)
    return sha(data)


def digest(model: str) -> Dict[str, str]:
    import spacy

    nlp = spacy.load(model)
    result: Dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, path in input_sets().items():
            docs = raw_texts(path, layout=set_name.endswith("_layout"))
            folder = Path(tmp) / set_name
            folder.mkdir()
            for doc_id, text in docs:
                (folder / f"{doc_id}.txt").write_bytes(text.encode("utf8"))
            for key, value in api_digest(nlp, [t for _, t in docs]).items():
                result[f"{set_name}/api/{key}"] = value
            runs = dict(SEGMENT_RUNS, **(FIXTURE_ONLY_RUNS if set_name.startswith("fixtures") else {}))
            for run_name, options in runs.items():
                result[f"{set_name}/segment/{run_name}"] = segment_digest(model, folder, options,
                                                                          Path(tmp) / f"{set_name}-{run_name}.out")
            print(f"{set_name}: {len(docs)} documents", file=sys.stderr)
    return result


def train(model_dir: Path) -> Dict[str, str]:
    import numpy
    import spacy

    from spacy_joint_sbd.corpus.readers import create_document_corpus
    from spacy_joint_sbd.pipeline.joint import calibration

    nlp = spacy.blank("en")
    examples = list(create_document_corpus(str(FIXTURE))(nlp))
    train_egs, held_out = examples[:22], examples[22:]
    nlp.add_pipe("boundary_prior")
    nlp.add_pipe("perceptron_tagger")
    nlp.add_pipe("joint_sbd_parser", config={"beam_width": 4, "prior_weight": 0.5,
                                             "attrs": ["NORM", "SHAPE", "PREFIX", "SUFFIX", "TAG"]})
    nlp.initialize(lambda: train_egs)
    for _ in range(3):
        for i in range(0, len(train_egs), 8):
            nlp.update(train_egs[i:i + 8], annotates=["boundary_prior", "perceptron_tagger"])
    rows = calibration.collect(nlp, [eg.reference for eg in held_out])
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = calibration.fit_regimes(rows)
    nlp.to_disk(model_dir)
    parser = nlp.get_pipe("joint_sbd_parser")
    W = numpy.ascontiguousarray(parser.parser.weights.averaged())
    return {"train/parser_weights": sha(W.tobytes()),
            "train/parser_cfg": sha(json.dumps(parser.cfg, sort_keys=True, default=str).encode()),
            "train/pipeline_bytes": sha(b"".join(nlp.get_pipe(n).to_bytes() for n in nlp.pipe_names))}


def compare(now: Dict[str, str], before: Dict[str, str]) -> int:
    keys = sorted(set(now) | set(before))
    differ = [k for k in keys if now.get(k) != before.get(k)]
    for k in keys:
        print(f"{'same' if k not in differ else 'DIFF'}  {k}")
    print(f"{len(keys) - len(differ)} of {len(keys)} digests the same")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("train", "digest"))
    ap.add_argument("model", help="train: the directory to write; digest: a directory or package name")
    ap.add_argument("-o", "--output", type=Path, help="write the digests here (JSON)")
    ap.add_argument("--compare", type=Path, help="digests written before: name every difference, exit 1 on any")
    args = ap.parse_args()
    result = train(Path(args.model)) if args.action == "train" else digest(args.model)
    if args.output:
        args.output.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf8")
    if args.compare:
        return compare(result, json.loads(args.compare.read_text(encoding="utf8")))
    print(json.dumps(result, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
