"""`python -m spacy_joint_sbd COMMAND`. Ctrl-C while the commands are imported (spaCy takes a
second or two) or parse their arguments ends the process as a command's run ends on it: exit 130,
no traceback."""
import sys

try:
    from .cli import app
except KeyboardInterrupt:
    sys.exit(130)

if __name__ == "__main__":
    try:
        app()
    except KeyboardInterrupt:  # before a command's own handlers are in place
        sys.exit(130)
