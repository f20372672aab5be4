"""Pack what fine-tuning needs into a few small files, for a machine that gets only a small
upload (an accelerator lent for minutes), and unpack them there.

    python scripts/pack.py pack PACK_DIR --base assets/base --windows corpus/windows_s0.npz \
        [--dev corpus/dev_windows.npz]
    python scripts/pack.py unpack PACK_DIR OUT_DIR        # OUT_DIR/base/, OUT_DIR/windows.npz, ...

- The pretrained weights: every matrix as int8 with one float32 scale per row (symmetric,
  round to nearest), vectors as float32 (`base.npz`, about a quarter of the float32 file); unpacked
  to float32 `model.safetensors` beside `config.json` and `tokenizer.json`. Fine-tuning starts
  from these rounded weights (rows keep 8 bits of their range; the task's head is new anyway).
- Windows: the piece ids with the sentence-start label in the top bit (ids < 32,768), a bit per
  piece saying whether it opens a word, and the window lengths, xz-compressed (`windows.xz`;
  4 M words ≈ 5 MB).

`half` stores a snapshot's float32 tensors as float16 (half the bytes to bring back); `split`
and `join` cut a file into parts of at most `--part-mb` MB and put them back together (a
fine-tuned snapshot coming back from such a machine), checked by sha256.
"""
import argparse
import hashlib
import json
import lzma
import shutil
import sys
from pathlib import Path

import numpy

TOP = numpy.uint16(1 << 15)


def quantize_rows(m: numpy.ndarray):
    scale = numpy.abs(m).max(axis=1).astype(numpy.float32) / 127.0
    scale[scale == 0] = 1.0
    return numpy.clip(numpy.rint(m / scale[:, None]), -127, 127).astype(numpy.int8), scale


def pack_windows(src: Path, dst: Path) -> dict:
    d = numpy.load(src)
    ids, labels, starts = d["ids"], d["labels"], d["starts"]
    if ids.size and int(ids.max()) >= int(TOP):
        raise SystemExit(f"error: {src}: a piece id >= 32,768 leaves no bit for the label")
    lengths = numpy.diff(starts)
    if lengths.size and int(lengths.max()) > 65535:
        raise SystemExit(f"error: {src}: a window of over 65,535 pieces")
    packed = ids.astype(numpy.uint16) | numpy.where(labels == 1, TOP, numpy.uint16(0)).astype(numpy.uint16)
    first = numpy.packbits(labels >= 0)
    head = numpy.array([len(lengths), len(ids)], dtype=numpy.uint64).tobytes()
    blob = lengths.astype(numpy.uint16).tobytes() + packed.tobytes() + first.tobytes()
    dst.write_bytes(lzma.compress(head + blob, preset=6))
    return json.loads(str(d["meta"]))


def unpack_windows(src: Path, dst: Path, meta: dict) -> None:
    raw = lzma.decompress(src.read_bytes())
    n, m = (int(v) for v in numpy.frombuffer(raw[:16], dtype=numpy.uint64))
    lengths = numpy.frombuffer(raw[16:16 + 2 * n], dtype=numpy.uint16).astype(numpy.int64)
    packed = numpy.frombuffer(raw[16 + 2 * n:16 + 2 * n + 2 * m], dtype=numpy.uint16)
    first = numpy.unpackbits(numpy.frombuffer(raw[16 + 2 * n + 2 * m:], dtype=numpy.uint8))[:m].astype(bool)
    ids = packed & numpy.uint16(TOP - 1)
    labels = numpy.where(first, (packed >> 15).astype(numpy.int8), numpy.int8(-1)).astype(numpy.int8)
    starts = numpy.zeros(n + 1, dtype=numpy.int64)
    numpy.cumsum(lengths, out=starts[1:])
    numpy.savez(dst, ids=ids, labels=labels, starts=starts, meta=numpy.array(json.dumps(meta)))


def cmd_pack(args) -> None:
    from safetensors.numpy import load_file

    out = args.pack_dir
    out.mkdir(parents=True, exist_ok=True)
    w = load_file(str(args.base / "model.safetensors"))
    arrays = {}
    for name, v in w.items():
        if name.endswith("position_ids"):
            continue
        if v.ndim == 2:
            arrays[name + "::q"], arrays[name + "::s"] = quantize_rows(v.astype(numpy.float32))
        else:
            arrays[name] = v.astype(numpy.float32)
    numpy.savez_compressed(out / "base.npz", **arrays)
    for name in ("config.json", "tokenizer.json"):
        shutil.copyfile(args.base / name, out / name)
    card = {"windows": {}}
    for name, path in (("windows", args.windows), ("dev", args.dev)):
        if path is not None:
            card["windows"][name] = pack_windows(path, out / f"{name}.xz")
    (out / "pack.json").write_text(json.dumps(card, indent=2))
    sizes = {p.name: round(p.stat().st_size / 1e6, 2) for p in sorted(out.iterdir())}
    print(json.dumps(sizes))


def cmd_unpack(args) -> None:
    from safetensors.numpy import save_file

    src, out = args.pack_dir, args.out_dir
    (out / "base").mkdir(parents=True, exist_ok=True)
    arrays = numpy.load(src / "base.npz")
    w = {}
    for name in arrays.files:
        if name.endswith("::q"):
            base = name[:-3]
            w[base] = arrays[name].astype(numpy.float32) * arrays[base + "::s"][:, None]
        elif not name.endswith("::s"):
            w[name] = arrays[name]
    save_file(w, str(out / "base" / "model.safetensors"))
    for name in ("config.json", "tokenizer.json"):
        shutil.copyfile(src / name, out / "base" / name)
    card = json.loads((src / "pack.json").read_text())
    for name, meta in card["windows"].items():
        unpack_windows(src / f"{name}.xz", out / f"{name}.npz", meta)
    print(f"{out}: base/, {', '.join(n + '.npz' for n in card['windows'])}")


def cmd_half(args) -> None:
    from safetensors.numpy import load_file, save_file

    w = load_file(str(args.src))
    save_file({k: v.astype(numpy.float16) if v.dtype == numpy.float32 else v for k, v in w.items()}, str(args.dst))


def cmd_split(args) -> None:
    data = args.file.read_bytes()
    step = int(args.part_mb * 1e6)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    parts = []
    for k in range(0, max(1, len(data)), step):
        p = args.out_dir / f"{args.file.name}.part{k // step:02d}"
        p.write_bytes(data[k:k + step])
        parts.append(p.name)
    (args.out_dir / f"{args.file.name}.parts.json").write_text(
        json.dumps({"parts": parts, "sha256": hashlib.sha256(data).hexdigest()}))


def cmd_join(args) -> None:
    index = json.loads(args.index.read_text())
    data = b"".join((args.index.parent / p).read_bytes() for p in index["parts"])
    if hashlib.sha256(data).hexdigest() != index["sha256"]:
        raise SystemExit(f"error: {args.index}: the joined parts are not the file that was split (sha256 differs)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("pack_dir", type=Path)
    p.add_argument("--base", type=Path, required=True)
    p.add_argument("--windows", type=Path, required=True)
    p.add_argument("--dev", type=Path, default=None)
    p = sub.add_parser("unpack")
    p.add_argument("pack_dir", type=Path)
    p.add_argument("out_dir", type=Path)
    p = sub.add_parser("half", help="a safetensors file's float32 tensors as float16")
    p.add_argument("src", type=Path)
    p.add_argument("dst", type=Path)
    p = sub.add_parser("split")
    p.add_argument("file", type=Path)
    p.add_argument("out_dir", type=Path)
    p.add_argument("--part-mb", type=float, default=15.0)
    p = sub.add_parser("join")
    p.add_argument("index", type=Path, help="FILE.parts.json beside its parts")
    p.add_argument("out", type=Path)
    args = ap.parse_args()
    {"pack": cmd_pack, "unpack": cmd_unpack, "half": cmd_half, "split": cmd_split, "join": cmd_join}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
