"""`spacy_joint_sbd.numpy_gemm.v1`: a tok2vec multiplies with numpy's BLAS on one thread,
from training to `spacy.load`, giving BLIS's vectors up to float rounding; bad settings are clear."""
import threading
from typing import Dict, List

import numpy
import pytest
import spacy
from blas_threads import blas_threads, two_blas_threads  # noqa: F401 (a fixture)
from thinc.api import NumpyOps
from thinc.backends.ops import Ops

from spacy_joint_sbd.context.blas import OneThreadNumpyOps
from spacy_joint_sbd.context.numpy_gemm import make_numpy_gemm, use_numpy_gemm

TEXTS = ["The cat sat on the mat.", "Colourless green ideas sleep furiously", "no punctuation here at all"]
CALLBACK = {"@callbacks": "spacy_joint_sbd.numpy_gemm.v1", "components": ["tok2vec"]}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tok2vec pipeline saved after `use_numpy_gemm`, and its vectors with BLIS before that."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.initialize()
    assert not isinstance(nlp.get_pipe("tok2vec").model.ops, OneThreadNumpyOps)
    blis = [d.tensor.copy() for d in nlp.pipe(TEXTS)]
    assert use_numpy_gemm(nlp) is nlp
    assert isinstance(nlp.get_pipe("tok2vec").model.ops, OneThreadNumpyOps)
    path = tmp_path_factory.mktemp("numpy_gemm") / "nlp"
    nlp.to_disk(path)
    return path, blis


def test_loaded_pipeline_uses_numpy_gemm_with_the_same_vectors(saved):
    path, blis = saved
    nlp = spacy.load(path)
    model = nlp.get_pipe("tok2vec").model
    assert all(isinstance(node.ops, OneThreadNumpyOps) for node in model.walk())
    assert not model.ops.use_blis
    for doc, expected in zip(nlp.pipe(TEXTS), blis):
        assert doc.tensor.shape == expected.shape
        assert numpy.allclose(doc.tensor, expected, atol=1e-4)
    assert nlp.config["nlp"]["after_pipeline_creation"] == CALLBACK


def recording_gemm(seen: Dict[str, List[List[int]]]):
    """Ops.gemm (what NumpyOps without BLIS calls) recording the BLAS thread counts it runs with."""
    real = Ops.gemm

    def gemm(self, x, y, **kwargs):
        seen.setdefault(threading.current_thread().name, []).append(blas_threads())
        return real(self, x, y, **kwargs)
    return gemm


def test_products_run_on_one_blas_thread_and_the_count_comes_back(two_blas_threads, monkeypatch):
    seen: Dict[str, List[List[int]]] = {}
    monkeypatch.setattr(Ops, "gemm", recording_gemm(seen))
    x = numpy.ones((300, 96), dtype=numpy.float32)
    y = numpy.ones((96, 288), dtype=numpy.float32)
    out = OneThreadNumpyOps().gemm(x, y)
    assert out.shape == (300, 288) and float(out[0, 0]) == 96.0
    assert seen == {threading.current_thread().name: [[1] * len(blas_threads())]}
    assert set(blas_threads()) == {2}
    seen.clear()
    NumpyOps(use_blis=False).gemm(x, y)  # the plain ops keep the user's threads (the test can fail)
    assert seen == {threading.current_thread().name: [[2] * len(blas_threads())]}


def test_clear_errors():
    with pytest.raises(ValueError, match="components must be a list"):
        make_numpy_gemm("tok2vec")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    with pytest.raises(ValueError, match=r"has no component \['tok2vec'\]"):
        make_numpy_gemm()(nlp)
    with pytest.raises(ValueError, match="'sentencizer' has no Thinc model"):
        make_numpy_gemm(["sentencizer"])(nlp)
    other = spacy.blank("en", config={"nlp": {"after_pipeline_creation": {
        "@callbacks": "spacy.models_with_nvtx_range.v1"}}})
    other.add_pipe("tok2vec")
    with pytest.raises(ValueError, match="already"):
        use_numpy_gemm(other)
