"""An encoder directory: the graph, its tokenizer and a card, each file checked by its sha256.

    encoder.onnx     the (int8) token classifier written by `export` / `quantize`
    tokenizer.json   the encoder's `tokenizers` tokenizer
    encoder.json     {"sha256": {file: digest}, "calibration": {"scale", "shift"},
                      "max_words": training window, ...: what the training recorded}

The `encoder` project writes one; `encoder_boundaries` reads one at `initialize` and saves the same
files with the pipeline. A file whose digest differs from the card's, or that the card records no
digest of, is an error naming it: a damaged graph never loads silently.
"""
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Union

import srsly

GRAPH = "encoder.onnx"
TOKENIZER = "tokenizer.json"
CARD = "encoder.json"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class EncoderFiles:
    """The bytes of an encoder directory, checked."""

    graph: bytes
    tokenizer: str
    card: Dict[str, Any] = field(default_factory=dict)

    def calibration(self) -> Dict[str, float]:
        """{"scale", "shift"}: P(start) = sigmoid(scale · logit + shift); identity when absent."""
        cal = self.card.get("calibration") or {}
        scale, shift = cal.get("scale", 1.0), cal.get("shift", 0.0)
        for name, v in (("scale", scale), ("shift", shift)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v != v or abs(v) > 1e6:
                raise ValueError(f"{CARD}: calibration {name} must be a finite number, got {v!r}")
        return {"scale": float(scale), "shift": float(shift)}

    def to_disk(self, path: Union[str, Path]) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        tok = self.tokenizer.encode("utf8")
        (path / GRAPH).write_bytes(self.graph)
        (path / TOKENIZER).write_bytes(tok)
        card = dict(self.card, sha256={GRAPH: sha256(self.graph), TOKENIZER: sha256(tok)})
        (path / CARD).write_text(json.dumps(card, indent=2), encoding="utf8")  # full float precision

    @classmethod
    def from_disk(cls, path: Union[str, Path]) -> "EncoderFiles":
        """ValueError naming the file that is missing, unreadable or not what its card says."""
        path = Path(path)
        for name in (GRAPH, TOKENIZER):
            if not (path / name).is_file():
                raise ValueError(f"{path / name}: missing (an encoder directory holds {GRAPH}, {TOKENIZER}, {CARD})")
        if not (path / CARD).is_file():
            raise ValueError(f"{path / CARD}: missing (it records the sha256 of {GRAPH} and {TOKENIZER})")
        try:
            card = srsly.read_json(path / CARD)
        except ValueError as e:
            raise ValueError(f"{path / CARD}: not JSON ({e})") from e
        if not isinstance(card, dict):
            raise ValueError(f"{path / CARD}: not a JSON object")
        graph, tok = (path / GRAPH).read_bytes(), (path / TOKENIZER).read_bytes()
        sums = card.get("sha256")
        for name, data in ((GRAPH, graph), (TOKENIZER, tok)):
            if not isinstance(sums, dict) or not isinstance(sums.get(name), str):
                raise ValueError(f"{path / CARD}: no sha256 of {name} (every file is checked: write the "
                                 f"directory with EncoderFiles.to_disk)")
            if sums[name] != sha256(data):
                raise ValueError(f"{path / name}: its sha256 is not the one {CARD} records (corrupted or replaced)")
        try:
            text = tok.decode("utf8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path / TOKENIZER}: not UTF-8 ({e})") from e
        files = cls(graph, text, card)
        files.calibration()
        return files

    def to_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"graph": self.graph, "tokenizer": self.tokenizer, "card": srsly.json_dumps(self.card)})

    @classmethod
    def from_bytes(cls, data: bytes) -> "EncoderFiles":
        try:
            msg = srsly.msgpack_loads(data)
            files = cls(bytes(msg["graph"]), str(msg["tokenizer"]), srsly.json_loads(msg["card"]))
        except Exception as e:  # noqa: BLE001 - msgpack raises many types on foreign bytes
            raise ValueError(f"not an encoder's bytes (foreign or truncated: {type(e).__name__})") from e
        files.calibration()
        return files
