"""The asset list of project.yml can be fetched as declared, checked offline:
every asset has a destination and either a URL at a pinned commit or a described build step; no
git asset names a commit as a branch; Weasel creates the parents of URL assets; and the declared
md5 checksums (Weasel's) and the sha256 of scripts/get_data.py match the files in ../shared/data."""
import hashlib
import importlib.util
import re
from pathlib import Path

import pytest
import srsly

from treebanks import DATA

ROOT = Path(__file__).resolve().parents[2]
COMMIT = re.compile(r"^[0-9a-f]{40}$")


def _assets():
    return srsly.read_yaml(ROOT / "project.yml")["assets"]


def _get_data():
    spec = importlib.util.spec_from_file_location("get_data", ROOT / "scripts" / "get_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_asset_has_a_destination_and_a_source():
    upstream = _get_data().UPSTREAM
    dests = [a["dest"] for a in _assets()]
    assert len(dests) == len(set(dests))
    for asset in _assets():
        assert asset["dest"].startswith("assets/ud/") and asset.get("checksum"), asset
        assert "git" not in asset, "git assets clone with -b BRANCH, which a commit is not"
        if "url" in asset:
            m = re.match(r"https://raw\.githubusercontent\.com/UniversalDependencies/([^/]+)/([^/]+)/[^/]+\.conllu$",
                         asset["url"])
            assert m and COMMIT.match(m.group(2)), asset["url"]
            treebank = asset["dest"].split("/")[2]
            assert (f"https://github.com/UniversalDependencies/{m.group(1)}", m.group(2)) == upstream[treebank]
        else:  # built from not-to-release/ by the data command
            assert "spacy project run data" in asset["description"], asset
            assert "not-to-release" in asset["description"] or "the same way" in asset["description"]


PROJECTS = [ROOT] + sorted(p.parent for p in (ROOT / "projects").glob("*/project.yml"))
MD5 = re.compile(r"^[0-9a-f]{32}$")
HEXISH = re.compile(r"^[0-9a-f]{7,40}$")  # what a (short) commit id looks like
BRANCH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
def test_every_projects_assets_have_a_shape_weasel_can_fetch(project):
    """Each project.yml's assets, as Weasel loads them (offline; nothing is fetched): a git asset
    names a branch (Weasel runs `git clone -b BRANCH`, which refuses a commit, and passes a missing
    branch on as "None"), a URL asset is a file at a pinned commit with an md5 checksum, and no two
    assets share a destination."""
    from weasel.util import load_project_config

    assets = load_project_config(project).get("assets", [])
    assert len({a["dest"] for a in assets}) == len(assets)
    for asset in assets:
        if "git" in asset:
            branch = asset["git"].get("branch")
            assert isinstance(branch, str) and BRANCH.match(branch) and not HEXISH.match(branch), asset
            assert asset["git"]["repo"].startswith("https://") and isinstance(asset["git"].get("path"), str), asset
        elif "url" in asset:
            m = re.match(r"https://raw\.githubusercontent\.com/[^/]+/[^/]+/([^/]+)/", asset["url"])
            assert m and COMMIT.match(m.group(1)), asset["url"]
            assert MD5.match(asset.get("checksum") or ""), asset


def test_assets_cover_what_the_data_command_writes():
    project = srsly.read_yaml(ROOT / "project.yml")
    data = next(c for c in project["commands"] if c["name"] == "data")
    assert sorted(a["dest"] for a in _assets()) == sorted(data["outputs"])
    gd = _get_data()
    assert sorted(f"assets/ud/{tb}/{split}.conllu" for tb, split in gd.FILES
                  if tb in gd.DEFAULT_TREEBANKS) == sorted(data["outputs"])
    # the other languages (`--treebanks all`, projects/grammar_induction) are released files at
    # pinned commits, one upstream repository each
    others = {tb for tb, _ in gd.FILES} - set(gd.DEFAULT_TREEBANKS)
    assert others and others <= set(gd.UPSTREAM)
    for (tb, split), (digest, (kind, name)) in gd.FILES.items():
        if tb in others:
            assert kind == "released" and name == f"{tb}-ud-{split}.conllu" and len(digest) == 64
            assert COMMIT.match(gd.UPSTREAM[tb][1])


def test_weasel_creates_the_parent_folders_of_url_assets(tmp_path, monkeypatch):
    from weasel.cli import assets as weasel_assets

    def fake_download(url, dest):
        Path(dest).write_bytes(b"x")

    monkeypatch.setattr(weasel_assets, "download_file", fake_download)
    url_asset = next(a for a in _assets() if "url" in a)
    dest = tmp_path / url_asset["dest"]
    assert not dest.parent.exists()
    weasel_assets.fetch_asset(tmp_path, url_asset["url"], dest)  # no checksum: only the parents matter here
    assert dest.read_bytes() == b"x"


@pytest.mark.slow
def test_declared_checksums_match_the_shared_files():
    files = _get_data().FILES
    for asset in _assets():
        _, _, treebank, name = asset["dest"].split("/")
        path = DATA / treebank / name
        if not path.exists():
            pytest.skip(f"treebank file missing: {path}")
        data = path.read_bytes()
        assert hashlib.md5(data).hexdigest() == asset["checksum"], asset["dest"]
        assert hashlib.sha256(data).hexdigest() == files[(treebank, name[:-len(".conllu")])][0], asset["dest"]
