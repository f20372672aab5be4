"""scripts/concurrently.py: commands side by side, the first failure's exit code, the rest stopped."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "concurrently.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)


def test_runs_side_by_side(tmp_path):
    """Each command writes its file and then waits for the other's: run one after the other,
    the first would give up and fail."""
    a, b = tmp_path / "a", tmp_path / "b"
    code = ("import sys, time, pathlib; pathlib.Path(sys.argv[1]).write_text('x'); t = time.time()\n"
            "while not pathlib.Path(sys.argv[2]).exists():\n"
            "    time.sleep(0.05)\n"
            "    if time.time() - t > 15: sys.exit(9)")
    proc = run("--", sys.executable, "-c", code, str(a), str(b), "--", sys.executable, "-c", code, str(b), str(a))
    assert proc.returncode == 0, proc.stderr


def test_a_failure_stops_the_others(tmp_path):
    late = tmp_path / "late"
    slow = f"import time, pathlib; time.sleep(20); pathlib.Path({str(late)!r}).write_text('x')"
    proc = run("--", sys.executable, "-c", "import sys; sys.exit(3)", "--", sys.executable, "-c", slow)
    assert proc.returncode == 3 and not late.exists()


def test_usage_errors():
    assert "no command" in run().stderr
    assert "start with --" in run("python", "x").stderr
