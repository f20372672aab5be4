"""Small helpers shared by the CLI commands."""
from contextlib import contextmanager
from typing import Iterator, List, Optional

import typer
from wasabi import msg

from .._moved import moved_names
from ..corpus import ConllUError
from ..textio.runner import atomic_path  # noqa: F401  (the commands' atomic output)

__getattr__ = moved_names(__name__)  # atomic_dir, portable_path: spacy_joint_sbd.persist.paths


def split_list(value: Optional[str]) -> Optional[List[str]]:
    """`--genres spoken,academic` → ["spoken", "academic"]."""
    if not value:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn input errors into one clear message and exit code 1 instead of a traceback."""
    try:
        yield
    except (ConllUError, ValueError, FileNotFoundError, OSError) as e:
        msg.fail(str(e))
        raise typer.Exit(1)
