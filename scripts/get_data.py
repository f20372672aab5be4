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
DEFAULT_TREEBANKS = tuple(UPSTREAM)
"""What the root project's `data` command fetches; the multilingual projects ask for `--treebanks all`."""
# the other languages of ../shared/data/README.md (released files only; no train file where the
# snapshot there has none)
UPSTREAM.update({
    "bg_btb": ("https://github.com/UniversalDependencies/UD_Bulgarian-BTB",
              "b5cd6324b2015dbf3cd328ddebefc54dceddd202"),
    "da_ddt": ("https://github.com/UniversalDependencies/UD_Danish-DDT",
              "85faf86dc39f735722925fb1e822070d83649068"),
    "de_gsd": ("https://github.com/UniversalDependencies/UD_German-GSD",
              "297fcf350481058d0737a27f0f8fd03b2eadd67a"),
    "el_gdt": ("https://github.com/UniversalDependencies/UD_Greek-GDT",
              "1485f849d5ac7fcafa092a75804b41dbb1a3f194"),
    "eu_bdt": ("https://github.com/UniversalDependencies/UD_Basque-BDT",
              "b103756e7d3dca0130807308c73eb170fdba5394"),
    "hu_szeged": ("https://github.com/UniversalDependencies/UD_Hungarian-Szeged",
                 "8f08ba648e6f6345212a721b7cb1ad78c5924f0e"),
    "it_isdt": ("https://github.com/UniversalDependencies/UD_Italian-ISDT",
               "689c1bf3c7d132903d2196ac69b76a0933c90997"),
    "ja_gsd": ("https://github.com/UniversalDependencies/UD_Japanese-GSD",
              "7bc20119f476b552635e0640644e577b6fd3606b"),
    "nl_alpino": ("https://github.com/UniversalDependencies/UD_Dutch-Alpino",
                 "95e374a608d114ec6c6b32f0fbd5f324d29ef286"),
    "pt_bosque": ("https://github.com/UniversalDependencies/UD_Portuguese-Bosque",
                 "5de7ac34028ff6d1718031a4b0ae895717ed8dbe"),
    "sl_ssj": ("https://github.com/UniversalDependencies/UD_Slovenian-SSJ",
              "17011b12eae4e522da4d1eeeffd439085466623c"),
    "sv_talbanken": ("https://github.com/UniversalDependencies/UD_Swedish-Talbanken",
                    "30067217d275233ed460d0c0abafeaf22d63a3d2"),
    "tr_imst": ("https://github.com/UniversalDependencies/UD_Turkish-IMST",
               "bcd48daa9957794a9137d85a4e2a115cdcdd4b1a"),
})
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
    ("bg_btb", "dev"): ("ea9c4ab3768c38c6419f7f9d5a98612babe3e5b56dd61df3411543000bacf0dc", ("released", "bg_btb-ud-dev.conllu")),
    ("bg_btb", "test"): ("b4ab2f9e741b20ae48daa7c5830ed05309d520d95e3346319349406dd515e7d1", ("released", "bg_btb-ud-test.conllu")),
    ("da_ddt", "dev"): ("d714b22776ad60fbdb6e4ffc15a5c3ffc162705617567d3cf2b09cc6b51e800a", ("released", "da_ddt-ud-dev.conllu")),
    ("da_ddt", "test"): ("2232ee43dcd35dba32b476534d230edf1aa26d4bd830813f452fd829c276f737", ("released", "da_ddt-ud-test.conllu")),
    ("de_gsd", "dev"): ("00431f2624cbbf66796c097a9303bbc8f8e8ca88ef35c4c5664aa396b2d674c9", ("released", "de_gsd-ud-dev.conllu")),
    ("de_gsd", "test"): ("bceb8e867ba3ee7f1449d44fb31538d63a514f07e6763e7d9a5ffe794407bed4", ("released", "de_gsd-ud-test.conllu")),
    ("el_gdt", "train"): ("892cd36cd47372ec0d7ccdbc874af9a6994651cdb0cf2cee6ba93bb01ee83794", ("released", "el_gdt-ud-train.conllu")),
    ("el_gdt", "dev"): ("53de54735051eecef04aa8c0f5f0fbf2466e0e0d4fd9dfd3d313560c394ddf41", ("released", "el_gdt-ud-dev.conllu")),
    ("el_gdt", "test"): ("30cb5881ce6f8ba628de88853a4c105e716a365e8fcd9024a85befe41165c260", ("released", "el_gdt-ud-test.conllu")),
    ("eu_bdt", "dev"): ("1e836f6b83353daf5aa5c150921b6d41db22a244734baf9111848fe660003371", ("released", "eu_bdt-ud-dev.conllu")),
    ("eu_bdt", "test"): ("69859963a9639e254ebb0702c6b914bd03915a77bf0bfd759c3dca86eca6859f", ("released", "eu_bdt-ud-test.conllu")),
    ("hu_szeged", "train"): ("1e9d02111d6e842ad60d20cccfb43d8f758b4cc311d13e2044af2e285372847a", ("released", "hu_szeged-ud-train.conllu")),
    ("hu_szeged", "dev"): ("8cb5b630e09d5d938ce624b06fe3abe57a631533f5aef186ba533daca6e4ab5b", ("released", "hu_szeged-ud-dev.conllu")),
    ("hu_szeged", "test"): ("9031ec98f775ceae6940580a1bb4ef8a2a9e9bee38c40eb9e8ce0f006b56fa59", ("released", "hu_szeged-ud-test.conllu")),
    ("it_isdt", "dev"): ("1bc7dda04c58a4d87e2e6607a0e612462b87e7da6dde56be610d3749521af744", ("released", "it_isdt-ud-dev.conllu")),
    ("it_isdt", "test"): ("cea8ca0e8d1ddf7ce509f10afff426d00e058982f49473e0744cd0ee477129e3", ("released", "it_isdt-ud-test.conllu")),
    ("ja_gsd", "dev"): ("18d266e29336ef619787a928d89d20f2e64188be70d5b37829e3aadc5bb6b841", ("released", "ja_gsd-ud-dev.conllu")),
    ("ja_gsd", "test"): ("5f50ee6ed45c7ebda3787e593eaf5e9a225f25e53f6b4b32df778031862c843f", ("released", "ja_gsd-ud-test.conllu")),
    ("nl_alpino", "dev"): ("3d6ad878d8b7b362fd756da22ae230951233be1e5596743af772150c89ba346d", ("released", "nl_alpino-ud-dev.conllu")),
    ("nl_alpino", "test"): ("f5b5000fcbb6745d42f7cccf3986bb2550f9b56a171b0d4808fb45d2df7972a2", ("released", "nl_alpino-ud-test.conllu")),
    ("pt_bosque", "dev"): ("f8a67abae12fbab85a3995204a6459d1958c11065062d4ea5349d6b914e78f81", ("released", "pt_bosque-ud-dev.conllu")),
    ("pt_bosque", "test"): ("9a824650b7a02cf411f6e09b39e8fb423c85e1a5fb3a55b87e7f4c0c2ea5b3bb", ("released", "pt_bosque-ud-test.conllu")),
    ("sl_ssj", "dev"): ("2999a1ac8261df77e71c4e824c8e036e4845f84748f36d04bc7b730d7daf9d9a", ("released", "sl_ssj-ud-dev.conllu")),
    ("sl_ssj", "test"): ("c14d5d2f4f20a7ad43e0f598a2e18c5e41f08364ab36be1c87d6d9eae7f5c8b0", ("released", "sl_ssj-ud-test.conllu")),
    ("sv_talbanken", "dev"): ("31917fc04cfe9ef7ce8c11ed8570b739a0cefdcda5e06ff93207e6d84f37117b", ("released", "sv_talbanken-ud-dev.conllu")),
    ("sv_talbanken", "test"): ("b8909c4f5f2c64b3cee251de7004fa293717d309e54ca59d149a61d75e8571d7", ("released", "sv_talbanken-ud-test.conllu")),
    ("tr_imst", "train"): ("8d8b8b581dab9362e6f2e4328aef77b9fabec1d189a199e320ba136710c7bd83", ("released", "tr_imst-ud-train.conllu")),
    ("tr_imst", "dev"): ("3bdaab362b7a9af7cbf8944aee5c1c1d077970ad4bcafcf23c5c062d4cf93801", ("released", "tr_imst-ud-dev.conllu")),
    ("tr_imst", "test"): ("fc9269bd598489b942a025b678779557266ce0c054a843e47c7db386d76d6459", ("released", "tr_imst-ud-test.conllu")),
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
    ap.add_argument("--treebanks", default=",".join(DEFAULT_TREEBANKS),
                    help=f"comma-separated treebanks, or 'all' for {len(UPSTREAM)} (default: {', '.join(DEFAULT_TREEBANKS)})")
    args = ap.parse_args()
    treebanks = list(UPSTREAM) if args.treebanks == "all" else args.treebanks.split(",")
    unknown = [tb for tb in treebanks if tb not in UPSTREAM]
    if unknown:
        ap.error(f"unknown treebanks {unknown}; known: {', '.join(UPSTREAM)}")
    for treebank in treebanks:
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
