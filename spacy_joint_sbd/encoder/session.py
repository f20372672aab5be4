"""`BoundaryEncoder`: P(word starts a sentence) for a word sequence of any length, on CPU.

An onnxruntime session over an exported (usually int8) BERT token classifier, the encoder's own
WordPiece tokenizer, and overlapping windows (`windows.py`): each word's logit comes from the
window where it is most central, windows are run `batch_size` at a time, so memory is bounded by
the batch whatever the length. A multi-task graph (`heads.py`) also gives each word's best head
candidates, read from the same window in the same call (`many_outputs`). One instance serves many threads (onnxruntime's `run` and the
tokenizer are thread-safe; the word cache only grows or is cleared).

`batch_size` windows go to onnxruntime at once. An int8 graph quantises its activations with one
scale per call (dynamic quantisation), so with more than one window a call a window's scores
depend on its batch-mates; at 1, the default, every score is a function of its own window alone,
and `nlp(text)`, `nlp.pipe` and any split of a text into calls agree exactly.
"""
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import numpy

from .export import INPUTS, OUTPUT
from .heads import CANDIDATES, OUTPUTS as HEAD_OUTPUTS
from .pieces import WordPieces
from .windows import central_windows, plan_windows


ROOT = -1
"""A head candidate that is the root."""
NO_HEAD = -2
"""No candidate: the window held fewer than k."""
NONE_SCORE = -1000.0
"""Log-probabilities at or below this belong to pieces that cannot be heads."""


@dataclass
class WordOutputs:
    """One word sequence's outputs: `logits` (n,) float32 of starting a sentence; with syntax
    heads, `heads` (n, k) int32 word indices of the k best head candidates, best first (`ROOT`,
    `NO_HEAD`), `head_scores` (n, k) their log-probabilities, `head_labels` (n, k) each one's best
    label (an index into the encoder's label list), `upos` (n,) the best UPOS's index."""

    logits: numpy.ndarray
    heads: numpy.ndarray
    head_scores: numpy.ndarray
    head_labels: numpy.ndarray
    upos: numpy.ndarray

    @classmethod
    def empty(cls, n: int, k: int) -> "WordOutputs":
        return cls(numpy.zeros(n, dtype=numpy.float32), numpy.full((n, k), NO_HEAD, dtype=numpy.int32),
                   numpy.full((n, k), -numpy.inf, dtype=numpy.float32), numpy.zeros((n, k), dtype=numpy.int32),
                   numpy.zeros(n if k else 0, dtype=numpy.int32))


class BoundaryEncoder:
    """Scores words with an ONNX token classifier. `model` is the graph's bytes; `tokenizer_json`
    the tokenizer's `tokenizer.json` text; `threads` onnxruntime's intra-op threads (0: its own
    choice); `stride` the share of a window between two window starts (`windows.plan_windows`)."""

    def __init__(self, model: bytes, tokenizer_json: str, *, max_words: int = 96, max_pieces: int = 256,
                 max_word_pieces: int = 8, batch_size: int = 1, threads: int = 0, stride: float = 0.5,
                 top_k: int = 4) -> None:
        import onnxruntime

        for name, value, low in (("max_words", max_words, 1), ("max_pieces", max_pieces, 3),
                                 ("max_word_pieces", max_word_pieces, 1), ("batch_size", batch_size, 1),
                                 ("threads", threads, 0), ("top_k", top_k, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
        if not isinstance(stride, (int, float)) or isinstance(stride, bool) or not 0 < stride <= 1:
            raise ValueError(f"stride must be a number in (0, 1], got {stride!r}")
        if max_word_pieces > max_pieces - 2:
            raise ValueError(f"max_word_pieces ({max_word_pieces}) must leave room for [CLS] and [SEP] "
                             f"in max_pieces ({max_pieces})")
        self.pieces = WordPieces(tokenizer_json, max_word_pieces=max_word_pieces)
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        try:
            self.session = onnxruntime.InferenceSession(model, sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own bare exception types
            raise ValueError(f"not an ONNX encoder graph ({type(e).__name__}: {str(e).splitlines()[0][:200]})") from e
        names = [i.name for i in self.session.get_inputs()]
        outputs = [o.name for o in self.session.get_outputs()]
        plain = sorted(names) == sorted(INPUTS) and outputs == [OUTPUT]
        self.syntax = sorted(names) == sorted(INPUTS + (CANDIDATES,)) and outputs == [OUTPUT, *HEAD_OUTPUTS]
        if not (plain or self.syntax):
            raise ValueError(f"the ONNX graph takes {names} and gives {outputs}, not {list(INPUTS)} → [{OUTPUT!r}] "
                             f"(or with {CANDIDATES!r} → [{OUTPUT!r}, {', '.join(map(repr, HEAD_OUTPUTS))}])")
        self.max_words, self.max_pieces, self.batch_size, self.stride = max_words, max_pieces, batch_size, float(stride)
        self.top_k = int(top_k)

    def word_logits(self, words: Sequence[str]) -> numpy.ndarray:
        """(len(words),) float32: each word's logit of starting a sentence."""
        return self.many_logits([words])[0]

    def many_logits(self, texts: Sequence[Sequence[str]], *, progress: Optional[Callable[[int], None]] = None
                    ) -> List[numpy.ndarray]:
        """`word_logits` of each word sequence; windows of short texts share batches. `progress`,
        if given, is called with the number of windows done after each batch."""
        return [out.logits for out in self.many_outputs(texts, syntax=False, progress=progress)]

    def many_outputs(self, texts: Sequence[Sequence[str]], *, syntax: bool = True,
                     progress: Optional[Callable[[int], None]] = None) -> List[WordOutputs]:
        """Every head's outputs for each word sequence, each word read in its most central window:
        the boundary logits, and with a syntax graph (and `syntax`) the head candidates."""
        syntax = syntax and self.syntax
        k_top = self.top_k
        plans = []
        for t, words in enumerate(texts):
            ids, offsets = self.pieces.encode(words)
            spans = plan_windows(numpy.diff(offsets), self.max_words, self.max_pieces - 2, self.stride)
            plans.append((ids, offsets, spans, central_windows(spans, len(words))))
        work = [(t, k) for t, plan in enumerate(plans) for k in range(len(plan[2]))]
        outs = [WordOutputs.empty(len(words), k_top if syntax else 0) for words in texts]
        for b in range(0, len(work), self.batch_size):
            batch = work[b:b + self.batch_size]
            rows = [(plans[t][0], plans[t][1]) + plans[t][2][k] for t, k in batch]
            width = 2 + max(int(offsets[e] - offsets[s]) for _, offsets, s, e in rows)
            if self.syntax:
                width = max(width, k_top)  # the graph's TopK needs room for k, padding included
            input_ids = numpy.full((len(batch), width), self.pieces.pad_id, dtype=numpy.int64)
            mask = numpy.zeros((len(batch), width), dtype=numpy.int64)
            cand = numpy.zeros((len(batch), width), dtype=numpy.int64)
            for r, (ids, offsets, s, e) in enumerate(rows):
                m = int(offsets[e] - offsets[s])
                input_ids[r, 0] = self.pieces.cls_id
                input_ids[r, 1:m + 1] = ids[offsets[s]:offsets[e]]
                input_ids[r, m + 1] = self.pieces.sep_id
                mask[r, :m + 2] = 1
                cand[r, 0] = 1
                cand[r, 1 + offsets[s:e] - offsets[s]] = 1
            feed = {INPUTS[0]: input_ids, INPUTS[1]: mask}
            if self.syntax:
                feed[CANDIDATES] = cand
            got = self.session.run([OUTPUT, *HEAD_OUTPUTS] if syntax else [OUTPUT], feed)
            for r, ((t, k), (ids, offsets, s, e)) in enumerate(zip(batch, rows)):
                mine = numpy.flatnonzero(plans[t][3][s:e] == k) + s
                if not len(mine):
                    continue
                pos = 1 + offsets[mine] - offsets[s]
                out = outs[t]
                out.logits[mine] = got[0][r, pos]
                if syntax:
                    index, score = got[1][r, pos], got[2][r, pos]
                    starts = offsets[s:e] - offsets[s]
                    word = s + numpy.searchsorted(starts, index - 1, side="right") - 1
                    real = (index > 0) & (score > NONE_SCORE)
                    out.heads[mine] = numpy.where(index == 0, ROOT, numpy.where(real, word, NO_HEAD))
                    out.head_scores[mine] = numpy.where((index == 0) | real, score, -numpy.inf)
                    out.head_labels[mine] = got[3][r, pos]
                    out.upos[mine] = got[4][r, pos]
            if progress is not None:
                progress(len(batch))
        return outs
