"""`serve` under hostile and heavy use, on 127.0.0.1 only and bounded in count and time: malformed
headers and lengths, idle and trickling clients, a burst of 50 simultaneous requests, requests
for another host or from another site, and the command's exit codes."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest

from spacy_joint_sbd.textio.serve import HOST, Limits, PageServer

TEXT = "The shop opened in May. It sold bread and cakes. Most days it sold out by noon."
DEADLINE = 20.0
"""No socket in these tests waits longer than this: a hang fails, it never blocks the suite."""


def serving(nlp, **limits):
    srv = PageServer(nlp, 0, limits=Limits(**limits))
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return srv


@pytest.fixture()
def server(trained_nlp):
    srv = serving(trained_nlp, idle_timeout=1.0, request_timeout=2.0)
    yield srv
    srv.shutdown()
    srv.server_close()


def connect(srv: PageServer) -> socket.socket:
    sock = socket.create_connection((HOST, srv.server_address[1]), timeout=DEADLINE)
    return sock


def exchange(srv: PageServer, raw: bytes) -> Tuple[int, Dict[str, str], bytes]:
    """Send `raw`, read the whole answer: (status, headers, body); status 0 when none came."""
    with connect(srv) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    if not data:
        return 0, {}, b""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def post_raw(srv: PageServer, text: str = TEXT, extra: str = "", host: Optional[str] = None) -> bytes:
    body = urllib.parse.urlencode({"text": text}).encode("utf-8")
    host = host or f"{HOST}:{srv.server_address[1]}"
    return (f"POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n").encode("latin-1") + body


def get_raw(srv: PageServer, host: Optional[str] = None) -> bytes:
    return f"GET / HTTP/1.1\r\nHost: {host or f'{HOST}:{srv.server_address[1]}'}\r\n\r\n".encode("latin-1")


def still_serves(srv: PageServer) -> None:
    status, _, body = exchange(srv, post_raw(srv))
    assert status == 200 and body.rstrip().endswith(b"</html>")


@pytest.mark.parametrize("length", ["\u00b2", "1" * 5000, "-1", "0x10", "1 2", "\u0661\u0662"])
def test_a_malformed_content_length_is_a_400(server, length, capfd):
    raw = (f"POST / HTTP/1.1\r\nHost: {HOST}:{server.server_address[1]}\r\nContent-Length: {length}\r\n\r\n"
           "text=x").encode("utf-8")
    assert exchange(server, raw)[0] == 400
    still_serves(server)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("raw", [b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                                 b"GET / HTTP/9.9\r\n\r\n", b"\x00\xff\xfe\r\n\r\n", b"GET " + b"a" * 70000 + b"\r\n",
                                 b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 200 + b"\r\n", b"\r\n"])
def test_malformed_requests_get_an_answer_and_leave_the_server_unharmed(server, raw, capfd):
    status = exchange(server, raw)[0]
    assert status == 0 or 400 <= status < 500 or status == 505  # 505: HTTP Version Not Supported
    still_serves(server)
    assert "Traceback" not in capfd.readouterr().err


def test_an_idle_connection_delays_no_other(server):
    """One connection that sends nothing, one that sends a byte at a time: others are answered
    at once, and both are closed by the timeouts."""
    idle = connect(server)
    trickle = connect(server)
    trickle.sendall(b"P")
    start = time.monotonic()
    for _ in range(3):
        assert exchange(server, get_raw(server))[0] == 200
    assert time.monotonic() - start <= 1.0
    stop = threading.Event()

    def drip() -> None:
        try:
            for byte in b"OST / HTTP/1.1\r\nHost: x\r\n" * 10:
                if stop.wait(0.3):
                    return
                trickle.sendall(bytes([byte]))
        except OSError:
            pass

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    start = time.monotonic()
    assert idle.recv(1) == b""  # closed after idle_timeout
    trickle.settimeout(DEADLINE)
    try:
        while trickle.recv(1 << 16):  # the 408, then the end: closed after request_timeout
            pass
    except ConnectionResetError:
        pass
    assert time.monotonic() - start <= 4.0
    stop.set()
    idle.close()
    trickle.close()
    still_serves(server)


def test_fifty_simultaneous_requests_are_all_answered(server):
    def one(k: int) -> int:
        return exchange(server, post_raw(server, f"Request {k} came in. It asked for a page."))[0]

    with ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(one, range(50)))
    assert statuses == [200] * 50


def test_connections_over_the_bound_get_a_clear_503(trained_nlp):
    srv = serving(trained_nlp, max_connections=2, idle_timeout=5.0, request_timeout=5.0)
    try:
        held = [connect(srv), connect(srv)]
        time.sleep(0.2)  # both accepted and holding their slot
        status, headers, _ = exchange(srv, get_raw(srv))
        assert status == 503 and headers["retry-after"] == "1"
        for sock in held:
            sock.close()
        time.sleep(0.3)
        assert exchange(srv, get_raw(srv))[0] == 200
    finally:
        srv.shutdown()
        srv.server_close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "", "127.0.0.1"])
def test_another_host_name_is_refused(server, host):
    """DNS rebinding: a site's own name pointed at 127.0.0.1 reaches the port with its Host."""
    host = host.format(port=server.server_address[1])
    raw = get_raw(server, host) if host else b"GET / HTTP/1.0\r\n\r\n"
    assert exchange(server, raw)[0] == 403
    assert exchange(server, post_raw(server, host=host or "none"))[0] == 403


@pytest.mark.parametrize("extra", ["Origin: https://evil.example\r\n", "Origin: null\r\n",
                                   "Sec-Fetch-Site: cross-site\r\n", "Sec-Fetch-Site: same-site\r\n"])
def test_a_post_from_another_site_is_refused(server, extra):
    assert exchange(server, post_raw(server, extra=extra))[0] == 403


def test_the_forms_own_origin_and_localhost_are_served(server):
    port = server.server_address[1]
    own = f"Origin: http://{HOST}:{port}\r\nSec-Fetch-Site: same-origin\r\n"
    assert exchange(server, post_raw(server, extra=own))[0] == 200
    assert exchange(server, post_raw(server, host=f"localhost:{port}",
                                     extra=f"Origin: http://localhost:{port}\r\n"))[0] == 200


def test_no_framing_and_no_version_in_any_answer(server):
    for raw in (get_raw(server), get_raw(server, "evil.example"), b"BREW / HTTP/1.0\r\n\r\n"):
        status, headers, _ = exchange(server, raw)
        assert status
        assert headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["server"] == "segment", headers["server"]


def test_bad_limits_are_refused(trained_nlp):
    for bad in ({"max_connections": 0}, {"idle_timeout": 0}, {"request_timeout": float("nan")}, {"backlog": True}):
        with pytest.raises(ValueError):
            PageServer(trained_nlp, 0, limits=Limits(**bad))


# the command: exit codes as segment's


@pytest.fixture(scope="module")
def rules_model(tmp_path_factory) -> Path:
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    path = tmp_path_factory.mktemp("models") / "rules"
    nlp.to_disk(path)
    return path


def serve(*args: object, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "serve", *map(str, args)], capture_output=True,
                          text=True, timeout=120, **kwargs)


@pytest.mark.parametrize("args,message", [
    (["--port", "70000"], "error: --port must be between 0 and 65535, got 70000"),
    (["--max-connections", "0"], "error: --max-connections must be a positive integer, got 0"),
    (["--idle-timeout", "-1"], "error: --idle-timeout must be a number of seconds in (0, 86400), got -1.0"),
])
def test_a_bad_option_is_one_error_line_and_exit_2(args, message):
    proc = serve("x", *args)
    assert proc.returncode == 2 and proc.stderr.strip() == message


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_it_with_128_plus_n(rules_model, sig, code):
    proc = subprocess.Popen([sys.executable, "-m", "spacy_joint_sbd", "serve", str(rules_model), "--port", "0"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("serving: http://127.0.0.1:"), line
        port = int(line.split(":")[3].split("/")[0])
        with socket.create_connection((HOST, port), timeout=DEADLINE) as sock:
            sock.sendall(f"GET / HTTP/1.0\r\nHost: {HOST}:{port}\r\n\r\n".encode())
            assert sock.recv(12).startswith(b"HTTP/1.0 200")
        os.kill(proc.pid, sig)
        assert proc.wait(timeout=DEADLINE) == code
        assert "Traceback" not in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
