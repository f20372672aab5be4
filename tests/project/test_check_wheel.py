"""scripts/check_wheel.py and scripts/sha256_file.py find the wheel `spacy package DIR` wrote below a
folder (the root project's `package` step names only packages/<variant>)."""
import hashlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _check_wheel():
    spec = importlib.util.spec_from_file_location("check_wheel", ROOT / "scripts" / "check_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_one_wheel_below_a_folder_and_its_sha256(tmp_path):
    wheel = tmp_path / "en_joint_sbd_ewt_star-0.1.0" / "dist" / "en_joint_sbd_ewt_star-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True)
    wheel.write_bytes(b"not really a wheel")
    assert _check_wheel().find_wheel(str(tmp_path)) == wheel
    assert _check_wheel().find_wheel(str(wheel)) == wheel
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "sha256_file.py"), str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert wheel.with_name(wheel.name + ".sha256").read_text() == f"{digest}  {wheel.name}\n"


def test_no_or_two_wheels_is_an_error(tmp_path):
    with pytest.raises(SystemExit, match="expected one wheel"):
        _check_wheel().find_wheel(str(tmp_path))
    (tmp_path / "a-1-py3-none-any.whl").write_bytes(b"")
    (tmp_path / "b-1-py3-none-any.whl").write_bytes(b"")
    with pytest.raises(SystemExit, match="found 2"):
        _check_wheel().find_wheel(str(tmp_path))
