"""Fixtures shared by the transition tests."""
import pytest


@pytest.fixture(scope="module")
def small_docs(sample_docs):
    """A handful of short documents of the committed sample with several sentences each."""
    docs = sorted((r for r in sample_docs if 40 <= len(r) <= 120 and sum(r.sent_starts) >= 3),
                  key=lambda r: (len(r), r.doc_id))
    return docs[:6]
