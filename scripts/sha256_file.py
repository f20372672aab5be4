"""Write `FILE.sha256` (sha256sum format) next to each FILE: what `spacy_joint_sbd download` checks."""
import hashlib
import sys
from pathlib import Path

for name in sys.argv[1:]:
    path = Path(name)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n")
    print(f"{digest}  {path}")
