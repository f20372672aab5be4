"""`results/<run>/RESULTS.md` and the figures beside it, generated from `metrics/<run>/**.json` only.

Every number in the report comes from a metrics file written by the other steps; the paper's own
numbers (bjorkelund2016 Tables 2-4) are printed beside ours for the direction of each effect, not as
targets. Significance marks follow footnote 9: one-sided Wilcoxon signed-rank over documents,
p < 0.01; † over senter (MARMOT), ‡ over NOSYNTAX, * over JOINT.
"""
import platform
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import srsly

from spacy_joint_sbd.significance import ALPHA, paired, wilcoxon_greater

from .settings import SETTINGS, SPLIT_TITLES

# bjorkelund2016, Tables 2-4 (WSJ, Switchboard, WSJ*), for comparison only.
PAPER_TABLE2 = {"sentencizer": {"WSJ": 98.60, "Switchboard": None}, "senter": {"WSJ": 98.21, "Switchboard": 71.78}}
PAPER_TABLE3 = {
    "senter": {"WSJ": 97.64, "Switchboard": 71.87, "WSJ*": 53.02},
    "nosyntax": {"WSJ": 98.21, "Switchboard": 76.31, "WSJ*": 55.15},
    "joint": {"WSJ": 98.21, "Switchboard": 76.65, "WSJ*": 65.34},
}
PAPER_TABLE3_MARKS = {"nosyntax": {"Switchboard": "†"}, "joint": {"Switchboard": "†", "WSJ*": "†‡"}}
PAPER_TABLE4 = {
    "gold": {"WSJ": 90.22, "Switchboard": 84.99, "WSJ*": 88.71},
    "senter": {"WSJ": 89.81, "Switchboard": 78.93, "WSJ*": 83.37},
    "nosyntax": {"WSJ": 89.95, "Switchboard": 80.30, "WSJ*": 83.61},
    "joint": {"WSJ": 89.71, "Switchboard": 79.97, "WSJ*": 85.66},
    "joint-reparsed": {"WSJ": 89.93, "Switchboard": 80.61, "WSJ*": 85.38},
}
PAPER_TABLE4_MARKS = {"nosyntax": {"Switchboard": "†"}, "joint": {"Switchboard": "†", "WSJ*": "†‡"},
                      "joint-reparsed": {"Switchboard": "†‡*", "WSJ*": "†‡"}}
ROW_NAMES = {"sentencizer": "sentencizer [CoreNLP]", "senter": "senter [MARMOT]", "nosyntax": "NOSYNTAX",
             "joint": "JOINT", "gold": "GOLD", "joint-reparsed": "JOINT-REPARSED"}
TABLE4_NAMES = {**ROW_NAMES, "senter": "senter → parser [MARMOT]", "nosyntax": "NOSYNTAX → parser"}
MARK_OVER = (("senter", "†"), ("nosyntax", "‡"), ("joint", "*"))
FIG4_UPDATES = ("greedy", "early", "max_violation", "dlaso")
"""The updates of Figure 4, in the order of their lines."""
COLUMNS: Tuple[Tuple[str, str], ...] = (("ewt-plain", "test"), ("gum-star", "dev"), ("gum-star", "dev-spoken"),
                                        ("ewt-star", "test"))


def _read(path: Path) -> Optional[Dict]:
    return srsly.read_json(path) if path.exists() else None


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _paper(table: Dict, row: str, setting: str) -> str:
    v = table.get(row, {}).get(SETTINGS[setting].paper)
    return "–" if v is None else f"{v:.2f}"


def _marks(scores: Dict[str, Dict], row: str, measure: str, over: Sequence[str]) -> str:
    out = ""
    for ref, mark in MARK_OVER:
        if ref not in over or ref == row or ref not in scores or row not in scores:
            continue
        xs, ys = paired(scores[row], scores[ref], measure)
        if wilcoxon_greater(xs, ys) < ALPHA:
            out += mark
    return out


def _col_title(setting: str, split: str) -> str:
    s = SETTINGS[setting]
    return f"{setting} {SPLIT_TITLES[split]} [{s.paper}]"


def load_all(metrics: Path) -> Dict[str, Dict[str, Dict]]:
    """{setting: {name: metrics}} for the systems, peers and pipelines found under `metrics`."""
    out: Dict[str, Dict[str, Dict]] = {}
    for setting in SETTINGS:
        found = {}
        for name in ("sentencizer", "senter", "joint", "nosyntax", "gold", "pipelines", "tags"):
            data = _read(metrics / setting / f"{name}.json")
            if data is not None:
                found[name] = data
        for fig in ("fig34", "fig5"):
            folder = metrics / setting / fig
            if folder.is_dir():
                found[fig] = {p.stem: srsly.read_json(p) for p in sorted(folder.glob("*.json"))}
        if found:
            out[setting] = found
    return out


def table2(data: Dict) -> List[str]:
    settings = [s for s in ("ewt-plain", "gum-star", "ewt-star") if s in data]
    head = "| system | " + " | ".join(f"{s} tune [{SETTINGS[s].paper}] | paper" for s in settings) + " |"
    lines = [head, "|---" * (1 + 2 * len(settings)) + "|"]
    for row in ("sentencizer", "senter"):
        cells = []
        for s in settings:
            m = data[s].get(row)
            cells += [_pct(m["tune"]["sents_f"]) if m else "–", _paper(PAPER_TABLE2, row, s)]
        lines.append(f"| {ROW_NAMES[row]} | " + " | ".join(cells) + " |")
    return lines


def _test_scores(data: Dict, setting: str, split: str, row: str, table: int) -> Optional[Dict]:
    d = data.get(setting, {})
    if table == 4:
        return d.get("pipelines", {}).get("tests", {}).get(split, {}).get(row)
    if row in ("senter", "sentencizer"):
        return d.get(row, {}).get(split)
    return d.get(row, {}).get("tests", {}).get(split)


def result_table(data: Dict, table: int) -> List[str]:
    rows = ("senter", "nosyntax", "joint") if table == 3 else ("gold", "senter", "nosyntax", "joint", "joint-reparsed")
    measure, key = ("sents_f", "sents_f") if table == 3 else ("las", "dep_las")
    paper, paper_marks = (PAPER_TABLE3, PAPER_TABLE3_MARKS) if table == 3 else (PAPER_TABLE4, PAPER_TABLE4_MARKS)
    names = ROW_NAMES if table == 3 else TABLE4_NAMES
    cols = [(s, sp) for s, sp in COLUMNS if s in data]
    lines = ["| system | " + " | ".join(f"{_col_title(s, sp)} | paper" for s, sp in cols) + " |",
             "|---" * (1 + 2 * len(cols)) + "|"]
    for row in rows:
        cells = []
        for s, sp in cols:
            scores = {r: _test_scores(data, s, sp, r, table) for r in rows}
            scores = {r: v for r, v in scores.items() if v is not None}
            m = scores.get(row)
            mark = "" if m is None or row == "gold" else _marks(scores, row, measure, [r for r in rows if r != "gold"])
            cells.append("–" if m is None else f"{_pct(m[key])}{mark}")
            pm = paper_marks.get(row, {}).get(SETTINGS[s].paper, "")
            cells.append(_paper(paper, row, s) + pm)
        lines.append(f"| {names[row]} | " + " | ".join(cells) + " |")
    return lines


def direction_table(data: Dict) -> List[str]:
    """The paper's main comparisons: the sign of each difference, ours beside the paper's."""
    checks = [
        (3, "JOINT − NOSYNTAX, sentence F1", "joint", "nosyntax"),
        (3, "JOINT − senter, sentence F1", "joint", "senter"),
        (3, "NOSYNTAX − senter, sentence F1", "nosyntax", "senter"),
        (4, "JOINT − senter → parser, LAS", "joint", "senter"),
        (4, "JOINT-REPARSED − JOINT, LAS", "joint-reparsed", "joint"),
        (4, "GOLD − JOINT, LAS", "gold", "joint"),
    ]
    lines = ["| comparison | data | ours | paper | same direction |", "|---|---|---|---|---|"]
    for table, title, a, b in checks:
        paper = PAPER_TABLE3 if table == 3 else PAPER_TABLE4
        key = "sents_f" if table == 3 else "dep_las"
        for s, sp in COLUMNS:
            ma, mb = _test_scores(data, s, sp, a, table), _test_scores(data, s, sp, b, table)
            if ma is None or mb is None:
                continue
            ours = 100 * (ma[key] - mb[key])
            pa, pb = paper[a].get(SETTINGS[s].paper), paper[b].get(SETTINGS[s].paper)
            theirs = None if pa is None or pb is None else pa - pb
            if theirs is None or abs(theirs) < 0.005:
                same = "– (no difference in the paper)" if theirs is not None else "–"
            else:
                same = "yes" if (ours > 0) == (theirs > 0) else "**no**"
            lines.append(f"| {title} | {_col_title(s, sp)} | {ours:+.2f} | "
                         f"{'–' if theirs is None else f'{theirs:+.2f}'} | {same} |")
    return lines


def tags_table(data: Dict) -> List[str]:
    lines = ["| setting | tagger | " + " | ".join(("train", "tune", "test splits")) + " |", "|---|---|---|---|---|"]
    for s, d in data.items():
        acc = d.get("tags", {}).get("tag_acc")
        if acc:
            tests = ", ".join(f"{k} {100 * v:.2f}" for k, v in acc.items() if k not in ("train", "tune"))
            lines.append(f"| {s} | `{d['tags']['tagger']}` | {100 * acc.get('train', 0):.2f} | "
                         f"{100 * acc.get('tune', 0):.2f} | {tests} |")
    return lines


def time_table(data: Dict) -> List[str]:
    lines = ["| setting | system | update | beam | epochs run | best epoch (tuned) | training CPU s |",
             "|---|---|---|---|---|---|---|"]
    for s, d in data.items():
        for name in ("joint", "nosyntax", "gold"):
            m = d.get(name)
            if m:
                lines.append(f"| {s} | {ROW_NAMES[name]} | {m['update']} | {m['beam']} | {m['epochs']} | "
                             f"{m['best_epoch']} | {m['train_cpu_seconds']:.0f} |")
    return lines


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _epoch_axis(ax) -> None:
    from matplotlib.ticker import MaxNLocator

    ax.set_xlabel("epoch")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def plot_fig3(runs: Dict[str, Dict], path: Path, setting: str) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, document_level, title in ((axes[0], False, "sentence-level"), (axes[1], True, "document-level")):
        for update in ("early", "max_violation"):
            run = next((r for r in runs.values() if r["document_level"] == document_level and r["update"] == update),
                       None)
            if run:
                ax.plot([p["epoch"] for p in run["curve"]], [p["used_pct"] for p in run["curve"]], marker="o",
                        label=f"{update} (beam {run['beam']})")
        ax.set_title(title)
        _epoch_axis(ax)
        ax.grid(alpha=0.3)
        ax.set_ylim(0, 105)
    axes[0].set_ylabel("% of gold sequence used")
    axes[0].legend()
    fig.suptitle(f"Figure 3: used share of the gold transition sequence, {setting} train")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_fig4(runs: Dict[str, Dict], senter_f1: Optional[float], path: Path, setting: str) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for update in FIG4_UPDATES:
        run = next((r for r in runs.values() if r["document_level"] and r["update"] == update), None)
        if not run:
            continue
        xs = [p["epoch"] for p in run["curve"]]
        axes[0].plot(xs, [100 * p["sents_f"] for p in run["curve"]], marker="o", label=update)
        axes[1].plot(xs, [100 * (p["dep_las"] or 0) for p in run["curve"]], marker="o", label=update)
    if senter_f1 is not None:
        axes[0].axhline(100 * senter_f1, linestyle="--", color="grey", label="senter [MARMOT]")
    for ax, label in zip(axes, ("tune sentence F1", "tune LAS")):
        _epoch_axis(ax)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"Figure 4: update strategies, {setting} (document-level)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_fig5(runs: Dict[str, Dict], path: Path, setting: str) -> None:
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, update in zip(axes, ("dlaso", "max_violation")):
        for run in sorted((r for r in runs.values() if r["update"] == update), key=lambda r: r["beam"]):
            ax.plot([p["epoch"] for p in run["curve"]], [100 * p["sents_f"] for p in run["curve"]], marker="o",
                    label=f"beam {run['beam']}")
        ax.set_title(update)
        _epoch_axis(ax)
        ax.grid(alpha=0.3)
        ax.legend()
    axes[0].set_ylabel("tune sentence F1")
    fig.suptitle(f"Figure 5: beam size, {setting}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_fig6(data: Dict, path: Path) -> None:
    plt = _plt()
    settings = [s for s in ("gum-star", "ewt-star") if "joint" in data.get(s, {}) and "nosyntax" in data[s]]
    fig, axes = plt.subplots(1, max(len(settings), 1), figsize=(5 * max(len(settings), 1), 3.6), squeeze=False)
    for ax, s in zip(axes[0], settings):
        for name in ("joint", "nosyntax"):
            curve = data[s][name]["curve"]
            ax.plot([p["epoch"] for p in curve], [100 * p["sents_f"] for p in curve], marker="o",
                    label=ROW_NAMES[name])
        ax.set_title(f"{s} [{SETTINGS[s].paper}]")
        _epoch_axis(ax)
        ax.set_ylabel("tune sentence F1")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("Figure 6: syntax and sentence boundaries")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _code_version() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", ":(top)spacy_joint_sbd"], capture_output=True,
                               text=True).stdout.strip()
        return sha + ("+uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os

    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_report(metrics: Path, out: Path, plots: Path, title: str = "") -> None:
    data = load_all(metrics)
    if not data:
        raise ValueError(f"{metrics}: no replication metrics found; run the replicate workflow first")
    plots.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    figures = []
    gum = data.get("gum-star", {})
    if gum.get("fig34"):
        plot_fig3(gum["fig34"], plots / "fig3_used_share.png", "gum-star")
        senter = gum.get("senter", {}).get("tune", {}).get("sents_f")
        plot_fig4(gum["fig34"], senter, plots / "fig4_strategies.png", "gum-star")
        figures += ["fig3_used_share.png", "fig4_strategies.png"]
    if gum.get("fig5"):
        plot_fig5(gum["fig5"], plots / "fig5_beam.png", "gum-star")
        figures.append("fig5_beam.png")
    if any("joint" in d and "nosyntax" in d for d in data.values()):
        plot_fig6(data, plots / "fig6_syntax.png")
        figures.append("fig6_syntax.png")
    text = [
        f"# Replication of Björkelund et al. (2016){': ' + title if title else ''}",
        "",
        "Generated by `python scripts/replicate.py report` (projects/replicate) from `" + str(metrics) +
        "/**.json`; do not edit by hand. The paper's numbers are printed beside ours (WSJ, Switchboard and "
        "WSJ* in the paper; EWT, GUM* and EWT* here), for the direction of each effect: the data differ.",
        "",
        f"- Code: `{_code_version()}` (the commit the report was generated at); machine: {_machine()}.",
        "- Sentence F1 at the token level (a true positive is a token that starts a sentence in both), "
        "the first token of each document excluded. LAS over all tokens, gold tokenization.",
        "- Tags are predicted by the setting's spaCy tagger, at training and at test time; test-time "
        "boundaries come from the tokens alone. Iterations are tuned on the tuning split (EWT dev; for "
        "GUM, every 10th training document held out), never on the reported split.",
        f"- Significance (footnote 9): one-sided Wilcoxon signed-rank over documents, p < {ALPHA}; "
        "† over senter, ‡ over NOSYNTAX, * over JOINT. GOLD rows are not tested.",
        "",
        "## Table 2: boundary baselines, sentence F1 on the tuning (dev) split",
        "",
        *table2(data),
        "",
        "## Table 3: sentence boundary detection, F1 on test",
        "",
        *result_table(data, 3),
        "",
        "## Table 4: parsing, LAS on test for different sentence boundaries",
        "",
        "GOLD: the sentence-level parser on gold boundaries. X → parser: the same parser inside X's "
        "boundaries. JOINT: the joint parser's own trees. JOINT-REPARSED: JOINT's boundaries, GOLD's parser.",
        "",
        *result_table(data, 4),
        "",
        "## Direction of the paper's main effects",
        "",
        *direction_table(data),
        "",
        "## Training",
        "",
        *time_table(data),
        "",
        "Accuracy of the predicted fine-grained tags (XPOS) the systems read. The tagger was trained on "
        "the training split, so its tags there are better than at test time (no jackknifing).",
        "",
        *tags_table(data),
        "",
        "## Figures",
        "",
        *[f"![{f}]({(plots / f).relative_to(out.parent) if plots.is_relative_to(out.parent) else plots / f})"
          for f in figures],
        "",
    ]
    tmp = out.with_name(out.name + ".partial")
    tmp.write_text("\n".join(text), encoding="utf8")
    tmp.replace(out)
    print("\n".join(text))
