"""Where saved things go: `atomic_dir` replaces a directory (a saved pipeline) only once its new
contents are completely written, so a failed save leaves the old one as it was; `portable_path`
writes a path into a committed or shared result relative to where it ran, so that no result
names the machine that produced it.

Below the components: imports no other room of the package.
"""
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


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
