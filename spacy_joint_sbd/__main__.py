"""`python -m spacy_joint_sbd COMMAND`. Ctrl-C while the commands are imported (spaCy takes a
second or two) or parse their arguments ends the process as a command's run ends on it: exit 130,
no traceback. While they are imported, SIGINT ends the process at once (nothing is written yet):
a KeyboardInterrupt raised inside a library's import can be swallowed by its `except:` clauses,
and the run would go on as if Ctrl-C had not been pressed."""
import os
import signal
import sys


def _end_at_once(signum, frame) -> None:
    os._exit(128 + signum)


_previous = signal.getsignal(signal.SIGINT)
if _previous is signal.default_int_handler:  # an ignored SIGINT (a background job) stays ignored
    signal.signal(signal.SIGINT, _end_at_once)
try:
    from .cli import app
except KeyboardInterrupt:  # a handler of the caller's own raised it
    sys.exit(130)
finally:
    if _previous is signal.default_int_handler:
        signal.signal(signal.SIGINT, _previous)

if __name__ == "__main__":
    try:
        app()
    except KeyboardInterrupt:  # before a command's own handlers are in place
        sys.exit(130)
