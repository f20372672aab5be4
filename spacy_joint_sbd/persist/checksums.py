"""Checksums of a component's saved files, so that a corrupted or truncated weights file is a
one-line error at load instead of a model that loads and predicts something else.

`to_disk` writes ``checksums.json`` beside the files it saved (``{"sha256": {file name: hex
digest}}``); `from_disk` checks every listed file before reading any of them. `to_bytes` adds the
same ``sha256`` map of its parts to its message, and `from_bytes` checks it. A folder or message
saved before checksums existed has none, and loads unchecked, as it always did.
"""
import hashlib
import re
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Union

import srsly

FILE = "checksums.json"
"""The file `write_checksums` adds to a component's folder."""
KEY = "sha256"
"""The key of the digests, in that file and in a component's bytes."""
_HEX = re.compile(r"[0-9a-f]{64}")


def sha256_file(path: Path) -> str:
    """The hex sha256 of the file at `path`, read in 1 MiB pieces."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(folder: Path, names: Iterable[str]) -> None:
    """Record the sha256 of each file `names` names in `folder` (those that exist) in its
    ``checksums.json``."""
    sums = {name: sha256_file(folder / name) for name in names if (folder / name).is_file()}
    srsly.write_json(folder / FILE, {KEY: sums})


def _digests(value: Any, where: str, component: str) -> Dict[str, str]:
    ok = isinstance(value, dict) and all(
        isinstance(k, str) and k and "/" not in k and "\\" not in k and k not in (".", "..")
        and isinstance(v, str) and _HEX.fullmatch(v) for k, v in value.items())
    if not ok:
        raise ValueError(f"[{component}] {where}: truncated or foreign checksums "
                         f"(expected file names and sha256 digests)")
    return value


def verify_checksums(folder: Path, component: str) -> None:
    """Check the files `folder`'s ``checksums.json`` lists against their sha256, or raise a
    one-line ValueError naming the component and the file. No ``checksums.json``: nothing to check
    (saved before checksums existed)."""
    path = folder / FILE
    if not path.exists():
        return
    try:
        data = srsly.read_json(path)
    except Exception as e:  # noqa: BLE001 - srsly raises many types on a broken file
        raise ValueError(f"[{component}] {path}: unreadable checksums ({type(e).__name__}: {e})") from e
    sums = _digests(data.get(KEY) if isinstance(data, dict) else None, str(path), component)
    for name, expected in sums.items():
        file = folder / name
        if not file.is_file():
            raise ValueError(f"[{component}] {file}: missing, but {FILE} lists it")
        if sha256_file(file) != expected:
            raise ValueError(f"[{component}] {file}: corrupted or changed since it was saved "
                             f"(its sha256 differs from the one in {FILE}; delete {FILE} to load a deliberate edit)")


def _sha256(data: Union[bytes, str]) -> Optional[str]:
    if isinstance(data, str):
        data = data.encode("utf8")
    return hashlib.sha256(data).hexdigest() if isinstance(data, bytes) else None


def bytes_checksums(parts: Mapping[str, Union[bytes, str]]) -> Dict[str, str]:
    """The sha256 of each part (bytes, or a str as UTF-8) of a component's message."""
    return {name: _sha256(data) for name, data in parts.items()}


def with_checksums(bytes_data: bytes) -> bytes:
    """A component's msgpack message (a dict of byte or str parts, as spaCy's `util.to_bytes`
    makes) with the ``sha256`` of its parts added."""
    msg = srsly.msgpack_loads(bytes_data)
    msg[KEY] = bytes_checksums({k: v for k, v in msg.items() if isinstance(v, (bytes, str))})
    return srsly.msgpack_dumps(msg)


def verify_bytes(msg: Mapping[str, Any], component: str) -> None:
    """Check the parts a component's message `msg` lists under ``sha256``, or raise a one-line
    ValueError naming the component and the part. No ``sha256`` key: nothing to check."""
    if KEY not in msg:
        return
    for name, expected in _digests(msg[KEY], "bytes", component).items():
        if _sha256(msg.get(name)) != expected:
            raise ValueError(f"[{component}] bytes: part {name!r} corrupted or changed since it was saved "
                             f"(its sha256 differs from the saved one)")
