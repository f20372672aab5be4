"""Write predicted documents as CoNLL-U: one sentence per predicted sentence, heads renumbered
within it, `# newdoc id` kept.

CoNLL-U needs exactly one root per sentence and no head outside the sentence. A prediction that
breaks this (a segmenter without a parser makes every token a root; a head may cross a boundary
set by a later component) is written as a valid tree: the sentence's first root stays the root,
every other root and every token whose head lies outside the sentence attaches to it, with label
`dep`. Such tokens are marked `Repaired=Yes` in MISC so nothing is silent.
"""
import os
import secrets
from pathlib import Path
from typing import Iterable, List, TextIO, Union

from .record import ROOT, DocRecord


def _field(value: str) -> str:
    return value if value else "_"


def sentence_lines(rec: DocRecord, start: int, end: int, sent_no: int) -> List[str]:
    roots = [i for i in range(start, end) if rec.heads[i] == ROOT or not (start <= rec.heads[i] < end)]
    true_roots = [i for i in roots if rec.heads[i] == ROOT]
    root = true_roots[0] if true_roots else roots[0] if roots else start
    text = "".join(rec.words[i] + (" " if rec.spaces[i] and i + 1 < end else "") for i in range(start, end))
    lines = [f"# sent_id = {rec.doc_id}-{sent_no:04d}" if rec.doc_id else f"# sent_id = {sent_no}",
             f"# text = {text}"]
    for i in range(start, end):
        misc = []
        h = rec.heads[i]
        dep = rec.deps[i] if rec.deps[i] else "dep"
        if i == root:
            head, dep = 0, "root"  # UD: head 0 if and only if deprel root
            if h != ROOT:
                misc.append("Repaired=Yes")
        elif h == ROOT or not (start <= h < end):
            head, dep = root - start + 1, "dep"
            misc.append("Repaired=Yes")
        else:
            head = h - start + 1
        if not rec.spaces[i]:
            misc.append("SpaceAfter=No")
        cols = [str(i - start + 1), rec.words[i], _field(rec.lemmas[i]), _field(rec.upos[i]), _field(rec.xpos[i]),
                _field(rec.feats[i]), str(head), dep, "_", "|".join(misc) if misc else "_"]
        lines.append("\t".join(cols))
    return lines


def write_records(records: Iterable[DocRecord], out: TextIO) -> None:
    for rec in records:
        out.write(f"# newdoc id = {rec.doc_id}\n")
        for k, (s, e) in enumerate(rec.sentences(), start=1):
            out.write("\n".join(sentence_lines(rec, s, e, k)) + "\n\n")


def write_conllu(records: Iterable[DocRecord], path: Union[str, Path]) -> None:
    """Write atomically: a failure leaves no half-written file behind, and two writers of the same
    path never share the temporary file (its name carries the process id and a random part)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        with tmp.open("w", encoding="utf8") as f:
            write_records(records, f)
        tmp.replace(path)
    finally:
        if tmp.exists():
            tmp.unlink()
