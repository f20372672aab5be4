"""Publish `en_joint_sbd_trf`'s operating point: the choices `add_prior.py` made on dev (prior
weight, SB biases, the encoder's blends, where the parser's features come from) and the
cross-fitted calibration error of each dev set, as a small JSON beside the reliability diagram.

    python scripts/operating_point.py training/trf/report/metrics/prior.json training/trf/model-prior \
        results/trf_operating_point.json --curves training/trf/report/curves --png results/trf_calibration.png
"""
import argparse
import json
import shutil
from pathlib import Path

WHAT = ("en_joint_sbd_trf's operating point chosen on dev by add_prior.py (prior-trf): prior weight, SB biases, "
        "the encoder's blends and the parser's feature source, and the cross-fitted calibration error on dev")


def operating_point(metrics: dict, config: dict) -> dict:
    """The summary of `add_prior.py`'s metrics (`metrics`) and the saved pipeline's encoder settings
    (`config`: its `[components.encoder_boundaries]` block)."""
    sets = metrics.get("calibration", {}).get("sets", {})
    return {
        "what": WHAT,
        "chosen": metrics["chosen"],
        "blend": config.get("blend"),
        "blend_punctuated": config.get("blend_punctuated"),
        "parser_features": "own" if config.get("own_features") else "blend",
        "calibration_ece": {name: round(s["ece"], 4) for name, s in sets.items()},
        "tuning": metrics.get("tuning", []),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("metrics", type=Path, help="add_prior.py's --metrics JSON")
    ap.add_argument("pipeline", type=Path, help="the pipeline add_prior.py saved (its config.cfg is read)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--curves", type=Path, default=None, help="add_prior.py's --curves folder")
    ap.add_argument("--png", type=Path, default=None, help="where its calibration_reliability.png is copied")
    args = ap.parse_args()
    from spacy.util import load_config

    try:
        metrics = json.loads(args.metrics.read_text(encoding="utf8"))
        config = dict(load_config(args.pipeline / "config.cfg")["components"].get("encoder_boundaries", {}))
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"error: {e}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(operating_point(metrics, config), indent=1) + "\n", encoding="utf8")
    if args.curves is not None and args.png is not None:
        shutil.copyfile(args.curves / "calibration_reliability.png", args.png)
    print(f"wrote {args.out}" + (f" and {args.png}" if args.png is not None else ""))


if __name__ == "__main__":
    main()
