"""Corpus variants of bjorkelund2016 §5: `plain`, `star` (speech-like) and `nosyntax` (trivial trees),
the partial variants `lower` (lower-cased only) and `nopunct` (punctuation removed only) that stand
for partly normalised text such as ASR output, and the GUM genre filter."""
from dataclasses import replace
from typing import Callable, Dict, Iterable, List

from .record import ROOT, DocRecord

SPOKEN_GENRES = ("conversation", "interview", "podcast", "speech", "vlog")
"""GUM genres transcribed from speech; `spoken` in a genre list stands for all of them."""

PUNCT = "PUNCT"


def plain(rec: DocRecord) -> DocRecord:
    return rec


def star(rec: DocRecord) -> DocRecord:
    """Lower-case every word and remove every UPOS=PUNCT token ("WSJ*" of the paper)."""
    return normalise(rec, lowercase=True, drop_punct=True)


def lower(rec: DocRecord) -> DocRecord:
    """Lower-case every word; punctuation and trees unchanged."""
    return normalise(rec, lowercase=True, drop_punct=False)


def nopunct(rec: DocRecord) -> DocRecord:
    """Remove every UPOS=PUNCT token (as `star`), keeping the case of the words."""
    return normalise(rec, lowercase=False, drop_punct=True)


def normalise(rec: DocRecord, lowercase: bool, drop_punct: bool) -> DocRecord:
    """The text normalisations of a speech transcript: lower-casing and/or punctuation removal.

    A removed token's dependents re-attach to its nearest surviving ancestor. If a sentence's root
    is removed, its first surviving dependent becomes the root and the others attach to it, so each
    sentence keeps exactly one root. Sentence boundaries are kept; a sentence of only punctuation
    disappears. A surviving token is followed by a space if any token in the removed gap was.
    """
    n = len(rec.words)
    keep = [not (drop_punct and rec.upos[i] == PUNCT) for i in range(n)]
    heads = list(rec.heads)
    for s, e in rec.sentences():
        for i in range(s, e):
            if not keep[i]:
                continue
            h = heads[i]
            while h != ROOT and not keep[h]:
                h = rec.heads[h]
            heads[i] = h
        roots = [i for i in range(s, e) if keep[i] and heads[i] == ROOT]
        if len(roots) > 1:
            # Only happens when the gold root was punctuation: its first surviving dependent rules.
            for i in roots[1:]:
                heads[i] = roots[0]
    new_index = [-1] * n
    k = 0
    for i in range(n):
        if keep[i]:
            new_index[i] = k
            k += 1
    out = DocRecord(rec.doc_id, [], [], [], [], [], [], [], [], [], source=rec.source)
    for s, e in rec.sentences():
        kept = [i for i in range(s, e) if keep[i]]
        if not kept:
            continue
        for j, i in enumerate(kept):
            out.words.append(rec.words[i].lower() if lowercase else rec.words[i])
            nxt = kept[j + 1] if j + 1 < len(kept) else e
            out.spaces.append(any(rec.spaces[i:nxt]) if nxt > i + 1 else rec.spaces[i])
            out.lemmas.append(rec.lemmas[i])
            out.upos.append(rec.upos[i])
            out.xpos.append(rec.xpos[i])
            out.feats.append(rec.feats[i])
            out.heads.append(ROOT if heads[i] == ROOT else new_index[heads[i]])
            out.deps.append(rec.deps[i])
            out.sent_starts.append(j == 0)
    # Sentence metadata (line numbers, ids) follow the surviving sentences.
    for idx, (s, e) in enumerate(rec.sentences()):
        if any(keep[s:e]):
            if idx < len(rec.sent_lines):
                out.sent_lines.append(rec.sent_lines[idx])
            if idx < len(rec.sent_ids):
                out.sent_ids.append(rec.sent_ids[idx])
            out.texts.append(None)
    return out


def nosyntax(rec: DocRecord) -> DocRecord:
    """The trivial trees of bjorkelund2016 §5: the last token of each sentence is the root, every
    other token attaches to the token after it, label `dep`."""
    heads: List[int] = []
    for s, e in rec.sentences():
        heads.extend(range(s + 1, e))
        heads.append(ROOT)
    return replace(rec, heads=heads, deps=["dep"] * len(rec.words))


VARIANTS: Dict[str, Callable[[DocRecord], DocRecord]] = {
    "plain": plain, "star": star, "lower": lower, "nopunct": nopunct, "nosyntax": nosyntax,
}


def apply_variant(rec: DocRecord, variant: str) -> DocRecord:
    if variant not in VARIANTS:
        raise ValueError(f"unknown corpus variant {variant!r}; choose from {', '.join(VARIANTS)}")
    return VARIANTS[variant](rec)


def doc_genre(doc_id: str) -> str:
    """GUM document ids are `GUM_<genre>_<name>`; other corpora have no genre ("")."""
    parts = doc_id.split("_")
    return parts[1] if len(parts) >= 3 and parts[0] == "GUM" else ""


def expand_genres(genres: Iterable[str]) -> set:
    out = set()
    for g in genres:
        out.update(SPOKEN_GENRES if g == "spoken" else (g,))
    return out


def genre_filter(records: Iterable[DocRecord], genres: Iterable[str]) -> List[DocRecord]:
    wanted = expand_genres(genres)
    return [r for r in records if doc_genre(r.doc_id) in wanted]
