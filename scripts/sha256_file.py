"""Write `FILE.sha256` (sha256sum format) next to each FILE: what `spacy_joint_sbd download` checks.

    python scripts/sha256_file.py FILE_OR_FOLDER ...    (a folder: every *.whl below it)
"""
import hashlib
import sys
from pathlib import Path

for name in sys.argv[1:]:
    arg = Path(name)
    for path in sorted(arg.rglob("*.whl")) if arg.is_dir() else [arg]:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n")
        print(f"{digest}  {path}")
