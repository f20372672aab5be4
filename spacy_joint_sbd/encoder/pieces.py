"""Words → WordPiece ids with the encoder's own `tokenizers` tokenizer.

The encoder scores a word by its first piece, so each word is encoded on its own (no special
tokens) and capped at `max_word_pieces` pieces: a 5,000-character URL costs what a short word
costs. A word the tokenizer gives no piece for (a control character, a lone mark it strips) is
the unknown piece. Encodings are cached by word, bounded.
"""
from typing import Dict, List, Sequence, Tuple

import numpy

MAX_CACHE = 200_000
"""Words kept in the cache; it is emptied when full (new text mostly repeats old words)."""


class WordPieces:
    """A `tokenizers.Tokenizer` read from `tokenizer.json` text, encoding one word at a time."""

    def __init__(self, tokenizer_json: str, *, max_word_pieces: int = 8) -> None:
        from tokenizers import Tokenizer

        if not isinstance(max_word_pieces, int) or isinstance(max_word_pieces, bool) or max_word_pieces < 1:
            raise ValueError(f"max_word_pieces must be an int >= 1, got {max_word_pieces!r}")
        try:
            self.tokenizer = Tokenizer.from_str(tokenizer_json)
        except Exception as e:  # noqa: BLE001 - the Rust side raises a bare Exception
            raise ValueError(f"not a tokenizers tokenizer.json ({e})") from e
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.max_word_pieces = max_word_pieces
        self.cls_id = self._special("[CLS]")
        self.sep_id = self._special("[SEP]")
        self.unk_id = self._special("[UNK]")
        self.pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        self._cache: Dict[str, Tuple[int, ...]] = {}

    def _special(self, piece: str) -> int:
        i = self.tokenizer.token_to_id(piece)
        if i is None:
            raise ValueError(f"the tokenizer has no {piece} piece: not a BERT WordPiece tokenizer")
        return i

    def encode(self, words: Sequence[str]) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(piece ids of all words, concatenated, int64; (len(words) + 1,) offsets: word i's pieces
        are ids[offsets[i]:offsets[i + 1]], at least one each)."""
        cache = self._cache
        new = [w for w in dict.fromkeys(words) if w not in cache]
        if new:
            if len(cache) + len(new) > MAX_CACHE:
                cache.clear()
            for w, enc in zip(new, self.tokenizer.encode_batch(new, add_special_tokens=False)):
                ids = tuple(enc.ids[: self.max_word_pieces])
                cache[w] = ids or (self.unk_id,)
        seqs: List[Tuple[int, ...]] = [cache.get(w) or self._one(w) for w in words]
        counts = numpy.fromiter((len(s) for s in seqs), dtype=numpy.int64, count=len(seqs))
        offsets = numpy.zeros(len(seqs) + 1, dtype=numpy.int64)
        numpy.cumsum(counts, out=offsets[1:])
        ids = numpy.fromiter((i for s in seqs for i in s), dtype=numpy.int64, count=int(offsets[-1]))
        return ids, offsets

    def _one(self, word: str) -> Tuple[int, ...]:
        """A word the cache lost between filling and reading (another thread cleared it)."""
        ids = tuple(self.tokenizer.encode(word, add_special_tokens=False).ids[: self.max_word_pieces])
        return ids or (self.unk_id,)
