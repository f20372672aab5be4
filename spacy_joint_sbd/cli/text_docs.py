"""`text-docs SRC_DIR OUT_DIR`: running text → whole-document DocBin shards with derived boundaries."""
from pathlib import Path
from typing import Optional

import typer
from wasabi import msg

from ..corpus.running_text import DEFAULT_MAX_TOKENS
from ..corpus.text_shards import DEFAULT_SHARD_TOKENS, write_text_shards
from ._app import app
from ._util import split_list, user_errors


@app.command("text-docs")
def text_docs_cli(
    src_dir: Path = typer.Argument(..., help="folder of UTF-8 .txt files"),
    out_dir: Path = typer.Argument(..., help="folder for shard-NNNNN.spacy and manifest.json (a rerun resumes)"),
    include: Optional[str] = typer.Option(None, "--include", "-i",
                                          help="subfolders of SRC_DIR to read, comma-separated (default: all; "
                                               "'dev' folders are skipped)"),
    variants: str = typer.Option("plain", "--variants", "-v", help="plain, star, lower, nopunct; comma-separated"),
    max_tokens: int = typer.Option(DEFAULT_MAX_TOKENS, "--max-tokens",
                                   help="longest document, in tokens (0: whole files)"),
    shard_tokens: int = typer.Option(DEFAULT_SHARD_TOKENS, "--shard-tokens",
                                     help="tokens per shard (closed at a file end)"),
    allow_dev: bool = typer.Option(False, "--allow-dev", help="read 'dev' folders too (never for training)"),
    no_layout: bool = typer.Option(False, "--no-layout", help="join lines with a space instead of keeping line breaks"),
) -> None:
    """Turn punctuated running text into training documents: whole documents (cut at paragraphs)
    with sentence starts derived from punctuation and layout, in DocBin shards with a manifest."""
    with user_errors():
        if max_tokens < 0 or shard_tokens <= 0:
            raise ValueError("--max-tokens must be >= 0 and --shard-tokens > 0")
        names = split_list(include)
        paths = [src_dir / n for n in names] if names else [src_dir]
        manifest = write_text_shards(paths, out_dir, variants=split_list(variants) or ["plain"],
                                     max_tokens=max_tokens, shard_tokens=shard_tokens, layout=not no_layout,
                                     root=src_dir, allow_dev=allow_dev)
    for folder, c in manifest["folders"].items():
        msg.info(f"{folder or '.'}: {c['files']} files, {c['docs']} documents, {c['words']} words, "
                 f"{c['sentences']} sentences")
    msg.good(f"{out_dir}: {len(manifest['shards'])} shards")

