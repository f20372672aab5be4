"""`download`: end to end against a loopback HTTP server serving a pipeline wheel built here."""
import hashlib
import importlib
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest
import spacy
from typer.testing import CliRunner

from spacy_joint_sbd.cli import app
from spacy_joint_sbd.cli import download as dl

PIPE = "en_test_sjs_pipe"  # `spacy package` prefixes the meta name "test_sjs_pipe" with the language
VERSION = "0.0.1"
WHEEL = f"{PIPE}-{VERSION}-py3-none-any.whl"
SERVER_LIFETIME = 120.0  # seconds; the server shuts itself down after this whatever happens

Route = Tuple[int, Dict[str, str], bytes]


def is_installed(dist: str = PIPE) -> bool:
    importlib.invalidate_caches()
    try:
        importlib.metadata.distribution(dist)
        return True
    except importlib.metadata.PackageNotFoundError:
        return False


def pip_uninstall(dist: str = PIPE) -> None:
    subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "--disable-pip-version-check", dist],
                   capture_output=True, text=True, timeout=120)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> bytes:
    """A real `spacy package --build wheel` of a blank English pipeline with a sentencizer."""
    root = tmp_path_factory.mktemp("package")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.meta["name"] = "test_sjs_pipe"
    nlp.to_disk(root / "pipe")
    (root / "out").mkdir()
    cmd = [sys.executable, "-m", "spacy", "package", str(root / "pipe"), str(root / "out"),
           "--build", "wheel", "--name", "test_sjs_pipe", "--version", VERSION]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return (root / "out" / f"{PIPE}-{VERSION}" / "dist" / WHEEL).read_bytes()


class Server:
    """Serves `routes` (path → status, headers, body) on 127.0.0.1; records the paths asked for."""

    def __init__(self, routes: Dict[str, Route]) -> None:
        self.routes = routes
        self.requests: List[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            timeout = 10  # a stuck client cannot hold a handler thread for long

            def do_GET(self) -> None:
                server.requests.append(self.path)
                status, headers, body = server.routes.get(self.path, (404, {}, b"not found\n"))
                self.send_response(status)
                headers = {"Content-Length": str(len(body)), **headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self.timer = threading.Timer(SERVER_LIFETIME, self.httpd.shutdown)
        self.timer.daemon = True

    def __enter__(self) -> "Server":
        self.thread.start()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.cancel()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def server(wheel) -> Iterator[Server]:
    good = f"{sha256(wheel)}  {WHEEL}\n".encode()
    half = wheel[: len(wheel) // 2]
    routes: Dict[str, Route] = {
        # the release layout: {base}/{name}-{version}/{name}-{version}-py3-none-any.whl (+ .sha256)
        f"/rel/{PIPE}-{VERSION}/{WHEEL}": (200, {}, wheel),
        f"/rel/{PIPE}-{VERSION}/{WHEEL}.sha256": (200, {}, good),
        f"/badsum/{WHEEL}": (200, {}, wheel),
        f"/badsum/{WHEEL}.sha256": (200, {}, f"{sha256(b'something else')}  {WHEEL}\n".encode()),
        # promises the whole wheel, sends half, hangs up
        f"/short/{WHEEL}": (200, {"Content-Length": str(len(wheel))}, half),
        f"/short/{WHEEL}.sha256": (200, {}, good),
        # half the wheel with a consistent Content-Length: only the checksum can tell
        f"/cut/{WHEEL}": (200, {}, half),
        f"/cut/{WHEEL}.sha256": (200, {}, good),
        f"/nosum/{WHEEL}": (200, {}, wheel),
        f"/downgrade/{WHEEL}": (302, {"Location": f"ftp://127.0.0.1/{WHEEL}"}, b""),
    }
    if is_installed():  # left over from an interrupted run
        pip_uninstall()
    with Server(routes) as srv:
        yield srv
    if is_installed():
        pip_uninstall()


@pytest.fixture
def tmpdir_watch(tmp_path, monkeypatch) -> Path:
    """Point `tempfile` at an empty directory, to check that a download leaves nothing there."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


@pytest.fixture
def pip_calls(monkeypatch) -> Iterator[List[Path]]:
    """Record every call of the (real) pip installer; undo an install a failing test made."""
    calls: List[Path] = []
    real = dl.pip_install

    def spy(wheel: Path) -> None:
        calls.append(wheel)
        real(wheel)

    monkeypatch.setattr(dl, "pip_install", spy)
    yield calls
    if calls and is_installed():
        pip_uninstall()


def test_download_installs_a_loadable_pipeline(server, tmp_path):
    """The command as a user runs it: default release layout, checksum from the .sha256 file."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp), "SJS_DOWNLOAD_BASE": f"{server.url}/rel"}
    try:
        proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "download", PIPE, "--version", VERSION,
                               "--allow-http"], capture_output=True, text=True, env=env, timeout=180)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"installed {PIPE} {VERSION}" in proc.stdout
        assert f"/rel/{PIPE}-{VERSION}/{WHEEL}" in server.requests
        assert list(tmp.iterdir()) == []
        code = (f"import spacy; nlp = spacy.load({PIPE!r}); "
                "print(nlp.meta['name'], nlp.pipe_names, len(list(nlp('One here. Two there.').sents)))")
        loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert loaded.returncode == 0, loaded.stderr
        assert loaded.stdout.split() == ["test_sjs_pipe", "['sentencizer']", "2"]
    finally:
        pip_uninstall()
    assert not is_installed()


def test_download_pipeline_function_with_explicit_url_and_checksum(server, wheel, tmpdir_watch):
    seen: List[Tuple[str, bytes]] = []
    url = f"{server.url}/nosum/{WHEEL}"  # no .sha256 there: the given checksum is used
    result = dl.download_pipeline(PIPE, url=url, sha256=sha256(wheel).upper(), allow_http=True,
                                  install=lambda p: seen.append((p.name, p.read_bytes())), progress=False)
    assert result == dl.Downloaded(PIPE, VERSION, url, sha256(wheel))
    assert seen == [(WHEEL, wheel)]
    assert list(tmpdir_watch.iterdir()) == []


def cli_fails(args: List[str], *expected: str) -> None:
    result = CliRunner().invoke(app, ["download", PIPE, *args])
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())  # wasabi wraps long messages
    for text in expected:
        assert text in output, result.output


@pytest.mark.parametrize("args,expected", [
    (["--url", "{url}/badsum/" + WHEEL], ["checksum mismatch", "not installing"]),
    (["--url", "{url}/short/" + WHEEL], ["truncated download", "of {size} bytes"]),
    (["--url", "{url}/cut/" + WHEEL], ["checksum mismatch"]),
    (["--version", "9.9.9", "--base-url", "{url}/rel"], ["HTTP 404", "no checksum"]),
    (["--url", "{url}/rel/" + WHEEL, "--sha256", "0" * 64], ["HTTP 404", "no such release"]),
    (["--url", "{url}/nosum/" + WHEEL], ["no checksum", "--sha256"]),
    (["--url", "{url}/downgrade/" + WHEEL, "--sha256", "0" * 64], ["unsupported URL", "ftp://"]),
], ids=["wrong-checksum", "truncated", "cut-short", "404-checksum", "404-wheel", "no-checksum", "bad-redirect"])
def test_failed_download_installs_nothing(server, wheel, tmpdir_watch, pip_calls, args, expected):
    fill = {"url": server.url, "size": len(wheel)}
    cli_fails([a.format(**fill) for a in args] + ["--allow-http"], *(e.format(**fill) for e in expected))
    assert pip_calls == []
    assert list(tmpdir_watch.iterdir()) == []
    assert not is_installed()


def test_plain_http_needs_the_flag(server, wheel, tmpdir_watch, pip_calls):
    before = len(server.requests)
    url = f"{server.url}/rel/{PIPE}-{VERSION}/{WHEEL}"
    cli_fails(["--url", url, "--sha256", sha256(wheel)], "refusing plain-http", "--allow-http")
    cli_fails(["--version", VERSION, "--base-url", f"{server.url}/rel"], "refusing plain-http")
    assert len(server.requests) == before  # refused before any request
    assert pip_calls == [] and list(tmpdir_watch.iterdir()) == [] and not is_installed()


@pytest.mark.parametrize("args,expected", [
    (["--url", "file:///etc/passwd", "--allow-http"], "unsupported URL"),
    (["--url", "https://example.invalid/other_pipe-0.0.1-py3-none-any.whl"], "not of 'en_test_sjs_pipe'"),
    (["--url", "https://example.invalid/x/" + WHEEL, "--version", "0.0.2"], "not 0.0.2"),
    (["--url", "https://example.invalid/pipe.tar.gz"], "does not name a wheel"),
    (["--url", "https://example.invalid/" + WHEEL, "--sha256", "abc"], "not a sha256"),
])
def test_bad_arguments_are_refused_before_any_download(monkeypatch, args, expected):
    monkeypatch.setattr(dl, "_open", lambda *a: pytest.fail("no request expected"))
    cli_fails(args, expected)


def test_default_url_layout(monkeypatch):
    monkeypatch.delenv(dl.BASE_URL_ENV, raising=False)
    assert dl.wheel_url("en_joint_sbd_ewt", "0.1.0") == (
        f"{dl.DEFAULT_BASE_URL}/en_joint_sbd_ewt-0.1.0/en_joint_sbd_ewt-0.1.0-py3-none-any.whl")
    monkeypatch.setenv(dl.BASE_URL_ENV, "https://mirror.example/releases/")
    assert dl.wheel_url("p", "1") == "https://mirror.example/releases/p-1/p-1-py3-none-any.whl"
    assert dl.wheel_url("p", "1", "https://other.example") == "https://other.example/p-1/p-1-py3-none-any.whl"
