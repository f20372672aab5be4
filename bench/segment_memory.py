"""Peak resident memory of `segment`, per output format, on a large file and on pathological ones.

Runs `python -m spacy_joint_sbd segment MODEL FILE --format F -o OUT` as a child process for each
format (lines, jsonl, conllu) on each generated input, and reads the child's peak RSS
(`resource.getrusage(RUSAGE_CHILDREN)`, one child at a time). Inputs, made in a temporary folder:
`prose` (sentences from the committed EWT sample, repeated to `--mb` MB), and 1 MB each of `quotes`
(runs of `"` around "he said"), `parens` (150,000 `(` then 150,000 `)`) and `equals` (all `=`).
Memory should not grow with the size of the input in any format (streamed in windows).

    python bench/segment_memory.py -m MODEL --mb 8 [--json results/bench/segment_memory.json]
"""
import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("lines", "jsonl", "conllu")
MB = 1_000_000


def prose(mb: float) -> str:
    sys.path.insert(0, str(ROOT / "tests"))
    from spacy_joint_sbd.corpus import read_conllu
    from treebanks import SAMPLE

    text = "\n\n".join(" ".join(r.words) for r in read_conllu(SAMPLE))
    return (text * (int(mb * MB) // len(text) + 1))[:int(mb * MB)]


def inputs(names: List[str], mb: float, folder: Path) -> Dict[str, Path]:
    """The generated inputs by name (each written to `folder`)."""
    quote = '"' * 40 + " he said " + '"' * 40 + " "
    make = {"prose": lambda: prose(mb), "quotes": lambda: (quote * (MB // len(quote) + 1))[:MB],
            "parens": lambda: "(" * 150_000 + ")" * 150_000, "equals": lambda: "=" * MB}
    paths = {}
    for name in names:
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text(make[name](), encoding="utf-8")
    return paths


def peak_mb(cmd: List[str], timeout: float) -> Tuple[float, bool]:
    """(peak RSS of the child running `cmd` in MB, whether it was stopped after `timeout` seconds).
    ru_maxrss is the largest of the children so far: each measurement runs in a fresh child of its
    own (see `main`)."""
    try:
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1000, timed_out  # kB on Linux


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", default="en_joint_sbd", help="pipeline directory or package")
    ap.add_argument("--mb", type=float, default=8.0, help="size of the prose input in MB")
    ap.add_argument("--inputs", default="prose,quotes,parens,equals", help="which inputs, comma-separated")
    ap.add_argument("--formats", default=",".join(FORMATS), help="which formats, comma-separated")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows here")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take (then stopped, marked)")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one run in this child
    args = ap.parse_args()
    if args.one:
        print(json.dumps(peak_mb(json.loads(args.one), args.timeout)))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in inputs(args.inputs.split(","), args.mb, Path(tmp)).items():
            for fmt in args.formats.split(","):
                cmd = [sys.executable, "-m", "spacy_joint_sbd", "segment", args.model, str(path), "--format", fmt,
                       "-o", str(Path(tmp) / f"out.{fmt}"), "--overwrite"]
                start = time.perf_counter()
                # a fresh measuring process per run, so ru_maxrss holds this run's peak only
                out = subprocess.run([sys.executable, __file__, "--one", json.dumps(cmd), "--timeout",
                                      str(args.timeout)], check=True, capture_output=True, text=True).stdout
                peak, timed_out = json.loads(out)
                row = {"input": name, "mb": round(path.stat().st_size / MB, 2), "format": fmt,
                       "peak_rss_mb": round(peak, 1), "seconds": round(time.perf_counter() - start, 1),
                       "timed_out": timed_out}
                rows.append(row)
                print(f"{name:7s} {row['mb']:6.2f} MB  {fmt:6s}  peak {row['peak_rss_mb']:8.1f} MB  "
                      f"{row['seconds']:6.1f} s" + ("  (stopped: too slow)" if timed_out else ""), flush=True)
    result = {"model": Path(args.model).name, "python": platform.python_version(), "machine": platform.machine(),
              "rows": rows}
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
