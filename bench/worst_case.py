"""Time of `nlp(text)` on adversarial texts against ordinary prose of the same length.

Inputs of `--chars` characters each: `prose` (the committed EWT sample repeated), `quotes` (runs
of 1,000 `"` around "he said"), `parens` (half `(` then half `)`), `ruler` (`=` with a line break
every 10,000). Each runs once in this process after a warm-up; the figure of interest is the ratio
of each input's seconds to prose's (target: at most 10 at 1 MB).

    python bench/worst_case.py -m en_joint_sbd [--chars 1000000] [--json results/bench/worst_case.json]
"""
import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from api_memory import base_text, model_name, text_of  # noqa: E402


def inputs(base: str) -> Dict[str, Callable[[int], str]]:
    unit = '"' * 1000 + "he said" + '"' * 1000 + " "
    return {
        "prose": lambda n: text_of(base, n),
        "quotes": lambda n: (unit * (n // len(unit) + 1))[:n],
        "parens": lambda n: "(" * (n // 2) + ")" * (n - n // 2),
        "ruler": lambda n: (("=" * 9999 + "\n") * (n // 10000 + 1))[:n],
    }


def main(argv: Optional[List[str]] = None) -> int:
    import spacy

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-m", "--model", required=True, help="an installed pipeline or a pipeline folder")
    ap.add_argument("--chars", type=int, default=1_000_000, help="characters per input")
    ap.add_argument("--only", default=None, help="comma-separated input names (prose always runs)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    nlp = spacy.load(args.model)
    nlp.max_length = max(nlp.max_length, args.chars + 1)
    makers = inputs(base_text(None))
    names = ["prose"] + [n for n in makers if n != "prose" and (args.only is None or n in args.only.split(","))]
    nlp(makers["prose"](2000))  # warm-up
    rows = []
    for name in names:
        text = makers[name](args.chars)
        start = time.perf_counter()
        doc = nlp(text)
        seconds = time.perf_counter() - start
        rows.append({"input": name, "chars": len(text), "tokens": len(doc), "seconds": round(seconds, 2),
                     "ratio_to_prose": round(seconds / rows[0]["seconds"], 2) if rows else 1.0})
        print(f"{name:>7}: {len(text):,} chars, {len(doc):,} tokens, {seconds:.1f} s, "
              f"{rows[-1]['ratio_to_prose']:.2f} x prose", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"model": model_name(args.model), "machine": platform.machine(),
                                         "cpus": os.cpu_count(), "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
