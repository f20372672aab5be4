"""Table 4: LAS on test for different sentence boundaries.

The GOLD sentence-level parser (the component with `document_level=False`, loaded from its saved
pipeline) parses each test document inside the boundaries given by gold (GOLD), spaCy's senter (the
paper's MARMOT), NOSYNTAX and JOINT (JOINT-REPARSED); the JOINT row is the joint parser's own trees.
Boundaries other than GOLD's are predicted from the tokens alone.
"""
from pathlib import Path
from typing import Dict

import srsly

from .data import load_tagged
from .settings import SETTINGS
from .systems import COMPONENT, reparse

ROWS = ("gold", "senter", "nosyntax", "joint", "joint-reparsed")


def run_pipelines(setting: str, tagged_path: Path, metrics_dir: Path, models_dir: Path) -> Dict:
    import spacy

    tagged = load_tagged(tagged_path)
    systems = {name: srsly.read_json(metrics_dir / f"{name}.json") for name in ("joint", "nosyntax", "gold")}
    nlp = spacy.load(models_dir / "gold")
    out: Dict = {"setting": setting, "parser": "gold", "beam": nlp.get_pipe(COMPONENT).cfg["beam_width"],
                 "tests": {}}
    for split in SETTINGS[setting].tests:
        golds = tagged["records"][split]
        rows: Dict[str, Dict] = {}
        rows["gold"] = {k: v for k, v in systems["gold"]["tests"][split].items() if k != "starts"}
        rows["senter"] = reparse(nlp, golds, tagged["starts"]["senter"][split])
        rows["nosyntax"] = reparse(nlp, golds, systems["nosyntax"]["tests"][split]["starts"])
        rows["joint"] = {k: v for k, v in systems["joint"]["tests"][split].items() if k != "starts"}
        rows["joint-reparsed"] = reparse(nlp, golds, systems["joint"]["tests"][split]["starts"])
        out["tests"][split] = rows
        print(f"{setting} {split} LAS: " + ", ".join(f"{name} {100 * rows[name]['dep_las']:.2f}" for name in ROWS))
    return out
