"""Install a packaged pipeline wheel OUTSIDE this checkout and load it by name in a new process.

    python scripts/check_wheel.py WHEEL NAME [TEXT]

The wheel goes with `pip install --no-deps --target` into a temporary folder that a fresh Python
process puts first on its path; that process runs from the temporary folder (not from this
checkout), loads the pipeline with `spacy.load(NAME)` — which finds `joint_sbd_parser` through the
installed spacy_joint_sbd's entry points — and splits and parses TEXT. Exit code 1 if anything fails.
"""
import os
import subprocess
import sys
import tempfile

TEXT = "i saw the movie yesterday it was great we went home after that and had dinner"
CHECK = """
import sys, spacy
nlp = spacy.load(sys.argv[1])
assert "joint_sbd_parser" in nlp.pipe_names, nlp.pipe_names
doc = nlp(sys.argv[2])
assert doc.has_annotation("DEP") and doc.has_annotation("SENT_START")
print(f"{sys.argv[1]} {nlp.meta.get('version')}: loaded from {nlp.path}")
print("sentences:", [s.text for s in doc.sents])
print("heads:", [(t.text, t.dep_, t.head.text) for t in doc][:8], "...")
"""


def main(wheel: str, name: str, text: str = TEXT) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "site")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", target,
                        os.path.abspath(wheel)], check=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([target, os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run([sys.executable, "-c", CHECK, name, text], cwd=tmp, env=env)
        if proc.returncode:
            sys.exit(f"{wheel}: the installed pipeline {name!r} did not load or parse")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(*sys.argv[1:4])
