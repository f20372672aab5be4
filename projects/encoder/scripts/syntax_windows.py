"""Windows of treebank documents and running text for the multi-task fine-tuning (numpy only).

A treebank document (`prepare_syntax.py`) is cut anew each epoch into windows of at most
`window_words` words and `max_pieces` pieces, its first cut at a random offset so that words meet
the edges of windows at new places; a word's head is its head's first piece in the window (0: the
root, read at [CLS]), or unscored when the head lies outside the window. Running-text windows
(`prepare.py`) carry sentence starts only.
"""
import json
import math
import random
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import numpy


class Treebank:
    """A prepared treebank file: documents, and their windows for an epoch."""

    def __init__(self, path: Path, *, fold: Optional[int] = None, only_fold: bool = False) -> None:
        d = numpy.load(path)
        self.meta = json.loads(str(d["meta"]))
        for k in ("ids", "word_piece", "heads", "labels", "upos", "starts", "doc_words", "doc_pieces", "doc_fold"):
            setattr(self, k, d[k])
        n = len(self.doc_fold)
        if fold is None:
            self.docs = list(range(n))
        elif only_fold:
            self.docs = [i for i in range(n) if self.doc_fold[i] == fold]
        else:
            self.docs = [i for i in range(n) if self.doc_fold[i] != fold]
        self.words = int(sum(self.doc_words[i + 1] - self.doc_words[i] for i in self.docs))

    def piece_end(self, doc: int, w: int) -> int:
        """The global piece index where word `w` (global) begins, or the document's end."""
        return int(self.doc_pieces[doc + 1]) if w >= self.doc_words[doc + 1] else int(self.word_piece[w])

    def windows(self, window_words: int, max_pieces: int, rng: Optional[random.Random]) -> List[Tuple[int, int, int]]:
        """[(doc, first word, end word)] covering every word once; with `rng` the first cut of a
        long document is at a random offset, else at `window_words`."""
        out = []
        for d in self.docs:
            a, b = int(self.doc_words[d]), int(self.doc_words[d + 1])
            cut = a + (rng.randrange(1, window_words + 1) if rng is not None and b - a > window_words else window_words)
            s = a
            while s < b:
                e = min(b, cut if cut > s else s + window_words)
                while e > s + 1 and self.piece_end(d, e) - int(self.word_piece[s]) > max_pieces:
                    e = s + max(1, (e - s) * 3 // 4)
                out.append((d, s, e))
                s = e
                if s >= cut:
                    cut = s + window_words
        return out

    def window(self, d: int, a: int, b: int) -> Dict[str, numpy.ndarray]:
        pa, pb = int(self.word_piece[a]), self.piece_end(d, b)
        m = pb - pa + 2
        first = 1 + self.word_piece[a:b] - pa
        boundary = numpy.full(m, -1.0, dtype=numpy.float32)
        boundary[first] = self.starts[a:b]
        boundary[boundary < 0] = -1.0
        heads = numpy.full(m, -1, dtype=numpy.int64)
        h = self.heads[a:b].astype(numpy.int64) + int(self.doc_words[d])
        root = self.heads[a:b] < 0
        inside = (h >= a) & (h < b)
        target = numpy.where(root, 0, numpy.where(inside, 1 + self.word_piece[numpy.clip(h, a, b - 1)] - pa, -1))
        heads[first] = target
        labels = numpy.full(m, -1, dtype=numpy.int64)
        labels[first] = self.labels[a:b]
        upos = numpy.full(m, -1, dtype=numpy.int64)
        upos[first] = self.upos[a:b]
        cand = numpy.zeros(m, dtype=bool)
        cand[0] = True
        cand[first] = True
        return {"pieces": self.ids[pa:pb], "boundary": boundary, "heads": heads, "labels": labels,
                "upos": upos, "candidates": cand, "words": b - a}


class TextWindows:
    """`prepare.py`'s running-text windows: sentence starts only."""

    def __init__(self, path: Path) -> None:
        d = numpy.load(path)
        self.ids, self.labels, self.starts = d["ids"], d["labels"], d["starts"]
        self.n = len(self.starts) - 1

    def window(self, k: int) -> Dict[str, numpy.ndarray]:
        a, b = int(self.starts[k % self.n]), int(self.starts[k % self.n + 1])
        m = b - a + 2
        boundary = numpy.full(m, -1.0, dtype=numpy.float32)
        boundary[1:m - 1] = self.labels[a:b]
        cand = numpy.zeros(m, dtype=bool)
        cand[0] = True
        none = numpy.full(m, -1, dtype=numpy.int64)
        return {"pieces": self.ids[a:b], "boundary": boundary, "heads": none, "labels": none, "upos": none,
                "candidates": cand, "words": int((self.labels[a:b] >= 0).sum())}


def collate(rows: List[Dict[str, numpy.ndarray]], pad_id: int, cls_id: int, sep_id: int) -> Dict[str, numpy.ndarray]:
    """One padded batch of windows: `ids`, `mask`, `boundary`, `heads` (the head's piece; 0 the
    root; −1 unscored), `labels`, `upos`, `candidates` (B, T)."""
    width = max(len(r["boundary"]) for r in rows)
    b = len(rows)
    out = {"ids": numpy.full((b, width), pad_id, dtype=numpy.int64), "mask": numpy.zeros((b, width), dtype=numpy.int64),
           "boundary": numpy.full((b, width), -1.0, dtype=numpy.float32),
           "heads": numpy.full((b, width), -1, dtype=numpy.int64), "labels": numpy.full((b, width), -1, dtype=numpy.int64),
           "upos": numpy.full((b, width), -1, dtype=numpy.int64), "candidates": numpy.zeros((b, width), dtype=bool)}
    for i, r in enumerate(rows):
        m = len(r["boundary"])
        out["ids"][i, 0], out["ids"][i, 1:m - 1], out["ids"][i, m - 1] = cls_id, r["pieces"], sep_id
        out["mask"][i, :m] = 1
        for k in ("boundary", "heads", "labels", "upos", "candidates"):
            out[k][i, :m] = r[k]
    return out


def plan(tb: Treebank, text: Optional[TextWindows], epochs: int, batch: int, text_share: float, seed: int,
         window_words: int, max_pieces: int) -> Tuple[int, int, Iterator]:
    """(treebank windows per batch, steps in all, an iterator of (step, epoch, rows) from step 0)."""
    n_text = int(round(batch * text_share)) if text is not None else 0
    n_tb = max(1, batch - n_text)

    def epoch_windows(e: int):
        rng = random.Random(seed * 1000 + e)
        wins = tb.windows(window_words, max_pieces, rng)
        rng.shuffle(wins)
        return wins

    counts = [math.ceil(len(epoch_windows(e)) / n_tb) for e in range(epochs)]

    def stream():
        step = 0
        for e in range(epochs):
            wins = epoch_windows(e)
            for k in range(0, len(wins), n_tb):
                yield step, e, wins[k:k + n_tb], list(range(step * n_text, (step + 1) * n_text))
                step += 1

    return n_tb, sum(counts), stream()
