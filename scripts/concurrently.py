"""Run commands side by side and fail if any fails (README's main job: the boundary prior trains on
the second core while the parser trains on the first; neither reads the other's output).

    python scripts/concurrently.py -- python scripts/train_default.py ... -- python -m spacy_joint_sbd train-prior ...

Each command is run without a shell, its output goes to this one's. If one fails, the others are
stopped and the exit code is the failed one's.
"""
import subprocess
import sys
import time
from typing import List


def split_commands(argv: List[str]) -> List[List[str]]:
    commands, current = [], None
    for arg in argv:
        if arg == "--":
            current = []
            commands.append(current)
        elif current is None:
            raise SystemExit(f"concurrently: commands start with --, got {arg!r}")
        else:
            current.append(arg)
    commands = [c for c in commands if c]
    if not commands:
        raise SystemExit("concurrently: no command given (usage: concurrently.py -- CMD ... -- CMD ...)")
    return commands


def main() -> int:
    procs = [subprocess.Popen(cmd) for cmd in split_commands(sys.argv[1:])]
    try:
        while True:
            codes = [p.poll() for p in procs]
            failed = next((c for c in codes if c), 0)
            if failed or None not in codes:
                break
            time.sleep(0.5)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait()
    return failed


if __name__ == "__main__":
    sys.exit(main())
