"""`BoundaryEncoder`: P(word starts a sentence) for a word sequence of any length, on CPU.

An onnxruntime session over an exported (usually int8) BERT token classifier, the encoder's own
WordPiece tokenizer, and overlapping windows (`windows.py`): each word's logit comes from the
window where it is most central, windows are run `batch_size` at a time, so memory is bounded by
the batch whatever the length. One instance serves many threads (onnxruntime's `run` and the
tokenizer are thread-safe; the word cache only grows or is cleared).

`batch_size` windows go to onnxruntime at once. An int8 graph quantises its activations with one
scale per call (dynamic quantisation), so with more than one window a call a window's scores
depend on its batch-mates; at 1, the default, every score is a function of its own window alone,
and `nlp(text)`, `nlp.pipe` and any split of a text into calls agree exactly.
"""
from typing import Callable, List, Optional, Sequence

import numpy

from .export import INPUTS, OUTPUT
from .pieces import WordPieces
from .windows import central_windows, plan_windows


class BoundaryEncoder:
    """Scores words with an ONNX token classifier. `model` is the graph's bytes; `tokenizer_json`
    the tokenizer's `tokenizer.json` text; `threads` onnxruntime's intra-op threads (0: its own
    choice); `stride` the share of a window between two window starts (`windows.plan_windows`)."""

    def __init__(self, model: bytes, tokenizer_json: str, *, max_words: int = 96, max_pieces: int = 256,
                 max_word_pieces: int = 8, batch_size: int = 1, threads: int = 0, stride: float = 0.5) -> None:
        import onnxruntime

        for name, value, low in (("max_words", max_words, 1), ("max_pieces", max_pieces, 3),
                                 ("max_word_pieces", max_word_pieces, 1), ("batch_size", batch_size, 1),
                                 ("threads", threads, 0)):
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
        if sorted(names) != sorted(INPUTS) or [o.name for o in self.session.get_outputs()] != [OUTPUT]:
            raise ValueError(f"the ONNX graph takes {names} and gives "
                             f"{[o.name for o in self.session.get_outputs()]}, not {list(INPUTS)} → [{OUTPUT!r}]")
        self.max_words, self.max_pieces, self.batch_size, self.stride = max_words, max_pieces, batch_size, float(stride)

    def word_logits(self, words: Sequence[str]) -> numpy.ndarray:
        """(len(words),) float32: each word's logit of starting a sentence."""
        return self.many_logits([words])[0]

    def many_logits(self, texts: Sequence[Sequence[str]], *, progress: Optional[Callable[[int], None]] = None
                    ) -> List[numpy.ndarray]:
        """`word_logits` of each word sequence; windows of short texts share batches. `progress`,
        if given, is called with the number of windows done after each batch."""
        plans = []
        for t, words in enumerate(texts):
            ids, offsets = self.pieces.encode(words)
            spans = plan_windows(numpy.diff(offsets), self.max_words, self.max_pieces - 2, self.stride)
            plans.append((ids, offsets, spans, central_windows(spans, len(words))))
        work = [(t, k) for t, plan in enumerate(plans) for k in range(len(plan[2]))]
        outs = [numpy.zeros(len(words), dtype=numpy.float32) for words in texts]
        for b in range(0, len(work), self.batch_size):
            batch = work[b:b + self.batch_size]
            rows = [(plans[t][0], plans[t][1]) + plans[t][2][k] for t, k in batch]
            width = 2 + max(int(offsets[e] - offsets[s]) for _, offsets, s, e in rows)
            input_ids = numpy.full((len(batch), width), self.pieces.pad_id, dtype=numpy.int64)
            mask = numpy.zeros((len(batch), width), dtype=numpy.int64)
            for r, (ids, offsets, s, e) in enumerate(rows):
                m = int(offsets[e] - offsets[s])
                input_ids[r, 0] = self.pieces.cls_id
                input_ids[r, 1:m + 1] = ids[offsets[s]:offsets[e]]
                input_ids[r, m + 1] = self.pieces.sep_id
                mask[r, :m + 2] = 1
            logits = self.session.run([OUTPUT], {INPUTS[0]: input_ids, INPUTS[1]: mask})[0]
            for r, ((t, k), (ids, offsets, s, e)) in enumerate(zip(batch, rows)):
                mine = numpy.flatnonzero(plans[t][3][s:e] == k) + s
                if len(mine):
                    outs[t][mine] = logits[r, 1 + offsets[mine] - offsets[s]]
            if progress is not None:
                progress(len(batch))
        return outs
