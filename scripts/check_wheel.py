"""Install a packaged pipeline wheel OUTSIDE this checkout and load it by name in a new process.

    python scripts/check_wheel.py WHEEL [NAME] [--text TEXT] [--fresh-venv]

WHEEL is a wheel file or a folder holding exactly one (what `spacy package DIR --build wheel` writes
below DIR); NAME defaults to the wheel's distribution name (what `spacy.load` takes).

By default the wheel goes with `pip install --no-deps --target` into a temporary folder that a fresh
Python process puts first on its path (fast: the plugin and spaCy come from the running environment).
With --fresh-venv it is what a user does on a clean machine: a new virtualenv in a temporary folder,
`pip install` of this project (built from source, not editable) and of the wheel with its declared
requirements, nothing else. Either way the check runs from the temporary folder (not from this
checkout), loads the pipeline with `spacy.load(NAME)` — which finds `joint_sbd_parser` through the
installed spacy_joint_sbd's entry points — and splits and parses TEXT. Exit code 1 if anything fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TEXT = "i saw the movie yesterday it was great we went home after that and had dinner"
ROOT = Path(__file__).resolve().parent.parent
CHECK = """
import sys, spacy, spacy_joint_sbd
nlp = spacy.load(sys.argv[1])
assert "joint_sbd_parser" in nlp.pipe_names, nlp.pipe_names
# in a fresh virtualenv the plugin must come from that virtualenv's own install, never from this checkout
assert not sys.argv[3] or spacy_joint_sbd.__file__.startswith(sys.argv[3]), spacy_joint_sbd.__file__
doc = nlp(sys.argv[2])
assert doc.has_annotation("DEP") and doc.has_annotation("SENT_START")
print(f"{sys.argv[1]} {nlp.meta.get('version')}: loaded from {nlp.path}")
print(f"python {sys.executable}; spacy {spacy.__version__}; spacy_joint_sbd from {spacy_joint_sbd.__file__}")
print("sentences:", [s.text for s in doc.sents])
print("heads:", [(t.text, t.dep_, t.head.text) for t in doc][:8], "...")
"""


def _pip(python: str, *args: str) -> None:
    subprocess.run([python, "-m", "pip", "install", "--quiet", *args], check=True)


def find_wheel(path: str) -> Path:
    """`path` if it is a file, else the one `*.whl` below the folder `path`."""
    if Path(path).is_file():
        return Path(path)
    wheels = sorted(Path(path).rglob("*.whl"))
    if len(wheels) != 1:
        sys.exit(f"{path}: expected one wheel below it, found {len(wheels)}: {[str(w) for w in wheels]}")
    return wheels[0]


def main(wheel: str, name: str = "", text: str = TEXT, fresh_venv: bool = False) -> None:
    found = find_wheel(wheel)
    name = name or found.name.split("-", 1)[0]
    wheel = os.path.abspath(found)
    with tempfile.TemporaryDirectory() as tmp:
        if fresh_venv:
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            python = os.path.join(venv, "bin", "python")
            _pip(python, str(ROOT), wheel)
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        else:
            target = os.path.join(tmp, "site")
            _pip(sys.executable, "--no-deps", "--target", target, wheel)
            python, venv = sys.executable, ""
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([target, os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run([python, "-c", CHECK, name, text, venv], cwd=tmp, env=env)
        if proc.returncode:
            sys.exit(f"{wheel}: the installed pipeline {name!r} did not load or parse")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheel")
    parser.add_argument("name", nargs="?", default="")
    parser.add_argument("--text", default=TEXT)
    parser.add_argument("--fresh-venv", action="store_true",
                        help="install this project and the wheel into a new virtualenv (builds from source)")
    args = parser.parse_args()
    main(args.wheel, args.name, args.text, args.fresh_venv)
