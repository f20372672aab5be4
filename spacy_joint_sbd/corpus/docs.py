"""`DocRecord` ⇄ `spacy.tokens.Doc`: gold documents for training, and predictions back to records."""
from typing import Optional

from spacy.tokens import Doc
from spacy.vocab import Vocab

from .labels import from_spacy_dep
from .record import ROOT, DocRecord

DOC_ID_KEY = "doc_id"
"""Key of the document id in `Doc.user_data` (kept by `DocBin(store_user_data=True)`)."""


def doc_name(doc: Doc) -> str:
    """How error messages and warnings name `doc`: `document 'ID'` by its `DOC_ID_KEY` id, or
    `document 'FIRST 40 CHARACTERS'` of its text when it has none (e.g. a Doc made from text)."""
    doc_id = doc.user_data.get(DOC_ID_KEY) if doc.user_data else None
    return f"document {str(doc_id)!r}" if doc_id else f"document {doc.text[:40]!r}"


def record_to_doc(vocab: Vocab, rec: DocRecord, *, annotations: bool = True) -> Doc:
    """A Doc with the record's gold tokens and spaces, and (if `annotations`) its gold tags, POS,
    lemmas, morphology, heads, labels and sentence starts. Without annotations: only the tokens —
    what a pipeline may see at prediction time."""
    if not annotations:
        doc = Doc(vocab, words=rec.words, spaces=rec.spaces)
    else:
        heads = [i if h == ROOT else h for i, h in enumerate(rec.heads)]
        every_upos = all(rec.upos)  # spaCy takes no gaps in `pos`: partial UPOS is set afterwards
        doc = Doc(
            vocab,
            words=rec.words,
            spaces=rec.spaces,
            tags=[t or None for t in rec.xpos] if any(rec.xpos) else None,  # e.g. ATIS has no XPOS
            pos=list(rec.upos) if every_upos else None,
            lemmas=list(rec.lemmas),
            morphs=list(rec.feats),
            heads=heads,
            deps=rec.deps,
        )
        if not every_upos and any(rec.upos):  # e.g. running text: PUNCT on marks, nothing else
            for token, upos in zip(doc, rec.upos):
                if upos:
                    token.pos_ = upos
    doc.user_data[DOC_ID_KEY] = rec.doc_id
    return doc


def doc_to_record(doc: Doc, doc_id: Optional[str] = None) -> DocRecord:
    """A record of the Doc's annotation. Without a parse, every token is its own root (head -1)."""
    has_dep = doc.has_annotation("DEP")
    heads = [(ROOT if t.head.i == t.i else t.head.i) if has_dep else ROOT for t in doc]
    deps = [from_spacy_dep(t.dep_) if has_dep else "" for t in doc]
    if doc.has_annotation("SENT_START") or has_dep:
        starts = [i == 0 or bool(t.is_sent_start) for i, t in enumerate(doc)]
    else:
        starts = [i == 0 for i in range(len(doc))]
    return DocRecord(
        doc_id=doc_id if doc_id is not None else str(doc.user_data.get(DOC_ID_KEY, "")),
        words=[t.text for t in doc],
        spaces=[bool(t.whitespace_) for t in doc],
        lemmas=[t.lemma_ for t in doc],
        upos=[t.pos_ for t in doc],
        xpos=[t.tag_ for t in doc],
        feats=[str(t.morph) for t in doc],
        heads=heads,
        deps=deps,
        sent_starts=starts,
    )

