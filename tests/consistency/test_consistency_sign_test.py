"""The exact sign test added to `significance` for rush2012's significance marks."""
import pytest

from spacy_joint_sbd.significance import sign_test_greater


def test_sign_test_exact_values():
    assert sign_test_greater([1, 1, 1], [0, 0, 0]) == pytest.approx(1 / 8)
    assert sign_test_greater([1, 0, 2, 2], [0, 0, 1, 3]) == pytest.approx(4 / 8)  # 2 wins, 1 loss
    assert sign_test_greater([0, 0], [0, 0]) == 1.0
    assert sign_test_greater([0] * 10, [1] * 10) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="differ in length"):
        sign_test_greater([1], [1, 2])
