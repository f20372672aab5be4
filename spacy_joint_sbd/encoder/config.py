"""The shape of a BERT encoder, read from and written as a Hugging Face `config.json`."""
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Dict, Union

import srsly


@dataclass(frozen=True)
class BertShape:
    """Sizes of a BERT encoder (the fields of a Hugging Face `BertConfig` that the graph needs)."""

    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    intermediate_size: int
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if name == "layer_norm_eps":
                if not isinstance(value, (int, float)) or not 0 < value < 1:
                    raise ValueError(f"layer_norm_eps must be in (0, 1), got {value!r}")
            elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(f"hidden_size {self.hidden_size} is not a multiple of "
                             f"num_attention_heads {self.num_attention_heads}")

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @classmethod
    def from_dict(cls, cfg: Dict[str, Any]) -> "BertShape":
        """The fields this class knows from a `config.json` dict (others are ignored)."""
        if cfg.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"only the exact (erf) GELU activation is supported, got {cfg['hidden_act']!r}")
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute position embeddings are supported")
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in cfg.items() if k in known})

    @classmethod
    def from_file(cls, path: Union[str, Path]) -> "BertShape":
        return cls.from_dict(srsly.read_json(path))

    def to_dict(self) -> Dict[str, Any]:
        return {"model_type": "bert", "hidden_act": "gelu", **asdict(self)}
