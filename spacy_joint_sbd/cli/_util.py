"""Small helpers shared by the CLI commands."""
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional

import typer
from wasabi import msg

from ..corpus import ConllUError
from ..textio.runner import atomic_path  # noqa: F401  (the commands' atomic output, where it always was)


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
def atomic_dir(path: Path) -> Iterator[Path]:
    """Yield a new temporary sibling directory; once the block succeeds it replaces `path` (which
    may exist). If the block fails the temporary directory is removed and `path` is untouched; if the
    final swap fails, `path` is put back."""
    import shutil
    import tempfile

    path = Path(path).resolve()
    if not path.name:
        raise ValueError(f"{path} cannot be replaced: give a directory below it")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial"))
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    old = None
    if path.exists() or path.is_symlink():
        old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.", suffix=".old"))
        old.rmdir()
        path.rename(old)
    try:
        tmp.rename(path)
    except BaseException:
        if old is not None:
            old.rename(path)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        if old.is_symlink() or not old.is_dir():
            old.unlink()
        else:
            shutil.rmtree(old, ignore_errors=True)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn input errors into one clear message and exit code 1 instead of a traceback."""
    try:
        yield
    except (ConllUError, ValueError, FileNotFoundError, OSError) as e:
        msg.fail(str(e))
        raise typer.Exit(1)
