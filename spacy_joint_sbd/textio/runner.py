"""How a command's run ends, in one place: signals, worker processes, partial output files and
the exit code.

- `guarded()`: SIGINT, SIGTERM, SIGHUP and SIGQUIT end the run as `Interrupted` (exit 128 + the
  signal's number) so that every `finally` runs: a partial output is removed, nothing is left
  half-written. Worker processes (`nlp.pipe(n_process=...)`) are killed at once, whatever ended
  the run: spaCy's workers each hold the reading end of every result pipe, so a worker writing a
  batch nobody reads would block for ever and its parent with it. A run ended by a signal or with
  workers killed leaves with `os._exit`: Python's exit handlers would join queue threads whose
  readers are gone. A second signal, or a first whose exception was lost, ends the run outright
  (`abandon`: workers killed, partial outputs removed), as does a run still unwinding after
  `GRACE_SECONDS`.
- `atomic_path()` / `open_output()`: an output file is written under a hidden unique sibling name
  and moved into place only once complete; stale ones of the same output, left by a run that was
  killed outright (SIGKILL), are removed by the next run. A device or a pipe (`/dev/null`, a FIFO)
  is written directly.
- A closed stdout (`segment ... | head`) ends the run quietly with exit 141 (128 + SIGPIPE), as
  Unix tools end.
"""
import glob
import multiprocessing
import os
import re
import secrets
import signal
import stat
import sys
import threading
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, NoReturn, Set, TextIO, Tuple

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, name))
"""The signals that end a run cleanly (the ones a terminal, a service manager or `kill` sends)."""
BROKEN_PIPE_EXIT = 128 + getattr(signal, "SIGPIPE", 13)
GRACE_SECONDS = 5.0
"""How long a signalled run may take to unwind before it is ended outright (its exception can be
lost: Python drops one raised while a `__del__` runs)."""
_open_partials: Set[Path] = set()
"""The temporary files `atomic_path` has open in this process: removed by `abandon`."""


_forking = False
"""True while this process forks: Python runs the at-fork callbacks (logging's among them) and
drops any exception raised in them, so a signal then must be taken again after the fork."""


def _set_forking(value: bool) -> None:
    global _forking
    _forking = value


if hasattr(os, "register_at_fork"):  # registered after logging's: set first, cleared last
    os.register_at_fork(before=lambda: _set_forking(True), after_in_parent=lambda: _set_forking(False),
                        after_in_child=lambda: _set_forking(False))


class Interrupted(SystemExit):
    """The run was ended by a signal; `code` is 128 + its number."""


def end_workers() -> int:
    """Kill this process's multiprocessing children (a parse in C would not see a gentler signal
    for seconds) and reap them; returns how many there were."""
    children = multiprocessing.active_children()
    for child in children:
        child.kill()
    for child in children:
        child.join(timeout=1)
    return len(children)


def leave(code: int) -> NoReturn:
    """Exit at once with `code`: stderr flushed, stdout flushed if it still can be (else pointed
    at /dev/null, so that nothing complains about a closed pipe), no exit handlers."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def quiet_stdout() -> None:
    """Point stdout at /dev/null: a closed pipe's unwritten buffer is dropped, not reported."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@contextmanager
def guarded() -> Iterator[None]:
    """Run the block with signals ending it cleanly and workers ended on any exit but success
    (see module doc). Only the main thread can catch signals; elsewhere the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    owner = os.getpid()
    caught: List[int] = []

    def on_signal(signum, frame):
        if os.getpid() != owner:  # a forked worker: it holds nothing to clean up
            os._exit(128 + signum)
        if _forking:  # an exception here would be dropped: the signal comes again once forked
            threading.Timer(0.05, os.kill, args=(owner, signum)).start()
            return
        if caught:  # a second signal, or the first one's exception was swallowed (in a __del__)
            abandon(128 + caught[0])
        caught.append(signum)
        warnings.filterwarnings("ignore")  # spaCy's W127 about the workers just ended says nothing new
        end_workers()
        watchdog = threading.Timer(GRACE_SECONDS, abandon, args=(128 + signum,))
        watchdog.daemon = True
        watchdog.start()
        raise Interrupted(128 + signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in SIGNALS}
    try:
        yield
    except BaseException as e:
        ended = end_workers()
        if caught or ended:
            code = 128 + caught[0] if caught else getattr(e, "exit_code", getattr(e, "code", 1))
            leave(code if isinstance(code, int) else 1)
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def abandon(code: int) -> NoReturn:
    """End now, without unwinding: workers killed, this process's partial outputs removed."""
    end_workers()
    for path in list(_open_partials):
        try:
            path.unlink()
        except OSError:
            pass
    leave(code)


def _partials(path: Path) -> Iterator[Tuple[Path, int]]:
    """The temporary siblings `atomic_path` made for `path`, with the process id in their name."""
    pattern = re.compile(r"\." + re.escape(path.name) + r"\.(\d+)-[0-9a-f]+\.partial")
    for p in path.parent.glob(f".{glob.escape(path.name)}.*.partial"):
        m = pattern.fullmatch(p.name)
        if m is not None:
            yield p, int(m.group(1))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def remove_stale_partials(path: Path) -> None:
    """Remove `path`'s temporary siblings whose writing process no longer exists."""
    for p, pid in _partials(Path(path)):
        if pid != os.getpid() and not _alive(pid):
            try:
                p.unlink()
            except OSError:
                pass


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary sibling path, unique to this call (`.NAME.<pid>-<random>.partial`, so two
    runs writing the same output never share it); move it over `path` only if the block succeeds,
    else remove it (also on a signal inside `guarded`). Stale ones of `path` go first."""
    path = Path(path)
    remove_stale_partials(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    _open_partials.add(tmp)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
        _open_partials.discard(tmp)


def is_special(path: Path) -> bool:
    """A path that exists and is no regular file (a device, a FIFO): written directly."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


@contextmanager
def open_output(output: str, stdout_name: str = "-") -> Iterator[TextIO]:
    """The text stream to write: stdout for `stdout_name`, a device or FIFO as it is, a file
    atomically (UTF-8, no newline translation). The final flush is part of the block, so a full
    disk or a closed pipe shows as an OSError from it."""
    if output == stdout_name:
        yield sys.stdout
        sys.stdout.flush()
        return
    path = Path(output)
    if is_special(path):
        with open(path, "w", encoding="utf-8", newline="") as out:
            yield out
        return
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as out:
        yield out
