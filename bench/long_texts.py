"""`segment` against `nlp(text)` on long texts that no window holds a sentence of: the sentences
(they should be the same) and the time of each, as a ratio.

Cases, made here: `word` (one word repeated, `--mb` MB) and `nows` (`--nows-chars` characters
without whitespace). Each side runs in a fresh child process that loads the pipeline, then times
its work alone: `segment_files` on the file as the `segment` command calls it (`-f jsonl`), and
`nlp(text)` on the file's text (a fresh process each: the tokenizer's cache would favour the second).

    python bench/long_texts.py -m MODEL [--mb 1] [--nows-chars 200000] [--json OUT]
"""
import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple


CHILD = """
import json, sys, time, io, spacy
from spacy_joint_sbd.segment import segment_text
from spacy_joint_sbd.textio import segment_files
nlp = spacy.load(sys.argv[1])
path, side = sys.argv[2], sys.argv[3]
start = time.perf_counter()
if side == "api":
    spans = [(s.start_char, s.end_char) for s in segment_text(nlp, open(path, encoding="utf-8", newline="").read())]
else:
    out = io.StringIO()
    segment_files(nlp, [path], out, fmt="jsonl", progress=False)
    spans = [(r["start_char"], r["end_char"]) for r in map(json.loads, out.getvalue().splitlines())]
print(json.dumps({"seconds": time.perf_counter() - start, "spans": spans}))
"""


def timed(model: str, path: Path, side: str) -> Tuple[List[Tuple[int, int]], float]:
    """(sentence spans, seconds of work after the pipeline's load) of one side in a fresh process."""
    out = subprocess.run([sys.executable, "-c", CHILD, model, str(path), side], check=True, capture_output=True,
                         text=True).stdout
    row = json.loads(out.splitlines()[-1])
    return [tuple(s) for s in row["spans"]], row["seconds"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", required=True)
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--nows-chars", type=int, default=200_000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    cases = {"word": "word " * int(args.mb * 1_000_000 / 5), "nows": "abcdefghij" * (args.nows_chars // 10)}
    rows: Dict[str, Dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in cases.items():
            path = Path(tmp) / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            api, api_s = timed(args.model, path, "api")
            cli, cli_s = timed(args.model, path, "segment")
            rows[name] = {"chars": len(text), "api_sentences": len(api), "cli_sentences": len(cli),
                          "same": api == cli, "api_s": round(api_s, 2), "cli_s": round(cli_s, 2),
                          "cli_over_api": round(cli_s / api_s, 2)}
            print(f"{name}: {len(text):,} chars; nlp(text) {len(api)} sentences in {api_s:.1f} s, segment "
                  f"{len(cli)} in {cli_s:.1f} s ({cli_s / api_s:.2f}x); {'the same' if api == cli else 'DIFFERENT'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": platform.platform(), "model": args.model, "cases": rows},
                                        indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
