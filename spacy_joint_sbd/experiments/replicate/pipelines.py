"""Table 4: LAS on test for different sentence boundaries.

The GOLD sentence-level parser parses each test document inside the boundaries given by gold
(GOLD), spaCy's senter (the paper's MARMOT), NOSYNTAX and JOINT (JOINT-REPARSED); the JOINT row is
the joint parser's own trees. Boundaries other than GOLD's are predicted from the tokens alone.
"""
from pathlib import Path
from typing import Dict

import srsly

from ...transition import TransitionParser
from .data import load_tagged
from .settings import SETTINGS
from .systems import reparse

ROWS = ("gold", "senter", "nosyntax", "joint", "joint-reparsed")


def run_pipelines(setting: str, tagged_path: Path, metrics_dir: Path, models_dir: Path, beam_width: int) -> Dict:
    tagged = load_tagged(tagged_path)
    systems = {name: srsly.read_json(metrics_dir / f"{name}.json") for name in ("joint", "nosyntax", "gold")}
    parser = TransitionParser.from_disk(models_dir / "gold")
    out: Dict = {"setting": setting, "parser": "gold", "beam": beam_width, "tests": {}}
    for split in SETTINGS[setting].tests:
        golds = tagged["records"][split]
        rows: Dict[str, Dict] = {}
        rows["gold"] = {k: v for k, v in systems["gold"]["tests"][split].items() if k != "starts"}
        rows["senter"] = reparse(parser, golds, tagged["starts"]["senter"][split], beam_width)
        rows["nosyntax"] = reparse(parser, golds, systems["nosyntax"]["tests"][split]["starts"], beam_width)
        rows["joint"] = {k: v for k, v in systems["joint"]["tests"][split].items() if k != "starts"}
        rows["joint-reparsed"] = reparse(parser, golds, systems["joint"]["tests"][split]["starts"], beam_width)
        out["tests"][split] = rows
        print(f"{setting} {split} LAS: " + ", ".join(f"{name} {100 * rows[name]['dep_las']:.2f}" for name in ROWS))
    return out
