"""spacy_joint_sbd: joint sentence boundary detection and dependency parsing of whole documents."""
__version__ = "0.1.0"
