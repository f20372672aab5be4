"""An exported encoder directory → the encoder that ships with the repository (`weights/`).

    python scripts/ship.py training/RUN/encoder_WORDS weights --command "python -m spacy project run ..."

Copies the int8 graph and the tokenizer (never the float32 graph), checks both against the card's
sha256, and writes the card with the command that trained it added. A shipped graph is a large
blob in git history: ship rarely. Refuses a graph over `--max-mb` (30).
"""
import argparse
import json
import sys
from pathlib import Path

from spacy_joint_sbd.encoder.files import CARD, GRAPH, TOKENIZER, EncoderFiles


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("encoder", type=Path, help="an exported encoder directory (export)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--command", required=True, help="the commands that trained and exported it, for the card")
    ap.add_argument("--max-mb", type=float, default=30.0)
    args = ap.parse_args()
    try:
        files = EncoderFiles.from_disk(args.encoder)
    except ValueError as e:
        sys.exit(f"error: {e}")
    mb = len(files.graph) / 2 ** 20
    if mb > args.max_mb:
        sys.exit(f"error: {args.encoder / GRAPH} is {mb:.1f} MB, over --max-mb {args.max_mb:g}")
    card = {k: v for k, v in files.card.items() if k != "sha256"}
    card["command"] = args.command
    EncoderFiles(files.graph, files.tokenizer, card).to_disk(args.out)
    shipped = json.loads((args.out / CARD).read_text(encoding="utf8"))["sha256"]
    print(f"{args.out}: {GRAPH} {mb:.1f} MB sha256 {shipped[GRAPH]}, {TOKENIZER}, {CARD}")


if __name__ == "__main__":
    main()
