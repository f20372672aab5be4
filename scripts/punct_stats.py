"""`stats` (punctuation statistics) of each treebank split the project reports, one file each.

    python scripts/punct_stats.py assets/ud results/stats
"""
import subprocess
import sys
from pathlib import Path

SPLITS = ["en_ewt/train", "en_ewt/dev", "en_ewt/test", "en_gum/train", "en_gum/dev", "zh_gsdsimp/dev", "zh_gsdsimp/test"]


def main() -> None:
    ud, out = Path(sys.argv[1]), Path(sys.argv[2])
    for split in SPLITS:
        name = split.replace("/", "-")
        subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "stats", str(ud / f"{split}.conllu"),
                        "--output", str(out / f"{name}.txt")], check=True)


if __name__ == "__main__":
    main()
