"""Small helpers shared by the CLI commands."""
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import typer
from wasabi import msg

from ..corpus import ConllUError


def split_list(value: Optional[str]) -> Optional[List[str]]:
    """`--genres spoken,academic` → ["spoken", "academic"]."""
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def portable_path(path) -> str:
    """A path for files that are committed or shared: relative to the working directory (the
    project folder under `spacy project run`), never the absolute path of one machine."""
    path = Path(path)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return Path(os.path.relpath(path)).as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary sibling path; move it over `path` only if the block succeeds."""
    path = Path(path)
    tmp = path.with_name(path.name + ".partial")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn input errors into one clear message and exit code 1 instead of a traceback."""
    try:
        yield
    except (ConllUError, ValueError, FileNotFoundError, OSError) as e:
        msg.fail(str(e))
        raise typer.Exit(1)
