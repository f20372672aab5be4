"""Running-text training documents written as DocBin shards: resumable, deterministic, bounded
memory.

`write_text_shards` streams `corpus.running_text` documents into `shard-00000.spacy`,
`shard-00001.spacy`, ... of about `shard_tokens` tokens each. A shard is closed only at a file
boundary, so which files go into which shard depends on the input alone: a rerun after an
interruption skips the files of the shards already written and writes the same bytes an
uninterrupted run would (each shard via a temporary file and a rename). `manifest.json` (srsly
JSON, rewritten atomically after each shard) records the settings, each shard's files and counts,
and the totals per folder (files, documents, tokens, words, sentences of the plain text).
"""
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

import numpy
import srsly
from spacy.attrs import SPACY
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from .record import DocRecord
from .running_text import (DEFAULT_MAX_TOKENS, SPACE, TextFile, TextInputError, as_tokenizer, iter_file_records,
                           iter_text_files, record_doc, variant_record)
from .variants import PUNCT, apply_variant

MANIFEST = "manifest.json"
SHARD_PATTERN = "shard-{:05d}.spacy"
DEFAULT_SHARD_TOKENS = 500_000
COUNT_FIELDS = ("files", "docs", "tokens", "words", "sentences")


@dataclass
class ShardSettings:
    """What determines the shards' contents: a rerun must use the same."""

    variants: List[str]
    max_tokens: int = DEFAULT_MAX_TOKENS
    shard_tokens: int = DEFAULT_SHARD_TOKENS
    layout: bool = True

    def to_json(self) -> Dict[str, Any]:
        return {"variants": list(self.variants), "max_tokens": self.max_tokens,
                "shard_tokens": self.shard_tokens, "layout": self.layout}


def _empty_counts() -> Dict[str, int]:
    return {k: 0 for k in COUNT_FIELDS}


def _count(rec: DocRecord, counts: Dict[str, int]) -> None:
    counts["docs"] += 1
    counts["tokens"] += sum(1 for u in rec.upos if u != SPACE)
    counts["words"] += sum(1 for u in rec.upos if u not in (SPACE, PUNCT))
    counts["sentences"] += sum(1 for s in rec.sent_starts if s)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_manifest(out_dir: Union[str, Path]) -> Optional[Dict[str, Any]]:
    path = Path(out_dir) / MANIFEST
    if not path.exists():
        return None
    try:
        return srsly.read_json(path)
    except ValueError as e:
        raise TextInputError(f"{path}: not a readable manifest ({e})") from e


def write_text_shards(paths: Sequence[Union[str, Path]], out_dir: Union[str, Path], *,
                      variants: Sequence[str] = ("plain",), max_tokens: int = DEFAULT_MAX_TOKENS,
                      shard_tokens: int = DEFAULT_SHARD_TOKENS, layout: bool = True,
                      root: Optional[Union[str, Path]] = None, allow_dev: bool = False, vocab: Optional[Vocab] = None,
                      progress: bool = True, on_shard: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """Write the documents of the `.txt` files under `paths` as DocBin shards in `out_dir`; return
    the manifest. Files already in a finished shard (a previous run with the same settings) are
    skipped. Raises `TextInputError` naming the file on unreadable input; shards written before it
    stay, listed in the manifest."""
    out = Path(out_dir)
    for v in variants:
        apply_variant(DocRecord("", [], [], [], [], [], [], [], [], []), v)
    settings = ShardSettings(list(variants), max_tokens, shard_tokens, layout)
    files = list(iter_text_files(paths, root=root, allow_dev=allow_dev))
    if not files:
        raise TextInputError(f"no .txt files under {', '.join(str(p) for p in paths)}")
    out.mkdir(parents=True, exist_ok=True)
    manifest = load_manifest(out)
    if manifest is None or not manifest.get("shards"):
        manifest = {"settings": settings.to_json(), "shards": [], "folders": {}, "files_done": 0, "complete": False}
    elif manifest.get("settings") != settings.to_json():
        raise TextInputError(f"{out / MANIFEST}: written with other settings ({manifest.get('settings')}); "
                             f"use another output folder or remove this one")
    done = [f for shard in manifest["shards"] for f in shard["files"]]
    names = [f.name for f in files]
    if names[:len(done)] != done:
        raise TextInputError(f"{out / MANIFEST}: its finished shards hold files that are not the first files of "
                             f"this input; use another output folder or remove this one")
    for shard in manifest["shards"]:
        if not (out / shard["name"]).exists():
            raise TextInputError(f"{out / shard['name']}: listed in the manifest but missing; remove {out}")
    todo = files[len(done):]
    tokenizer = as_tokenizer(vocab)
    bar = _progress(todo, progress)
    try:
        for group in _shard_groups(todo, tokenizer, settings, bar):
            index = len(manifest["shards"])
            name = SHARD_PATTERN.format(index)
            _write_atomic(out / name, group.docbin.to_bytes())
            manifest["shards"].append({"name": name, "files": [f.name for f in group.files],
                                       "docs": len(group.docbin), "tokens": group.tokens, "folders": group.folders})
            manifest["files_done"] = sum(len(s["files"]) for s in manifest["shards"])
            _write_atomic(out / MANIFEST, srsly.json_dumps(_with_totals(manifest), indent=2).encode("utf8"))
            if on_shard is not None:
                on_shard(name)
    finally:
        if bar is not None:
            bar.close()
    manifest["complete"] = True
    manifest = _with_totals(manifest)
    _write_atomic(out / MANIFEST, srsly.json_dumps(manifest, indent=2).encode("utf8"))
    return manifest


def _with_totals(manifest: Dict[str, Any]) -> Dict[str, Any]:
    folders: Dict[str, Dict[str, int]] = {}
    for shard in manifest["shards"]:
        for folder, counts in shard["folders"].items():
            acc = folders.setdefault(folder, _empty_counts())
            for k in COUNT_FIELDS:
                acc[k] += counts.get(k, 0)
    manifest["folders"] = dict(sorted(folders.items()))
    return manifest


@dataclass
class _Group:
    files: List[TextFile]
    docbin: DocBin
    tokens: int
    folders: Dict[str, Dict[str, int]]


SHARD_ATTRS = ["ORTH", "SENT_START"]
"""What a shard stores per token (with SPACY, always): the other attributes are lexical (NORM,
SHAPE, ...) or absent from these documents."""


def _new_group() -> _Group:
    return _Group([], DocBin(attrs=SHARD_ATTRS, store_user_data=True), 0, {})


def _docbin_add(docbin: DocBin, doc: Doc, words: List[str]) -> None:
    """`DocBin.add` for documents with only words, spaces and sentence starts: the same fields,
    without its per-token loop over tag, lemma, entity strings that these documents do not have
    (a third of the build's time). Pinned by the shards' read-back test."""
    array = doc.to_array(docbin.attrs)
    docbin.tokens.append(array.reshape((array.shape[0], len(docbin.attrs))))
    docbin.spaces.append(numpy.asarray(doc.to_array(SPACY), dtype=bool).reshape((len(doc), 1)))
    docbin.flags.append({"has_unknown_spaces": doc.has_unknown_spaces})
    docbin.strings.update(words)
    docbin.cats.append(doc.cats)
    docbin.user_data.append(srsly.msgpack_dumps(doc.user_data))
    docbin.span_groups.append(doc.spans.to_bytes())


def _shard_groups(files: List[TextFile], tokenizer, settings: ShardSettings, bar) -> Iterator[_Group]:
    """Shards' contents: whole files, closed once a shard holds `shard_tokens` tokens."""
    group = _new_group()
    for tf in files:
        counts = group.folders.setdefault(tf.folder, _empty_counts())
        counts["files"] += 1
        for _, rec in iter_file_records([tf], tokenizer, max_tokens=settings.max_tokens, layout=settings.layout):
            _count(rec, counts)
            for v in settings.variants:
                vrec = variant_record(rec, v)
                if vrec.words:
                    _docbin_add(group.docbin, record_doc(tokenizer.vocab, vrec, v), vrec.words)
                    group.tokens += len(vrec.words)
        group.files.append(tf)
        if bar is not None:
            bar.update(_size(tf))
            bar.set_postfix(shard=len(group.files), refresh=False)
        if group.tokens >= settings.shard_tokens:
            yield group
            group = _new_group()
    if group.files:
        yield group


def _size(tf: TextFile) -> int:
    try:
        return tf.path.stat().st_size
    except OSError:
        return 0


def _progress(files: List[TextFile], enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=sum(_size(f) for f in files), unit="B", unit_scale=True, desc="text docs", disable=None)


def shard_paths(out_dir: Union[str, Path]) -> List[Path]:
    """The shards of `out_dir` in order: those its manifest lists, else every `shard-*.spacy`."""
    out = Path(out_dir)
    manifest = load_manifest(out)
    if manifest is not None:
        return [out / s["name"] for s in manifest["shards"]]
    return sorted(out.glob("shard-*.spacy"))


def read_shards(out_dir: Union[str, Path], vocab: Vocab) -> Iterator[Doc]:
    """The Docs of the shards in `out_dir`, in order, one shard in memory at a time."""
    for path in shard_paths(out_dir):
        try:
            docbin = DocBin().from_bytes(path.read_bytes())
        except Exception as e:  # noqa: BLE001 - srsly/msgpack raise many types on foreign files
            raise TextInputError(f"{path}: not a readable DocBin ({type(e).__name__}: {e})") from e
        yield from docbin.get_docs(vocab)
