"""spacy_joint_sbd: joint sentence boundary detection and dependency parsing of whole documents."""
from . import _moved

__version__ = "0.1.0"

_moved.install()  # the old import paths of modules that moved rooms, deprecated for one version
