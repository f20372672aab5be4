"""Whitespace tokens in whole-document mode (issue 13): left out of the engine, attached afterwards.

spaCy's tokenizer emits whitespace tokens ("\n", runs of spaces; `token.is_space`). The engine
never sees them: it parses the words only, so no whitespace token can head a word or take part in
a move, and `SpacePlan` puts them back into the parse by fixed rules. (The alternative, a per-token
space flag in the validity of SB / LEFTARC / RIGHTARC, would add dead-end states to the transition
system and change the features of the words around each space.)
"""
import numpy

from ..transition import Parse


class SpacePlan:
    """How whitespace tokens (`token.is_space`: "\n", runs of spaces) of a Doc are handled in
    whole-document mode: the engine parses the other tokens only, and each whitespace token is
    attached afterwards, so that it never heads a word and starts a sentence only when forced.

    For each maximal run of whitespace tokens between words p (before) and j (after):
    - no token of the run is forced (is_sent_start True; token 0 counts as forced): the run
      belongs to p's sentence and every token of it attaches to p;
    - tokens before the run's first forced token attach to p; each forced token f starts a
      sentence that runs to the next forced token. The last one joins j's sentence (its tokens
      attach to j, the boundary moves from j to f, and j is forced in the engine) unless j is
      forced itself or there is no j: then, like the earlier ones, it is a sentence of whitespace
      only, rooted at f (the rest attach to f).
    Whitespace tokens get the label `dep` (`SPACE_LABEL`) and probability 1.0 / 0.0 of starting a
    sentence as they do / do not.
    """

    def __init__(self, presets: numpy.ndarray, space: numpy.ndarray):
        n = len(presets)
        self.n = n
        self.keep = numpy.flatnonzero(~space)
        self.space = space
        self.heads = numpy.full((n,), -1, dtype=numpy.int64)  # of whitespace tokens (doc index)
        self.starts = numpy.zeros((n,), dtype=bool)            # of whitespace tokens
        self.unstart = []                                      # words whose boundary moves left
        word_presets = presets.copy()
        i = 0
        while i < n:
            if not space[i]:
                i += 1
                continue
            a = i
            while i < n and space[i]:
                i += 1
            b = i
            p = a - 1 if a > 0 else None
            j = b if b < n else None
            forced = [k for k in range(a, b) if presets[k] == 1 or k == 0]
            first = forced[0] if forced else b
            self.heads[a:first] = p if p is not None else -1
            for x, f in enumerate(forced):
                end = forced[x + 1] if x + 1 < len(forced) else b
                self.starts[f] = True
                if x == len(forced) - 1 and j is not None and presets[j] != 1:
                    self.heads[f:end] = j
                    self.unstart.append(j)
                    word_presets[j] = 1
                else:
                    self.heads[f:end] = f
                    self.heads[f] = -1
        self.word_presets = word_presets[self.keep]
        if len(self.word_presets):
            self.word_presets[0] = 1

    def expand(self, parse: Parse) -> Parse:
        """A parse of the words only → a parse of the whole Doc (label -1 = `SPACE_LABEL`)."""
        n, keep = self.n, self.keep
        heads = numpy.full((n,), -1, dtype=numpy.int32)
        labels = numpy.full((n,), -1, dtype=numpy.int32)
        starts = numpy.zeros((n,), dtype=bool)
        probs = numpy.zeros((n,), dtype=numpy.float64)
        word_heads = numpy.asarray(parse.heads)
        heads[keep] = numpy.where(word_heads >= 0, keep[numpy.maximum(word_heads, 0)], -1) if len(keep) else []
        labels[keep] = parse.labels
        starts[keep] = parse.sent_starts
        if parse.sent_start_probs is not None:
            probs[keep] = parse.sent_start_probs
        sp = self.space
        heads[sp] = self.heads[sp]
        starts[sp] = self.starts[sp]
        probs[sp] = self.starts[sp].astype(numpy.float64)
        for j in self.unstart:
            starts[j] = False
            probs[j] = 0.0
        if n:
            starts[0] = True
            probs[0] = 1.0
        return Parse(heads, labels, starts, probs)


SPACE_LABEL = "dep"
"""The label of every whitespace token's arc (as spaCy's parser gives to attached whitespace)."""
