"""`WeightsPipe`: serialization shared by components whose model is one hashed weight table.

The perceptron tagger and the boundary prior keep their learnt table in a
`spacy_joint_sbd.HashedPerceptron.v1` Thinc model beside a JSON `cfg`: bytes are
msgpack({cfg, model, sha256}), a directory holds `cfg`, `model` and their `checksums.json`
(`persist.checksums`, checked before loading when present). A subclass says how its live weights
reach the Thinc model (`_sync_model`) and how it adopts a checked cfg once `load()` has read the
model (`_adopt`); anything foreign or truncated is a ValueError naming the component.
"""
from typing import Callable, Dict

import srsly
from spacy import util
from spacy.pipeline import TrainablePipe

from ..persist.checksums import KEY, bytes_checksums, verify_bytes, verify_checksums, write_checksums


class WeightsPipe(TrainablePipe):
    kind = "component"
    """The factory name, for error messages."""

    def _sync_model(self) -> None:
        raise NotImplementedError

    def _adopt(self, cfg: Dict, load: Callable[[], object]) -> None:
        raise NotImplementedError

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        self._sync_model()
        parts = {"cfg": srsly.json_dumps(self.cfg), "model": self.model.to_bytes()}
        return srsly.msgpack_dumps({**parts, KEY: bytes_checksums(parts)})

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "WeightsPipe":
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except Exception as e:  # noqa: BLE001 - msgpack raises many types on foreign bytes
            raise ValueError(f"[{self.name}] not a {self.kind} model (foreign or truncated bytes: {e})") from e
        if isinstance(msg, dict):
            verify_bytes(msg, self.name)
        try:
            cfg = srsly.json_loads(msg["cfg"])
            self._adopt(cfg, lambda: self.model.from_bytes(msg["model"]))
        except Exception as e:  # noqa: BLE001 - msgpack/thinc raise many types on foreign bytes
            raise ValueError(f"[{self.name}] not a {self.kind} model (foreign or truncated bytes: {e})") from e
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        self._sync_model()
        srsly.write_json(path / "cfg", self.cfg)
        self.model.to_disk(path / "model")
        write_checksums(path, self._saved_files())

    def _saved_files(self) -> tuple:
        """The files of `to_disk`'s folder that `checksums.json` covers."""
        return ("cfg", "model")

    def from_disk(self, path, *, exclude=tuple()) -> "WeightsPipe":
        path = util.ensure_path(path)
        if not (path / "cfg").exists() or not (path / "model").exists():
            raise ValueError(f"[{self.name}] {path} has no cfg/model: not a saved {self.kind}")
        verify_checksums(path, self.name)
        return self._load_disk(path)

    def _load_disk(self, path) -> "WeightsPipe":
        """`from_disk` once the folder's checksums have been checked."""
        try:
            cfg = srsly.read_json(path / "cfg")
            self._adopt(cfg, lambda: self.model.from_disk(path / "model"))
        except Exception as e:  # noqa: BLE001 - srsly/thinc raise many types on foreign files
            raise ValueError(f"[{self.name}] {path}: truncated or foreign model ({type(e).__name__}: {e})") from e
        return self
