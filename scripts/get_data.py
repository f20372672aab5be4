"""Fetch the UD treebanks into assets/ud/, verifying sha256 checksums: the `data` command.

Offline (the default when the folder exists): copy from a local folder laid out like
../shared/data/ud. Online: clone the upstream repository, check out the pinned commit and rebuild
each file as ../shared/data/README.md describes (train/dev of EWT and GUM are the concatenation of
`not-to-release/sources/<file>` in the order of `not-to-release/file-lists/files.<split>`; the
others are the released files, which project.yml also lists as URL assets at the same commits, so
`spacy project assets` fetches them). A checksum mismatch is an error and leaves no file behind.
"""
import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM = {
    "en_ewt": ("https://github.com/UniversalDependencies/UD_English-EWT",
               "15d613d8447b3478787d4c278730a1e48a945efb"),
    "en_gum": ("https://github.com/UniversalDependencies/UD_English-GUM",
               "afb41ee9bca57991125814fa04d96a0e61470c8b"),
    "en_atis": ("https://github.com/UniversalDependencies/UD_English-Atis",
                "d1b43fe134cae17f65147e69accdf57c521d8af8"),
    "zh_gsdsimp": ("https://github.com/UniversalDependencies/UD_Chinese-GSDSimp",
                   "eb3aed31ebb170897405ee5cd1db83a1a0b11864"),
}
# (treebank, split) -> (sha256, how to build it upstream)
FILES = {
    ("en_ewt", "train"): ("3fb78e2b55482c8ee00caa653af436c88c9e5bc9a73ce26e4ae3ddc79d2b7e7b", ("sources", "train")),
    ("en_ewt", "dev"): ("531a54ff90d6ab12201c5a50c3e78e6ddac4de69abc4bce5d275d3cd29efe2b6", ("released", "en_ewt-ud-dev.conllu")),
    ("en_ewt", "test"): ("e266e515a0a7547657ed3d90d9ba46487d6bd251f27ad4269d4e8a427c8555cd", ("released", "en_ewt-ud-test.conllu")),
    ("en_gum", "train"): ("f8bd44d6364021107a4c574222d0f240e776524cba1ef8acaa939f38258ca774", ("sources", "train")),
    ("en_gum", "dev"): ("4740b782dfe55fd67f9ce216cb38047e99ca15e6e5fab350b1ecb5eaccccc263", ("sources", "dev")),
    ("en_atis", "train"): ("bf34cac75bf90593720fb7e06fcecb4f3fbaf325e7a2ceefbcca10771f56ac72", ("released", "en_atis-ud-train.conllu")),
    ("en_atis", "dev"): ("ba9ed59a6cf862c695043b64053194277023270ac46ad7b5182b90baee7cfee0", ("released", "en_atis-ud-dev.conllu")),
    ("zh_gsdsimp", "dev"): ("342a2969df6d6d08bdc25dbc067c93c86ab3099bb054a9921ae7067cbc2c53ad", ("released", "zh_gsdsimp-ud-dev.conllu")),
    ("zh_gsdsimp", "test"): ("573f59b799b499a920d2d5bdc0e3c1dbd7bcacf86bdece4334ecbd03e21b6150", ("released", "zh_gsdsimp-ud-test.conllu")),
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def install(src: Path, dest: Path, expected: str) -> None:
    tmp = dest.with_name(dest.name + ".partial")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, tmp)
    got = sha256(tmp)
    if got != expected:
        tmp.unlink()
        sys.exit(f"checksum mismatch for {dest}: got {got}, expected {expected}")
    tmp.replace(dest)
    print(f"{dest}: ok ({dest.stat().st_size:,} bytes, sha256 verified)")


def fetch_online(treebank: str, out: Path) -> None:
    repo, commit = UPSTREAM[treebank]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "clone", "--quiet", repo, tmp], check=True)
        subprocess.run(["git", "-C", tmp, "checkout", "--quiet", commit], check=True)
        root = Path(tmp)
        for (tb, split), (digest, (kind, what)) in FILES.items():
            if tb != treebank:
                continue
            built = root / f"built-{split}.conllu"
            if kind == "released":
                shutil.copyfile(root / what, built)
            else:
                names = (root / "not-to-release/file-lists" / f"files.{what}").read_text().split()
                with built.open("wb") as f:
                    for name in names:
                        f.write((root / "not-to-release/sources" / name).read_bytes())
            install(built, out / tb / f"{split}.conllu", digest)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--offline", type=Path, default=Path("../shared/data/ud"),
                    help="local folder with en_ewt/, en_gum/, en_atis/, zh_gsdsimp/ (used when it exists)")
    ap.add_argument("--out", type=Path, default=Path("assets/ud"))
    ap.add_argument("--online", action="store_true", help="always fetch from the upstream repositories")
    args = ap.parse_args()
    for treebank in UPSTREAM:
        todo = [(s, d) for (tb, s), (d, _) in FILES.items() if tb == treebank]
        if all((args.out / treebank / f"{s}.conllu").exists() and sha256(args.out / treebank / f"{s}.conllu") == d
               for s, d in todo):
            print(f"{args.out / treebank}: up to date")
            continue
        if not args.online and args.offline.exists():
            for split, digest in todo:
                install(args.offline / treebank / f"{split}.conllu", args.out / treebank / f"{split}.conllu", digest)
        else:
            fetch_online(treebank, args.out)


if __name__ == "__main__":
    main()
