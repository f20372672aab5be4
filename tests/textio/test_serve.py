"""`serve`: the page over HTTP on the loopback address, in a real browser too."""
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from spacy_joint_sbd.segment import segment_text
from spacy_joint_sbd.textio.serve import HOST, PageServer

TEXT = "The shop opened in May. It sold bread and cakes.\n\nMost days it sold out by noon. we went twice"


@pytest.fixture()
def server(trained_nlp):
    srv = PageServer(trained_nlp, 0, max_chars=len(TEXT))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


OPEN = urllib.request.build_opener(urllib.request.ProxyHandler({})).open
"""urlopen without the environment's proxies: the server is on this machine."""


def post(url: str, text: str):
    body = urllib.parse.urlencode({"text": text}).encode("utf-8")
    return OPEN(urllib.request.Request(url, data=body, method="POST"), timeout=60)


def test_only_the_loopback_address(server):
    assert server.server_address[0] == HOST == "127.0.0.1"


def test_the_form_and_the_page_of_a_text(server, trained_nlp):
    with OPEN(server.url, timeout=60) as r:
        assert r.status == 200 and f'maxlength="{len(TEXT)}"' in r.read().decode("utf-8")
    with post(server.url, TEXT) as r:
        page = r.read().decode("utf-8")
        assert "default-src 'none'" in r.headers["Content-Security-Policy"]
    count = re.search(r'<span hidden id="n-0">(\d+)</span>', page)
    assert int(count.group(1)) == len(segment_text(trained_nlp, TEXT, with_parse=True))
    assert page.rstrip().endswith("</html>")


def test_too_long_empty_and_unknown_are_refused(server):
    for text, status in ((TEXT + "x", 413), ("  ", 400)):
        with pytest.raises(urllib.error.HTTPError) as e:
            post(server.url, text)
        assert e.value.code == status
    with pytest.raises(urllib.error.HTTPError) as e:
        OPEN(server.url + "nothing", timeout=60)
    assert e.value.code == 404


def test_a_bad_port_is_one_error_line():
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "serve", "x", "--port", "70000"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: --port must be between 0 and 65535, got 70000"


def test_the_form_in_chromium(server, trained_nlp):
    """Paste, submit, and the served page runs under its Content-Security-Policy without a
    console error, with the sentences segment finds."""
    from browser import chromium
    from selenium.webdriver.support.ui import WebDriverWait

    with chromium() as drv:
        drv.get(server.url)
        drv.find_element("css selector", "textarea").send_keys(TEXT)
        drv.find_element("css selector", "button[type=submit]").click()
        WebDriverWait(drv, 60).until(lambda d: d.execute_script("return document.getElementById('summary') !== null"
                                                                " && document.body.dataset.ready === '1'"),
                                     message=str(drv.get_log("browser")))
        shown = drv.execute_script("return document.querySelectorAll('.sent:not(.cont)').length")
        assert shown == len(segment_text(trained_nlp, TEXT))
        assert not [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
