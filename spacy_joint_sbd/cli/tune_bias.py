"""`tune-bias MODEL DEV`: choose a trained joint parser's operating point (its SB bias) on dev.

Punctuated dev text (`--variant plain`) sets `sb_bias`, unpunctuated (`--variant star`) sets
`sb_bias_unpunctuated`. The sweep, the choice and the save are `spacy_joint_sbd.operating_point`.
"""
from pathlib import Path
from typing import List, Optional

import srsly
import typer
from wasabi import msg

from .. import operating_point
from .._moved import moved_names
from ..persist.paths import portable_path
from ._app import app
from ._util import split_list, user_errors

__getattr__ = moved_names(__name__)  # the sweeps and the choice: spacy_joint_sbd.operating_point


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
        key, chosen, f1 = operating_point.tune_bias(model, dev_path, variant, key, values, output, component)
    for bias, f in f1.items():
        print(f"{key} {bias:+.2f}: dev F1 {100 * f:.2f}{'  <- chosen' if bias == chosen else ''}")
    if len({round(f, 6) for f in f1.values()}) == 1:
        msg.warn(f"every {key} gave the same dev F1: does the dev text in this variant use it? "
                 f"(sb_bias_unpunctuated applies only to documents without sentence-final punctuation)")
    msg.good(f"{key} = {chosen:+.2f} saved in {output or model}")
    if metrics is not None:
        metrics.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(metrics, {"model": portable_path(output or model), "dev": portable_path(dev_path),
                                   "variant": variant,
                                   "key": key, "chosen": chosen, "dev_f1": {str(b): f for b, f in f1.items()}})
