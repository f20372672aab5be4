"""Raw text in, sentences out: character offsets that index the input exactly, in bounded memory.

`segment_text(nlp, text)` splits one text; `segment_stream(nlp, stream)` reads a text stream of any
length in windows of about `window_chars` characters and at most `window_tokens` tokens. A window
is cut at whitespace; its sentences are emitted except the last, which (with the rest of the
window) is carried into the next window and parsed again with what follows, so no sentence is cut
at a window edge. The stream is read one chunk ahead, so the last window holds all the text that
is left: a text that fits in one window is parsed whole, exactly as `nlp(text)` parses it (without
the look-ahead its last sentence was parsed a second time on its own, without the context and the
punctuation regime of the text before it). Only a single sentence longer than
`max_carry_chars` characters or `window_tokens` tokens is cut (and counted in
`SegmentStats.forced_cuts`), which bounds the memory of the parse on text with no boundary at all;
a cut is no boundary: the part before it is joined with the sentence that goes on after it, so
the stream gives the sentences `nlp(text)` gives there (one, on text with no boundary at all).
Text without whitespace is cut between tokens, never inside one: a single word is read on to its
end, up to `nlp.max_length` characters (nlp(text) takes no more); only a sentence longer than that
stays cut.

Memory follows the tokens of the window being parsed (the pipeline's layers keep a few KB per
token while a Doc goes through them), so the window is bounded in tokens as well as characters:
text of one-letter words has twice as many tokens per character as prose.

Offsets are Python string indices into the decoded text: `text[s.start_char:s.end_char] == s.text`.
Whitespace-only tokens at a sentence's edges are not part of the sentence; a sentence of whitespace
alone is not reported.
"""
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, TextIO, Tuple

import numpy
from spacy.attrs import IDX, IS_SPACE, LENGTH
from spacy.language import Language
from spacy.tokens import Doc, Token

from .corpus.labels import from_spacy_dep

DEFAULT_WINDOW_CHARS = 20_000
"""Characters read at a time (about 4,500 tokens of prose). On 1 MB of books with `en_joint_sbd`:
200,000 peaked at 1.06 GB and took 71 s, 20,000 at 0.40 GB and 51 s (the 2-core VM): a whole-
document parse gains nothing from windows longer than a few sentences."""
DEFAULT_WINDOW_TOKENS = 8_000
"""Tokens parsed at a time at most (`segment_stream`), whatever the characters per token."""


@dataclass
class Sentence:
    """One sentence of a source: `text == input[start_char:end_char]` (Python string offsets into
    the decoded input), whitespace at its edges left out."""

    source: str
    start_char: int
    end_char: int
    text: str
    tokens: Optional[List[Dict[str, Any]]] = None
    """With a parse: per token its text, offsets, head (index within the sentence, -1 for the
    root), dependency label and tag."""
    probs: Optional[List[Optional[float]]] = field(default=None, compare=False)
    """With a parse: `token._.sent_start_prob` of each of `tokens` (None where the pipeline sets none)."""
    after: Optional[str] = field(default=None, compare=False)
    """With a parse: the text between the sentence and the next one (whitespace; to the end of the
    text parsed for the last). Neither this nor `probs` is in `to_dict`."""
    before: Optional[str] = field(default=None, compare=False)
    """With a parse, on the first sentence of a text (or of a window): the text before it
    (whitespace), so that `before`, each sentence's text and `after` give the input whole."""

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"source": self.source, "start_char": self.start_char, "end_char": self.end_char,
                               "text": self.text}
        if self.tokens is not None:
            out["tokens"] = self.tokens
        return out


@dataclass
class SegmentStats:
    """What a run did: sentences written, characters consumed, windows parsed, forced cuts, and
    counts a caller adds (`extra`, e.g. `skipped` inputs)."""

    sentences: int = 0
    characters: int = 0
    windows: int = 0
    forced_cuts: int = 0
    """Windows cut inside a sentence because one sentence exceeded `max_carry_chars` characters
    or `window_tokens` tokens."""
    extra: Dict[str, int] = field(default_factory=dict)


def check_positive(name: str, value) -> None:
    """A ValueError naming the setting unless `value` is a positive int: one check, one message
    for `segment_stream`, `segment_texts` and the `segment` command's options."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def doc_sentences(doc: Doc, source: str = "", offset: int = 0, with_parse: bool = False,
                  text: Optional[str] = None) -> List[Sentence]:
    """The sentences of a processed Doc, offsets shifted by `offset` (the Doc's place in its source).

    `text`: the Doc's text, where the caller has it (spaCy rebuilds `Doc.text` from every token on
    each access: 7% of `segment`'s time on books). Each sentence's edges are found from one array of
    the Doc's whitespace flags, offsets and lengths, without a Token object per word."""
    out: List[Sentence] = []
    if len(doc) == 0:
        return out
    if text is None:
        text = doc.text
    elif doc[-1].idx + len(doc[-1].text_with_ws) != len(text):
        raise ValueError(f"doc_sentences: the text given has {len(text)} characters, the Doc "
                         f"{doc[-1].idx + len(doc[-1].text_with_ws)}")
    has_parse = with_parse and doc.has_annotation("DEP")
    cols = doc.to_array([IS_SPACE, IDX, LENGTH]).astype(numpy.int64)
    solid = numpy.flatnonzero(cols[:, 0] == 0)  # the tokens that are not whitespace
    spans = [(sent.start, sent.end) for sent in doc.sents]
    bounds = numpy.asarray(spans, dtype=numpy.int64).reshape(-1, 2)
    firsts = numpy.searchsorted(solid, bounds[:, 0]).tolist()
    lasts = (numpy.searchsorted(solid, bounds[:, 1]) - 1).tolist()
    idx, length, solid_list = cols[:, 1].tolist(), cols[:, 2].tolist(), solid.tolist()
    has_probs = with_parse and Token.has_extension("sent_start_prob")
    for a, b in zip(firsts, lasts):
        if a > b:  # whitespace alone
            continue
        first, last = solid_list[a], solid_list[b]
        start, end = idx[first], idx[last] + length[last]
        tokens = None
        if with_parse:
            tokens = [{"text": t.text, "start_char": offset + t.idx, "end_char": offset + t.idx + len(t.text),
                       "head": (t.head.i - first if t.head.i != t.i else -1) if has_parse else None,
                       "dep": from_spacy_dep(t.dep_) if has_parse else None, "tag": t.tag_ or None}
                      for t in doc[first:last + 1]]
        probs = [t._.sent_start_prob for t in doc[first:last + 1]] if has_probs else None
        out.append(Sentence(source, offset + start, offset + end, text[start:end], tokens, probs))
    if with_parse and out:  # the whitespace around each sentence, up to the next (the page shows the text whole)
        out[0].before = text[:out[0].start_char - offset]
        for s, nxt in zip(out, out[1:] + [None]):
            s.after = text[s.end_char - offset:len(text) if nxt is None else nxt.start_char - offset]
    return out


def segment_text(nlp: Language, text: str, source: str = "", with_parse: bool = False) -> List[Sentence]:
    """Sentences of one text that fits in memory (and in `nlp.max_length`)."""
    return doc_sentences(nlp(text), source, 0, with_parse, text=text)


def _cut_at_space(text: str) -> int:
    """The index after the last whitespace run of `text` (0 if it has none)."""
    for i in range(len(text) - 1, -1, -1):
        if text[i].isspace():
            return i + 1
    return 0


def _last_token_start(nlp: Language, text: str) -> int:
    """Where the last token of `text` (which has no whitespace) starts: 0 when it is one token."""
    doc = nlp.make_doc(text)
    return doc[-1].idx if len(doc) else 0


def _token_cut(nlp: Language, window: str, window_tokens: int) -> Tuple[Doc, int]:
    """The window tokenized, and where to cut it so that it keeps at most `window_tokens` tokens:
    at the last whitespace before the first token past the limit (at that token when the text has
    no whitespace there); `len(window)` when it fits."""
    doc = nlp.make_doc(window)
    if len(doc) <= window_tokens:
        return doc, len(window)
    edge = doc[window_tokens].idx
    cut = _cut_at_space(window[:edge]) or edge
    return nlp.make_doc(window[:cut]), cut


def segment_stream(nlp: Language, stream: TextIO, source: str = "", with_parse: bool = False,
                   window_chars: int = DEFAULT_WINDOW_CHARS, max_carry_chars: Optional[int] = None,
                   stats: Optional[SegmentStats] = None,
                   window_tokens: int = DEFAULT_WINDOW_TOKENS) -> Iterator[Sentence]:
    """Sentences of a text stream of any length, in order, in bounded memory (see module doc)."""
    check_positive("window_chars", window_chars)
    check_positive("window_tokens", window_tokens)
    if max_carry_chars is not None:
        check_positive("max_carry_chars", max_carry_chars)
    max_carry = max_carry_chars if max_carry_chars is not None else 4 * window_chars
    if max_carry > nlp.max_length:
        max_carry = nlp.max_length
    stats = stats if stats is not None else SegmentStats()
    buffer, offset, eof = "", 0, False
    piece: Optional[Sentence] = None  # the part of a sentence before a forced cut: joined with what follows
    piece_gap = ""  # the text after it to the cut
    one_word = False  # the text since the last whitespace is one token longer than max_carry
    ahead = stream.read(window_chars)  # read one chunk ahead: the end is known before it is parsed
    while True:
        if not eof:
            buffer += ahead
            ahead = stream.read(window_chars) if ahead else ""
            eof = ahead == ""
        if not eof:
            cut = _cut_at_space(buffer)
            if cut == 0:  # no whitespace yet: read on (bounded by max_carry), then cut between tokens
                if len(buffer) < max_carry or (one_word and len(buffer) < nlp.max_length):
                    continue
                cut = 0 if buffer.isalnum() else _last_token_start(nlp, buffer)  # letters alone: one word
                if cut == 0 and len(buffer) < nlp.max_length:
                    one_word = True  # a cut would split it, as nlp(text) never does: read on to its end
                    continue
                cut = cut or len(buffer)
            one_word = False
            window, rest = buffer[:cut], buffer[cut:]
        else:
            window, rest = buffer, ""
        doc, cut = _token_cut(nlp, window, window_tokens)
        full = cut < len(window)  # as many tokens as a window may hold: no more text can join
        if full:
            window, rest = window[:cut], window[cut:] + rest
        last = eof and not rest
        stats.windows += 1
        sents = doc_sentences(nlp(doc), source, offset, with_parse, text=window)
        forced = False
        if last:
            keep, carry_from = sents, len(window)
        elif len(sents) > 1:
            keep, carry_from = sents[:-1], sents[-1].start_char - offset
        elif not full and len(window) < min(window_chars, max_carry):
            keep, carry_from = [], 0  # one unfinished sentence in a short window: parse it again with more text
        else:  # one sentence as long as a window: cut, and joined again below (parsing it again costs more)
            keep, carry_from, forced = sents, len(window), True
            stats.forced_cuts += 1
        if piece is not None and keep:  # the window starts inside the piece's sentence: its first one goes on
            keep = [_join(piece, piece_gap + window[:keep[0].start_char - offset], keep[0])] + keep[1:]
            piece = None
        if forced and keep:
            piece = keep.pop()
            piece_gap = window[piece.end_char - offset:]
            if piece.end_char - piece.start_char + len(piece_gap) >= nlp.max_length:
                keep.append(piece)  # longer than nlp(text) takes: the cut stays
                piece = None
        for s in keep:
            stats.sentences += 1
            yield s
        stats.characters += carry_from
        if last:  # the last window was the whole remainder
            break
        buffer = window[carry_from:] + rest
        offset += carry_from
    if piece is not None:  # the stream ended at the cut
        stats.sentences += 1
        yield piece


def _join(piece: Sentence, gap: str, nxt: Sentence) -> Sentence:
    """One sentence of `piece` (cut at a window's end), the text `gap` after it and `nxt` (the next
    window's first): the tokens of both, `nxt`'s roots attached to `piece`'s first root as `dep`
    (one tree per sentence, as CoNLL-U wants; the label says no more than that they are joined)."""
    tokens = None
    if piece.tokens is not None and nxt.tokens is not None:
        base = len(piece.tokens)
        root = next((i for i, t in enumerate(piece.tokens) if t["head"] == -1), None)
        tokens = list(piece.tokens)
        for t in nxt.tokens:
            t = dict(t)
            if t["head"] is not None:
                if t["head"] >= 0:
                    t["head"] += base
                elif root is not None:
                    t["head"], t["dep"] = root, "dep"
            tokens.append(t)
    probs = None if piece.probs is None or nxt.probs is None else piece.probs + nxt.probs
    return Sentence(piece.source, piece.start_char, nxt.end_char, piece.text + gap + nxt.text, tokens, probs,
                    nxt.after, piece.before)


def segment_texts(nlp: Language, items: Iterable[Tuple[str, str]], with_parse: bool = False,
                  batch_size: int = 64, n_process: int = 1) -> Iterator[Tuple[str, List[Sentence]]]:
    """(source, text) pairs of texts that fit in one Doc, processed in batches (`nlp.pipe`).

    Closed before its end (the caller stopped reading: an error, a signal), it kills its worker
    processes first: spaCy's own close waits for each worker, and a worker sending a batch nobody
    reads never ends (every worker holds the reading end of every result pipe)."""
    check_positive("batch_size", batch_size)
    check_positive("n_process", n_process)
    docs = nlp.pipe(((text, (source, text)) for source, text in items), as_tuples=True, batch_size=batch_size,
                    n_process=n_process)
    finished = False
    try:
        for doc, (source, text) in docs:
            yield source, doc_sentences(doc, source, 0, with_parse, text=text)
        finished = True
    finally:
        if not finished and n_process > 1:
            from .textio.runner import end_workers  # not at the top: textio imports this module

            end_workers()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # spaCy's W127: the workers did not complete (they were ended)
                docs.close()
