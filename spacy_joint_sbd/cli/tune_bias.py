"""`tune-bias MODEL DEV`: choose a trained joint parser's operating point (its SB bias) on dev.

The joint parser under-splits or over-splits by a margin that depends on the text: `sb_bias` is
added to the score of SB at every step, trading boundary precision for recall. Chosen on dev
boundary F1 it adds +1.8 F1 on EWT* test (projects/accuracy ablation, row 5). `spacy train`
cannot choose it (it only keeps the best epoch), so this command does, after training:
punctuated dev text (`--variant plain`) sets `sb_bias`, unpunctuated (`--variant star`) sets
`sb_bias_unpunctuated`, the bias the component uses for Docs without sentence-final punctuation.
"""
import math
import shutil
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import srsly
import typer
from spacy.language import Language
from wasabi import msg

from ..corpus.docs import doc_to_record
from ..corpus.readers import load_gold_docs
from ..scoring import score_records
from . import app
from ._util import split_list, user_errors
from .evaluate import load_pipeline, predict

PUNCT_GRID = (-0.2, -0.1, 0.0, 0.1, 0.2)
"""The `sb_bias` values tried on punctuated dev text."""
UNPUNCT_GRID = (-0.1, 0.0, 0.1, 0.2, 0.3, 0.4)
"""The `sb_bias_unpunctuated` values tried on unpunctuated dev text."""
KEYS = ("sb_bias", "sb_bias_unpunctuated")


def _joint_component(nlp: Language, component: str):
    if component not in nlp.pipe_names:
        raise ValueError(f"the pipeline has no component {component!r} (it has {nlp.pipe_names})")
    pipe = nlp.get_pipe(component)
    if not hasattr(pipe, "sb_bias_for") or not all(k in getattr(pipe, "cfg", {}) for k in KEYS):
        raise ValueError(f"component {component!r} is not a joint_sbd_parser (no SB bias to tune)")
    return pipe


def sweep_sb_bias(nlp: Language, gold_docs: Sequence, grid: Sequence[float], key: str = "sb_bias",
                  component: str = "joint_sbd_parser") -> Dict[float, float]:
    """Boundary F1 of `nlp` on the gold tokens of `gold_docs` with the component's `key` set to each
    value of `grid` in turn; the component's cfg is left as it was."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {KEYS}, got {key!r}")
    grid = [float(b) for b in grid]
    if not grid or not all(math.isfinite(b) for b in grid):
        raise ValueError(f"the bias grid must be a non-empty list of finite numbers, got {grid!r}")
    gold_docs = [d for d in gold_docs if len(d)]
    if not gold_docs:
        raise ValueError("no non-empty dev documents to choose the bias on")
    pipe = _joint_component(nlp, component)
    golds = [doc_to_record(d) for d in gold_docs]
    before = pipe.cfg[key]
    f1: Dict[float, float] = {}
    try:
        for bias in grid:
            pipe.cfg[key] = bias
            preds, _ = predict(nlp, gold_docs)
            f1[bias] = score_records(preds, golds).scores()["sents_f"]
    finally:
        pipe.cfg[key] = before
    return f1


def best_bias(f1: Dict[float, float]) -> float:
    """The bias of the highest F1 (to 6 decimals); ties go to the bias nearest 0."""
    return max(f1, key=lambda b: (round(f1[b], 6), -abs(b)))


def set_sb_bias(nlp: Language, key: str, value: float, component: str = "joint_sbd_parser") -> None:
    """Set the operating point in the component's cfg and in the pipeline's config (so that
    `config.cfg` of the saved pipeline shows what it uses)."""
    pipe = _joint_component(nlp, component)
    pipe.cfg[key] = float(value)
    nlp.get_pipe_config(component)[key] = float(value)


def tune_bias(model: str, dev_path: Path, variant: str = "plain", key: Optional[str] = None,
              grid: Optional[Sequence[float]] = None, output: Optional[Path] = None,
              component: str = "joint_sbd_parser") -> Tuple[str, float, Dict[float, float]]:
    """Choose `key` (default: `sb_bias` for plain dev text, `sb_bias_unpunctuated` otherwise) on the
    documents of `dev_path` in `variant`, and save the pipeline with it to `output` (default: in
    place of `model`, replaced only once the new one is written). Returns (key, chosen, F1 per bias)."""
    key = key or ("sb_bias" if variant == "plain" else "sb_bias_unpunctuated")
    if grid is None:
        grid = PUNCT_GRID if key == "sb_bias" else UNPUNCT_GRID
    target = Path(output) if output is not None else Path(model)
    if output is None and not target.is_dir():
        raise ValueError(f"{model} is not a pipeline directory: give --output to save the tuned pipeline")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} is a file: --output must be a pipeline directory to write")
    nlp = load_pipeline(model)
    dev = load_gold_docs(dev_path, nlp.vocab, variant)
    f1 = sweep_sb_bias(nlp, dev, grid, key, component)
    chosen = best_bias(f1)
    set_sb_bias(nlp, key, chosen, component)
    tmp = target.with_name(target.name + ".partial")
    old = target.with_name(target.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    nlp.to_disk(tmp)
    if target.exists():
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
    tmp.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return key, chosen, f1


@app.command("tune-bias")
def tune_bias_cli(
    model: str = typer.Argument(..., help="trained pipeline directory with a joint_sbd_parser"),
    dev_path: Path = typer.Argument(..., help="dev .conllu / .spacy with whole documents"),
    variant: str = typer.Option("plain", "--variant", "-v", help="plain | star | lower | nopunct"),
    key: Optional[str] = typer.Option(None, "--key", help="sb_bias | sb_bias_unpunctuated (default: by variant)"),
    grid: Optional[str] = typer.Option(None, "--grid", help="biases to try, comma-separated"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="where to save (default: in place)"),
    metrics: Optional[Path] = typer.Option(None, "--metrics", "-m", help="write the dev F1 per bias as JSON"),
    component: str = typer.Option("joint_sbd_parser", "--component"),
) -> None:
    """Choose the SB bias (the eager / lazy knob) of a trained joint parser by boundary F1 on dev
    (gold tokens, the pipeline's own tags) and save the pipeline with it."""
    with user_errors():
        values: Optional[List[float]] = None
        if grid is not None:
            try:
                values = [float(v) for v in split_list(grid) or []]
            except ValueError:
                raise ValueError(f"--grid must be numbers separated by commas, got {grid!r}") from None
        key, chosen, f1 = tune_bias(model, dev_path, variant, key, values, output, component)
    for bias, f in f1.items():
        print(f"{key} {bias:+.2f}: dev F1 {100 * f:.2f}{'  <- chosen' if bias == chosen else ''}")
    msg.good(f"{key} = {chosen:+.2f} saved in {output or model}")
    if metrics is not None:
        metrics.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(metrics, {"model": str(output or model), "dev": str(dev_path), "variant": variant,
                                   "key": key, "chosen": chosen, "dev_f1": {str(b): f for b, f in f1.items()}})
