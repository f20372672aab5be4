"""The encoder that ships in weights/: its files match the card's sha256, it fits the size limit,
the card says how it was made, and it marks the sentence starts of a plain text."""
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from spacy_joint_sbd.encoder.files import GRAPH, EncoderFiles  # noqa: E402

WEIGHTS = Path(__file__).resolve().parents[1] / "weights"


def test_shipped_encoder_is_checked_small_and_documented():
    files = EncoderFiles.from_disk(WEIGHTS)  # raises on a digest that differs from the card's
    assert len(files.graph) <= 30 * 2 ** 20, f"{GRAPH} is over 30 MB"
    card = files.card
    assert card["command"].startswith("python -m spacy project run")
    assert card["train"]["words"] > 0 and card["base"].startswith("all-MiniLM-L6-v2")
    dev = card["dev"]
    assert dev["float32"]["f"] - dev["int8"]["f"] <= 0.3  # what int8 costs, on record
    assert set(card["calibration"]) == {"scale", "shift"}


def test_shipped_encoder_marks_sentence_starts():
    import spacy

    from spacy_joint_sbd.pipeline.encoder_boundaries import DOC_PROBS, EncoderBoundaries  # noqa: F401

    nlp = spacy.blank("en")
    nlp.add_pipe("encoder_boundaries").initialize(model_dir=WEIGHTS)
    doc = nlp("I went home after the game. She stayed there with her friends. We met again on Monday morning.")
    probs = doc._.get(DOC_PROBS)
    starts = {t.i for t in doc if t.text in ("She", "We")}
    for t in doc[1:]:
        if t.i in starts:
            assert probs[t.i] > 0.5, (t.text, probs[t.i])
        else:
            assert probs[t.i] < 0.5, (t.text, probs[t.i])
