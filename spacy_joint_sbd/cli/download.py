"""`download NAME`: fetch a packaged pipeline wheel, verify its sha256, then pip-install it."""
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from http.client import HTTPException
from pathlib import Path
from typing import Callable, NamedTuple, Optional
from urllib.parse import unquote, urlsplit

import typer
from tqdm import tqdm
from wasabi import msg

from .. import __version__
from ._app import app
from ._util import user_errors

#: Where releases live unless `--base-url` or $SJS_DOWNLOAD_BASE says otherwise.
DEFAULT_BASE_URL = "https://github.com/spacy-joint-sbd/spacy-joint-sbd/releases/download"
BASE_URL_ENV = "SJS_DOWNLOAD_BASE"
#: `{base}/{name}-{version}/{name}-{version}-py3-none-any.whl`, as `spacy package --build wheel` names it.
WHEEL_URL_TEMPLATE = "{base}/{name}-{version}/{name}-{version}-py3-none-any.whl"
CHECKSUM_SUFFIX = ".sha256"
CHUNK_SIZE = 1 << 16
TIMEOUT = 60.0  # seconds without progress before a request fails
MAX_CHECKSUM_BYTES = 1 << 16

Installer = Callable[[Path], None]


class DownloadError(ValueError):
    """A download that was refused or failed; nothing was installed."""


class Downloaded(NamedTuple):
    name: str
    version: str
    url: str
    sha256: str


def normalize_name(name: str) -> str:
    """Wheel file names spell `-`, `.` and `_` as `_` (PEP 427); compare names that way."""
    return re.sub(r"[-_.]+", "_", name).lower()


def resolve_base_url(override: Optional[str] = None) -> str:
    """`--base-url`, else $SJS_DOWNLOAD_BASE, else DEFAULT_BASE_URL (without a trailing slash)."""
    return (override or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")


def wheel_url(name: str, version: str, base: Optional[str] = None) -> str:
    return WHEEL_URL_TEMPLATE.format(base=resolve_base_url(base), name=name, version=version)


def check_url(url: str, allow_http: bool = False) -> None:
    """Accept https, and plain http only with `allow_http`."""
    scheme = urlsplit(url).scheme.lower()
    if scheme == "https" or (scheme == "http" and allow_http):
        return
    if scheme == "http":
        raise DownloadError(f"refusing plain-http URL {url} (use https, or pass --allow-http)")
    raise DownloadError(f"unsupported URL {url!r}: only https (or http with --allow-http) is allowed")


def check_sha256(value: str) -> str:
    value = value.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise DownloadError(f"not a sha256 checksum (64 hex digits): {value[:80]!r}")
    return value


class _SchemeCheckingRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects (release hosts use them) but never from https down to plain http."""

    def __init__(self, allow_http: bool) -> None:
        self.allow_http = allow_http

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        check_url(newurl, self.allow_http)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _open(url: str, allow_http: bool):  # type: ignore[no-untyped-def]
    check_url(url, allow_http)
    opener = urllib.request.build_opener(_SchemeCheckingRedirects(allow_http))
    request = urllib.request.Request(url, headers={"User-Agent": f"spacy_joint_sbd/{__version__}"})
    try:
        return opener.open(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as e:
        hint = " (no such release? check NAME and --version)" if e.code == 404 else ""
        raise DownloadError(f"HTTP {e.code} {e.reason} for {url}{hint}") from e
    except urllib.error.URLError as e:
        raise DownloadError(f"cannot reach {url}: {e.reason}") from e
    except (HTTPException, OSError) as e:
        raise DownloadError(f"cannot download {url}: {e}") from e


def fetch_checksum(url: str, allow_http: bool = False) -> str:
    """The sha256 published next to the wheel at `{url}.sha256` (`sha256sum` output or a bare hex)."""
    sidecar = url + CHECKSUM_SUFFIX
    try:
        with _open(sidecar, allow_http) as response:
            text = response.read(MAX_CHECKSUM_BYTES).decode("utf-8", "replace")
    except DownloadError as e:
        if isinstance(e.__cause__, urllib.error.HTTPError) and e.__cause__.code == 404:
            raise DownloadError(f"no checksum published at {sidecar} (HTTP 404): pass --sha256 HEX "
                                "to give it yourself") from e
        raise DownloadError(f"cannot fetch the checksum: {e}") from e
    except (HTTPException, OSError) as e:
        raise DownloadError(f"cannot read checksum {sidecar}: {e}") from e
    lines = [line.split() for line in text.splitlines() if line.strip()]
    filename = _filename(url)
    for fields in lines:  # a multi-file `sha256sum` listing: the line naming this wheel
        if len(fields) > 1 and fields[-1].lstrip("*") == filename:
            return check_sha256(fields[0])
    if len(lines) != 1:
        raise DownloadError(f"cannot find a checksum for {filename} in {sidecar}")
    return check_sha256(lines[0][0])


def _filename(url: str) -> str:
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


def fetch_wheel(url: str, dest_dir: Path, sha256: str, allow_http: bool = False, progress: bool = True) -> Path:
    """Download `url` into `dest_dir` and return the file, only if its size and sha256 match.
    On any failure the partial file is removed and DownloadError raised."""
    sha256 = check_sha256(sha256)
    filename = _filename(url)
    if not filename.endswith(".whl") or "/" in filename or filename.startswith("."):
        raise DownloadError(f"{url} does not name a wheel (*.whl) file")
    path = Path(dest_dir) / filename
    digest = hashlib.sha256()
    received = 0
    ok = False
    try:
        with _open(url, allow_http) as response, open(path, "wb") as out:
            header = response.headers.get("Content-Length")
            expected = int(header) if header and header.isdigit() else None
            with tqdm(total=expected, unit="B", unit_scale=True, unit_divisor=1024, desc=filename,
                      disable=not progress, leave=False) as bar:
                while True:
                    chunk = response.read(CHUNK_SIZE)
                    if not chunk:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
        if expected is not None and received != expected:
            raise DownloadError(f"truncated download of {url}: got {received} of {expected} bytes")
        actual = digest.hexdigest()
        if actual != sha256:
            raise DownloadError(
                f"checksum mismatch for {filename}: expected sha256 {sha256}, got {actual} "
                f"({received} bytes); not installing it")
        ok = True
    except (HTTPException, OSError) as e:  # IncompleteRead, connection reset, timeout, disk full
        raise DownloadError(f"download of {url} failed after {received} bytes: {e!r}") from e
    finally:
        if not ok:
            path.unlink(missing_ok=True)
    return path


def pip_install(wheel: Path) -> None:
    """`python -m pip install --no-deps WHEEL` into the running interpreter's environment."""
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", str(wheel)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise DownloadError(f"pip install of {wheel.name} failed (exit {proc.returncode}):\n{tail}")


def download_pipeline(
    name: str,
    version: Optional[str] = None,
    url: Optional[str] = None,
    sha256: Optional[str] = None,
    allow_http: bool = False,
    base_url: Optional[str] = None,
    install: Optional[Installer] = None,
    progress: bool = True,
) -> Downloaded:
    """Download pipeline package `name` (from `url`, else the release of `version` — default this
    plugin's version — under the base URL), check its sha256 (`sha256`, else `{url}.sha256`) and
    only then install it with `install` (default: `pip_install`). Temporary files are always removed."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise DownloadError(f"not a package name: {name!r}")
    if url is None:
        version = version or __version__
        url = wheel_url(name, version, base_url)
    check_url(url, allow_http)
    filename = _filename(url)
    parts = filename[:-4].split("-") if filename.endswith(".whl") else []
    if len(parts) < 2:
        raise DownloadError(f"{url} does not name a wheel file (NAME-VERSION-...-py3-none-any.whl)")
    if normalize_name(parts[0]) != normalize_name(name):
        raise DownloadError(f"{filename} is a wheel of {parts[0]!r}, not of {name!r}")
    if version is not None and parts[1] != version:
        raise DownloadError(f"{filename} is version {parts[1]}, not {version}")
    sha256 = check_sha256(sha256) if sha256 else fetch_checksum(url, allow_http)
    install = install or pip_install
    with tempfile.TemporaryDirectory(prefix="sjs-download-") as tmp:
        wheel = fetch_wheel(url, Path(tmp), sha256, allow_http, progress)
        install(wheel)
    return Downloaded(name, parts[1], url, sha256)


@app.command("download")
def download_cli(
    name: str = typer.Argument(..., help="pipeline package, e.g. en_joint_sbd_ewt"),
    version: Optional[str] = typer.Option(None, "--version", "-v", help=f"release version (default: {__version__})"),
    url: Optional[str] = typer.Option(None, "--url", help="the wheel's URL, instead of the release layout"),
    sha256: Optional[str] = typer.Option(None, "--sha256", help="expected sha256 (default: read from URL.sha256)"),
    allow_http: bool = typer.Option(False, "--allow-http", help="also accept plain-http URLs (e.g. a local server)"),
    base: Optional[str] = typer.Option(None, "--base-url", help=f"release base URL (default: ${BASE_URL_ENV}, else "
                                       f"{DEFAULT_BASE_URL})"),
) -> None:
    """Install a packaged pipeline wheel from a release URL
    ({base}/{name}-{version}/{name}-{version}-py3-none-any.whl). Its sha256 is checked before
    anything is installed; pip installs it with --no-deps into this Python's environment."""
    with user_errors():
        done = download_pipeline(name, version, url, sha256, allow_http, base)
    msg.good(f"installed {done.name} {done.version}", f"from {done.url}\nsha256 {done.sha256}")
    msg.text(f'use it with: spacy.load("{done.name}")')
