"""The three raw-text targets on GUM dev at every operating point of one pipeline: is there a setting
that meets them together?

The targets (raw text through `segment`, `raw_documents.py`'s rebuilding and layouts): paragraphs
F1 ≥ 98.0 and precision ≥ 98.5, and flat (every line break a space) no more than 1.0 below the
paragraphs' F1. The joint parser's two prediction settings that move boundaries in punctuated text
are swept on a grid: `sb_bias` (the punctuated regime's SB bias, which the main job chooses on EWT
dev) as shifts from the shipped value, and `sb_bias_unmarked` (where no `.`, `!`, `?` or line
break precedes). Each point splits GUM dev (the set that reports the targets) and EWT dev (the
set that chooses the default's settings) as paragraphs and flat; the JSON gets P / R / F1 per
point and layout, which targets each point meets, and the best flat F1 reached; the PNG plots
flat F1 against paragraphs F1 per point, with the region where the targets hold.

Nothing is chosen here: the shipped settings stay as the main job chose them on EWT dev.

    python scripts/operating_points.py ../../assets/ud results/full/operating_points.json
"""
import functools
import json
from pathlib import Path
from typing import Dict, List, Optional

import typer
from raw_documents import layout, score, segment_starts, set_summary, treebank_documents

SETS = {"GUM dev": "en_gum/dev.conllu", "EWT dev": "en_ewt/dev.conllu"}
LAYOUTS = ("paragraphs", "flat")
TARGET_F1, TARGET_P, TARGET_FLAT_GAP = 98.0, 98.5, 1.0


def meets(point: Dict) -> Dict[str, bool]:
    """Which of the raw-text targets on GUM dev one operating point's scores meet."""
    para, flat = point["paragraphs"], point["flat"]
    return {"f1": para["f"] >= TARGET_F1, "precision": para["p"] >= TARGET_P,
            "flat_gap": para["f"] - flat["f"] <= TARGET_FLAT_GAP}


def plot(points: List[Dict], shipped: Optional[Dict], path: Path) -> None:
    """Flat F1 against paragraphs F1 on GUM dev, one marker per point, the targets' region shaded and
    the shipped settings (None: not on the grid) circled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.8))
    xs = [p["GUM dev"]["paragraphs"]["f"] for p in points]
    ys = [p["GUM dev"]["flat"]["f"] for p in points]
    lo_x, hi_x = min(xs + [TARGET_F1]) - 0.3, max(xs + [TARGET_F1]) + 0.3
    lo_y, hi_y = min(ys + [TARGET_F1 - TARGET_FLAT_GAP]) - 0.3, max(ys + [hi_x - TARGET_FLAT_GAP]) + 0.3
    region_x = [TARGET_F1, hi_x, hi_x, TARGET_F1]
    region_y = [TARGET_F1 - TARGET_FLAT_GAP, hi_x - TARGET_FLAT_GAP, hi_y, hi_y]
    ax.fill(region_x, region_y, color="tab:green", alpha=0.15,
            label=f"paragraphs F1 ≥ {TARGET_F1}, flat within {TARGET_FLAT_GAP}")
    unmarked = sorted({p["sb_bias_unmarked"] for p in points})
    markers = "osD^v<>"
    for k, u in enumerate(unmarked):
        sel = [p for p in points if p["sb_bias_unmarked"] == u]
        sc = ax.scatter([p["GUM dev"]["paragraphs"]["f"] for p in sel], [p["GUM dev"]["flat"]["f"] for p in sel],
                        c=[p["sb_bias"] for p in sel], cmap="viridis", marker=markers[k % len(markers)],
                        vmin=min(p["sb_bias"] for p in points), vmax=max(p["sb_bias"] for p in points),
                        edgecolors=["red" if p["GUM dev"]["meets"]["precision"] else "none" for p in sel],
                        label=f"sb_bias_unmarked {u:g}")
    if shipped is not None:
        ax.scatter([shipped["paragraphs"]["f"]], [shipped["flat"]["f"]], s=160, facecolors="none",
                   edgecolors="black", label="shipped settings")
    fig.colorbar(sc, ax=ax, label="sb_bias")
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(lo_y, hi_y)
    ax.set_xlabel("GUM dev as paragraphs: boundary F1")
    ax.set_ylabel("GUM dev flat: boundary F1")
    ax.set_title(f"Operating points against the raw-text targets (red edge: precision ≥ {TARGET_P})")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(ud_dir: Path, output: Path, model: str = typer.Option("en_joint_sbd", help="the joint pipeline"),
         shifts: str = typer.Option("-0.6,-0.3,0,0.3,0.6", help="sb_bias shifts from the shipped value"),
         unmarked: str = typer.Option("0,-0.25,-0.5,-1", help="sb_bias_unmarked values")) -> None:
    import spacy

    sets = treebank_documents(ud_dir, SETS)
    nlp = spacy.load(model)
    parser = nlp.get_pipe("joint_sbd_parser")
    original = (parser.sb_bias, parser.sb_bias_unmarked)
    shipped = {"sb_bias": round(original[0], 4), "sb_bias_unmarked": round(original[1], 4)}
    joint = functools.partial(segment_starts, nlp)
    texts = {name: {lay: [layout(d.text, lay) for d in docs] for lay in LAYOUTS} for name, docs in sets.items()}
    points: List[Dict] = []
    for shift in [float(x) for x in shifts.split(",") if x.strip()]:
        for u in [float(x) for x in unmarked.split(",") if x.strip()]:
            parser.sb_bias = round(shipped["sb_bias"] + shift, 4)
            parser.sb_bias_unmarked = round(u, 4)
            point: Dict = {"sb_bias": parser.sb_bias, "sb_bias_unmarked": parser.sb_bias_unmarked}
            for name, docs in sets.items():
                point[name] = {lay: score(docs, texts[name][lay], joint) for lay in LAYOUTS}
            if "GUM dev" in point:
                point["GUM dev"]["meets"] = meets(point["GUM dev"])
            points.append(point)
            print(f"sb_bias {point['sb_bias']:5.2f} sb_bias_unmarked {u:5.2f}  " + "  ".join(
                f"{name} {lay} {point[name][lay]['p']:.2f}/{point[name][lay]['r']:.2f}/{point[name][lay]['f']:.2f}"
                for name in sets for lay in LAYOUTS), flush=True)
    parser.sb_bias, parser.sb_bias_unmarked = original
    report: Dict = {"model": Path(model).name if Path(model).exists() else model, "shipped": shipped,
                    "targets": {"f1": TARGET_F1, "precision": TARGET_P, "flat_gap": TARGET_FLAT_GAP},
                    "sets": {name: set_summary(docs) for name, docs in sets.items()}, "points": points}
    output.parent.mkdir(parents=True, exist_ok=True)
    if "GUM dev" in sets:
        gum = [p["GUM dev"] for p in points]
        report["all_three_met_at"] = [{k: p[k] for k in ("sb_bias", "sb_bias_unmarked")} for p in points
                                      if all(p["GUM dev"]["meets"].values())]
        report["best_flat_f1"] = max(g["flat"]["f"] for g in gum)
        report["best_paragraphs_f1"] = max(g["paragraphs"]["f"] for g in gum)
        at_shipped = next((p for p in points if p["sb_bias"] == shipped["sb_bias"]
                          and p["sb_bias_unmarked"] == shipped["sb_bias_unmarked"]), None)
        plot(points, at_shipped["GUM dev"] if at_shipped else None, output.with_suffix(".png"))
    output.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    typer.run(main)
