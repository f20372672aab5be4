"""`segment` under faults: signals at varied moments of a run (with and without worker processes),
a closed stdout, a full disk, a run killed outright. Each run is its own process group, killed in
teardown; every case asserts the process ended promptly, left no worker behind and no `.partial`."""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process groups from /proc")

SEGMENT = [sys.executable, "-m", "spacy_joint_sbd", "segment"]
PROSE = ("The committee met on Tuesday to review the budget. Several members asked about the delays in "
         "construction, and the chair promised a report by the end of the month. ")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A folder of 40 short files (batched through `nlp.pipe`) and a long file (streamed, 1 MB:
    a run outlasts the moments its signals come at)."""
    root = tmp_path_factory.mktemp("faults")
    folder = root / "many"
    folder.mkdir()
    for i in range(40):
        (folder / f"f{i:02d}.txt").write_text(PROSE * 12, encoding="utf-8")
    (root / "long.txt").write_text(PROSE * 6000, encoding="utf-8")
    return root


def _group_alive(pgid: int) -> List[str]:
    """The processes of group `pgid` that still run (zombies, already ended, excepted), each as
    "pid state wait-channel"."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(f"{stat.parent.name} {fields[0]} {(stat.parent / 'wchan').read_text()}")
        except OSError:
            continue
    return alive


class Run:
    """`segment` started in a process group of its own (so that its workers can be found and,
    whatever happens, killed)."""

    def __init__(self, args, **kwargs):
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        self.proc = subprocess.Popen([*SEGMENT, *map(str, args)], stderr=subprocess.PIPE,
                                     start_new_session=True, **kwargs)
        self.err = ""

    def wait(self, timeout: float = 60) -> int:
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running after {timeout} s: {_group_alive(self.proc.pid)}")
        self.err = err.decode()
        deadline = time.monotonic() + 10
        while _group_alive(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _group_alive(self.proc.pid), f"a worker outlived the run: {_group_alive(self.proc.pid)}"
        return self.proc.returncode

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()


@pytest.fixture
def runs():
    started: List[Run] = []

    def start(*args, **kwargs) -> Run:
        started.append(Run(args, **kwargs))
        return started[-1]

    yield start
    for run in started:
        run.kill()


def _wait_for(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _imports_extensions(pid: int) -> bool:
    """Whether process `pid` has mapped an installed package's compiled module: its Python start-up
    (which a loaded machine can stretch past the test's delays) is over and this package's imports
    have begun."""
    try:
        maps = Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False
    return any("-packages/" in line and ".so" in line for line in maps.splitlines())


def _partials(folder: Path) -> List[Path]:
    return sorted(folder.glob(".*.partial"))


@pytest.mark.parametrize("name,n_process", [("SIGTERM", 2), ("SIGINT", 2), ("SIGHUP", 2), ("SIGTERM", 1),
                                            ("SIGHUP", 1), ("SIGQUIT", 1)])
def test_a_signal_ends_the_run_cleanly(trained_model_dir, corpus, tmp_path, runs, name, n_process):
    """A signal while the output is being written: exit 128 + its number within seconds, the
    workers ended with it, no output and no `.partial` left, no traceback."""
    sig = getattr(signal, name)
    out = tmp_path / "out.jsonl"
    run = runs("-m", trained_model_dir, corpus / "many", corpus / "long.txt", "--format", "jsonl", "-o", out,
               "--n-process", n_process, "--batch-size", 4)
    _wait_for(lambda: _partials(tmp_path) or run.proc.poll() is not None)
    time.sleep(random.Random(f"{name}{n_process}").uniform(0.0, 1.5))  # a varied, reproducible moment
    assert run.proc.poll() is None, "the run ended before the signal"
    os.kill(run.proc.pid, sig)
    assert run.wait(timeout=30) == 128 + sig, run.err
    assert "Traceback" not in run.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("delay", [0.2, 0.5, 1.0])
def test_ctrl_c_while_starting_is_quiet(trained_model_dir, corpus, runs, delay):
    """SIGINT while Python imports spaCy or loads the pipeline: exit 130, nothing on stderr. The
    delays count from the first compiled module mapped: before that runs Python's own start-up,
    before any of this package."""
    run = runs("-m", trained_model_dir, corpus / "long.txt")
    _wait_for(lambda: _imports_extensions(run.proc.pid) or run.proc.poll() is not None)
    time.sleep(delay)
    assert run.proc.poll() is None, f"the run ended before the signal (exit {run.proc.returncode}): a 1 MB file " \
        "takes seconds, so it failed at start"
    os.kill(run.proc.pid, signal.SIGINT)
    assert run.wait(timeout=30) == 130, run.err
    assert run.err.strip() == ""


@pytest.mark.parametrize("n_process", [1, 2])
def test_a_closed_stdout_ends_the_run_quietly(trained_model_dir, corpus, runs, n_process):
    """`segment ... | head -2`: exit 141 as a Unix tool's, no message blaming the input."""
    run = runs("-m", trained_model_dir, corpus / "many", corpus / "long.txt", "--format", "jsonl",
               "--n-process", n_process, "--batch-size", 4, stdout=subprocess.PIPE)
    for _ in range(2):
        assert run.proc.stdout.readline()
    run.proc.stdout.close()
    assert run.wait(timeout=60) == 141, run.err
    assert run.err.strip() == ""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line_about_the_output(trained_model_dir, corpus, runs):
    run = runs("-m", trained_model_dir, corpus / "long.txt", "-o", "/dev/full")
    assert run.wait() == 1
    assert run.err.strip() == "error: /dev/full: cannot write (No space left on device)"
    with open("/dev/full", "w") as full:
        run = runs("-m", trained_model_dir, corpus / "long.txt", stdout=full)
        assert run.wait() == 1
    assert run.err.strip() == "error: stdout: cannot write (No space left on device)"


def test_a_partial_left_by_a_killed_run_goes_on_the_next(trained_model_dir, corpus, tmp_path, runs):
    """SIGKILL cannot be caught: its `.partial` stays, and the next run writing the same output
    removes it (a live run's is kept)."""
    out = tmp_path / "out.txt"
    run = runs("-m", trained_model_dir, corpus / "long.txt", "-o", out)
    _wait_for(lambda: _partials(tmp_path))
    run.kill()
    assert _partials(tmp_path) and not out.exists()
    subprocess.run([*SEGMENT, "-m", str(trained_model_dir), str(corpus / "many" / "f00.txt"), "-o", str(out)],
                   check=True, capture_output=True, timeout=60)
    assert list(tmp_path.iterdir()) == [out]
