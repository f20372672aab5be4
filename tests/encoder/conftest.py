import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

pytest.importorskip("onnxruntime", reason="the encoder needs the trf extra (onnxruntime, tokenizers)")
pytest.importorskip("onnx", reason="exporting the encoder needs onnx")
pytest.importorskip("tokenizers", reason="the encoder needs the trf extra (onnxruntime, tokenizers)")


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory) -> Path:
    """An encoder directory holding the tiny random BERT, int8, written through the export path."""
    from tiny_bert import write_encoder_dir

    return write_encoder_dir(tmp_path_factory.mktemp("encoder") / "tiny")
