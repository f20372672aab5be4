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
    """Yield a temporary sibling path, unique to this call (`.NAME.<pid>-<random>.partial`, so two
    runs writing the same output never share it); move it over `path` only if the block succeeds,
    else remove it (also on SIGTERM inside `terminate_as_exit`)."""
    import secrets

    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


@contextmanager
def terminate_as_exit() -> Iterator[None]:
    """Within the block, SIGTERM ends the process as an exception (SystemExit 143) instead of at
    once, so that `finally` blocks run (e.g. `atomic_path` removes its temporary file). Only in the
    main thread (signals cannot be caught elsewhere); the previous handler is restored after."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
