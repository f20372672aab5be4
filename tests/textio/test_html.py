"""`segment --format html`: a self-contained page whose sentences are JSONL's, whose threshold slider
re-draws them as `--threshold` does, and whose trees are drawn on a click — checked in a real
Chromium, on a page of 5 MB of text too."""
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from browser import chromium

from spacy_joint_sbd.segment import Sentence, segment_text
from spacy_joint_sbd.textio import Writer
from spacy_joint_sbd.textio.html import _ALPHABET, CHUNK_CHARS, LARGE_PAGE_CHARS, PROB_SCALE, SLIDER_MIN, HtmlWriter

HELD_OUT = slice(24, None)
"""The sample documents the fixture pipeline was not trained on (`trained_nlp` takes the first 24)."""


def segment(*args: object) -> str:
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", *map(str, args)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def jsonl_count(*args: object) -> int:
    return len(segment(*args, "-f", "jsonl").splitlines())


def page(sentences_by_source) -> str:
    out = io.StringIO()
    writer = Writer(out, "html")
    for source, sents in sentences_by_source:
        writer.write(source, iter(sents))
    writer.close()
    return out.getvalue()


def chunk_blocks(text: str) -> List[dict]:
    return [json.loads(m) for m in re.findall(r'<script type="application/json" class="c" id="[^"]*">(.*?)</script>',
                                              text)]


def ints(digits: str) -> List[int]:
    """The page's integers (`_varints`) read back."""
    out, acc, mul = [], 0, 1
    for ch in digits:
        v = _ALPHABET.index(ch)
        if v >= 45:
            acc, mul = acc + (v - 45) * mul, mul * 45
        else:
            out.append(acc + v * mul)
            acc, mul = 0, 1
    return out


WORDS = ("the shop opened in may and sold bread cakes to people who came early most days it was out by noon "
         "we went there twice a week").split()


def synthetic_sentences(chars: int, seed: int = 0) -> List[Sentence]:
    """Parsed sentences of about `chars` characters, as a pipeline gives them (tokens, heads, start
    probabilities, the text between): a page as large as wanted without parsing it."""
    import random

    rng = random.Random(seed)
    out: List[Sentence] = []
    at = 0
    while at < chars:
        n = rng.randint(4, 30)
        words = [rng.choice(WORDS) for _ in range(n)] + ["."]
        words[0] = words[0].capitalize()
        toks, pos = [], at
        for i, w in enumerate(words):
            if i and w != ".":
                pos += 1
            toks.append({"text": w, "start_char": pos, "end_char": pos + len(w), "head": -1 if i == 0 else i - 1,
                         "dep": "root" if i == 0 else rng.choice(("nsubj", "obj", "det", "punct")),
                         "tag": rng.choice(("NN", "VB", "DT", "IN"))})
            pos += len(w)
        probs = [round(rng.uniform(0.5, 1.0), 4)] + [rng.choice((0.0001, 0.002, 0.05, 0.2, 0.45))
                                                     for _ in words[1:]]
        after = "\n\n" if rng.random() < 0.15 else " "
        text = "".join(t["text"] if i == 0 else " " * (t["start_char"] - toks[i - 1]["end_char"]) + t["text"]
                       for i, t in enumerate(toks))
        out.append(Sentence("s", at, pos, text, toks, probs, after, "" if not out else None))
        at = pos + len(after)
    return out


@pytest.fixture(scope="module")
def calibrated_model_dir(trained_model_dir, sample_examples, tmp_path_factory) -> Path:
    """The fixture pipeline with a calibration fitted on its training documents: start
    probabilities between 0 and 1 (the beam marginal alone is 0 or 1 on such short texts)."""
    import spacy

    from spacy_joint_sbd.pipeline.joint import calibration

    nlp = spacy.load(trained_model_dir)
    rows = calibration.collect(nlp, [eg.reference for eg in sample_examples[1][:24]])
    nlp.get_pipe("joint_sbd_parser").cfg["calibration"] = calibration.fit_regimes(rows)
    path = tmp_path_factory.mktemp("models") / "calibrated"
    nlp.to_disk(path)
    return path


@pytest.fixture(scope="module")
def inputs(sample_examples, tmp_path_factory) -> List[Path]:
    """The held-out texts, as two input files."""
    folder = tmp_path_factory.mktemp("texts")
    docs = [eg.reference for eg in sample_examples[1][HELD_OUT]]
    half = len(docs) // 2
    paths = []
    for k, part in enumerate((docs[:half], docs[half:])):
        path = folder / f"text{k}.txt"
        path.write_text("\n\n".join(d.text for d in part) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_before_after_and_tokens_rebuild_the_text(trained_nlp, inputs):
    """The first sentence's `before`, each sentence's tokens, the text between them and `after`
    give the text back whole: the page shows the input as it is."""
    text = "\n\n  " + inputs[0].read_text(encoding="utf-8")
    sents = segment_text(trained_nlp, text, with_parse=True)
    rebuilt = sents[0].before
    for s in sents:
        toks = s.tokens
        for a, b in zip(toks, toks[1:]):
            rebuilt += a["text"] + text[a["end_char"]:b["start_char"]]
        rebuilt += toks[-1]["text"] + s.after
        assert len(s.probs) == len(toks)
    assert rebuilt == text


def test_the_chunks_hold_the_text_once_and_every_sentence(trained_nlp, inputs):
    base = inputs[0].read_text(encoding="utf-8")
    text = base * (3 * CHUNK_CHARS // len(base) + 1)
    sents = segment_text(trained_nlp, text, with_parse=True)
    html = page([("a <b> & c", sents)])
    blocks = chunk_blocks(html)
    assert len(blocks) > 1 and all(len(b["t"]) < 2 * CHUNK_CHARS for b in blocks)
    assert "".join(b["t"] for b in blocks) == text
    spans, starts = [], {}
    for b in blocks:
        at = b["o"]
        s_ints, c_ints = ints(b["s"]), ints(b["c"])
        for gap, length in zip(s_ints[::2], s_ints[1::2]):
            spans.append((at + gap, at + gap + length))
            at += gap + length
        at = b["o"]
        for gap, length, p in zip(c_ints[::3], c_ints[1::3], c_ints[2::3]):
            at += gap
            starts[at] = (length, p / PROB_SCALE)
    assert spans == [(s.start_char, s.end_char) for s in sents]
    assert starts == {t["start_char"]: (len(t["text"]), round(p, 4)) for s in sents for t, p in zip(s.tokens, s.probs)
                      if p >= SLIDER_MIN}
    assert f'<span hidden id="n-0">{len(sents)}</span>' in html
    assert not re.search(r"""(src|href)\s*=\s*["']?\w+:""", html), "the page must not load anything"
    assert "<link" not in html and "@import" not in html
    assert "a &lt;b&gt; &amp; c" in html


def test_text_cannot_end_the_data_script():
    evil = "</script><script>alert(1)</script> <!-- x"
    s = Sentence("x", 0, len(evil), evil, [{"text": evil, "start_char": 0, "end_char": len(evil), "head": -1,
                                            "dep": "root", "tag": None}], [1.0], "")
    html = page([("x", [s])])
    assert "alert(1)</script>" not in html
    assert chunk_blocks(html)[0]["t"] == evil


def test_an_empty_run_is_still_a_page():
    html = page([])
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_a_large_page_is_announced():
    notes: List[str] = []
    writer = HtmlWriter(io.StringIO(), note=notes.append)
    writer.write("a", iter(synthetic_sentences(LARGE_PAGE_CHARS // 4)))
    writer.close()
    assert notes == [] or writer.written > LARGE_PAGE_CHARS
    writer = HtmlWriter(io.StringIO(), note=notes.append)
    writer.write("a", iter(synthetic_sentences(LARGE_PAGE_CHARS)))
    writer.close()
    assert len(notes) == 1 and notes[0].startswith(f"the page is {writer.written / 1e6:.1f} MB")


def test_nul_cr_and_whitespace_alone_in_chromium(trained_nlp, tmp_path):
    """The visible text is the input's, character for character (a NUL and a CR are no markup's:
    they stay); a text of whitespace alone says it has no sentence."""
    texts = {"odd": "\n\n  First line.\r\nSecond\x00 line here.\r\rThird one.\r\n", "blank": " \n\t\r\n "}
    path = tmp_path / "page.html"
    path.write_text(page([(name, segment_text(trained_nlp, text, with_parse=True)) for name, text in texts.items()]),
                    encoding="utf-8", newline="")
    with chromium() as drv:
        drv.get(path.as_uri())
        assert drv.execute_script("return document.body.dataset.ready") == "1"
        assert drv.execute_script("return document.getElementById('text-0').textContent") == texts["odd"]
        assert drv.execute_script("return document.querySelectorAll('#text-0 .sent').length") >= 2
        assert drv.execute_script("return document.getElementById('text-1').textContent") == \
            "No sentences: the text is empty or whitespace alone."
        assert not [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


def test_the_page_in_chromium_agrees_with_segment(calibrated_model_dir, inputs, tmp_path):
    """In a real browser: no console error; the page shows as many sentences as JSONL has; the
    slider at P shows as many as `segment --threshold P`, at two thresholds that differ; a click
    on a sentence shows its tree and a second click hides it."""
    model = calibrated_model_dir
    out = tmp_path / "page.html"
    segment(model, *inputs, "-f", "html", "-o", out)
    expected = jsonl_count(model, *inputs)
    with chromium() as drv:
        drv.get(out.as_uri())
        assert drv.execute_script("return document.body.dataset.ready") == "1"
        errors = [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert not errors, errors

        def shown() -> int:
            n = drv.execute_script("return document.querySelectorAll('.sent:not(.cont)').length")
            assert drv.execute_script("return Number(document.getElementById('summary').dataset.count)") == n
            return n

        assert shown() == expected
        probs = [v / PROB_SCALE for b in chunk_blocks(out.read_text(encoding="utf-8")) for v in ints(b["c"])[2::3]]
        # thresholds between the probabilities (a range input keeps 15 digits: a value equal to a
        # probability would not stay equal), the lowest and the highest the slider can take
        low = float(drv.execute_script("return document.getElementById('thr').min"))
        levels = sorted({p for p in probs if p > low})
        cuts = [(a + b) / 2 for a, b in zip([low] + levels, levels)]
        assert len(cuts) >= 2, f"the fixture's probabilities give no threshold to move: {levels}"
        counts = {}
        for threshold in (cuts[0], cuts[-1]):
            drv.execute_script("const t = document.getElementById('thr'); t.value = arguments[0];"
                               "t.dispatchEvent(new Event('input'));", repr(threshold))
            drv.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            assert not drv.execute_script("return document.getElementById('own').checked")
            counts[threshold] = shown()
            assert counts[threshold] == jsonl_count(model, *inputs, "--threshold", repr(threshold)), threshold
        assert len(set(counts.values())) == 2, counts

        drv.execute_script("document.getElementById('own').click()")
        drv.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        assert shown() == expected
        first = drv.find_element("css selector", ".sent")
        first.click()
        assert drv.execute_script("return document.querySelectorAll('.tree svg.tree-svg text.w').length") >= 2
        first.click()
        assert drv.execute_script("return document.querySelectorAll('.tree').length") == 0
        assert not [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]


def chromium_memory(drv) -> int:
    """Bytes the browser's processes hold now (the sum of their proportional set sizes)."""
    import psutil

    total = 0
    for proc in psutil.Process(drv.service.process.pid).children(recursive=True):
        try:
            total += proc.memory_full_info().pss
        except psutil.Error:
            pass
    return total


BIG_TEXT_CHARS = 5_000_000
BROWSER_MEMORY_TARGET = 1 << 30
"""The most the browser may hold for the page of `BIG_TEXT_CHARS` characters of text."""


def test_a_page_of_5_mb_of_text_stays_usable_in_chromium(tmp_path):
    """The page of 5 MB of text (synthetic sentences through the writer `segment` uses): it
    renders, draws the sentences where the reader scrolls, follows the slider and draws a tree,
    with the browser's peak memory printed and bounded."""
    import threading
    import time

    sents = synthetic_sentences(BIG_TEXT_CHARS)
    path = tmp_path / "big.html"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = Writer(f, "html")
        writer.write("big.txt", iter(sents))
        writer.close()
    page_mb = path.stat().st_size / 1e6
    probs = [p for s in sents for p in s.probs][1:]  # every token but the first: the text starts a sentence
    with chromium() as drv:
        peak, stop = [0], threading.Event()

        def watch() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], chromium_memory(drv))
                stop.wait(0.2)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            start = time.monotonic()
            drv.set_page_load_timeout(300)
            drv.get(path.as_uri())
            assert drv.execute_script("return document.body.dataset.ready") == "1"
            loaded = time.monotonic() - start
            count = lambda: drv.execute_script("return Number(document.getElementById('summary').dataset.count)")
            assert count() == len(sents)
            drawn = drv.execute_script("return document.querySelectorAll('.sent').length")
            assert 0 < drawn < len(sents) / 10, drawn  # only near the screen
            drv.execute_script("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
            drv.execute_script("return new Promise(r => setTimeout(r, 300))")
            in_view = ("return [...document.querySelectorAll('.sent')].filter(e => {"
                       " const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })")
            middle = [int(e.get_attribute("data-a")) for e in drv.execute_script(in_view)]
            assert middle and min(middle) > BIG_TEXT_CHARS / 4, middle  # drawn where the reader is, far in
            timings = {}
            for threshold in (0.3, 0.01):
                t0 = time.monotonic()
                drv.execute_script("const t = document.getElementById('thr'); t.value = arguments[0];"
                                   "t.dispatchEvent(new Event('input'));", repr(threshold))
                drv.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
                timings[threshold] = time.monotonic() - t0
                assert count() == 1 + sum(p >= threshold for p in probs), threshold
            spans = drv.execute_script(in_view)
            assert spans
            drv.execute_script("arguments[0].click()", spans[len(spans) // 2])
            words = drv.execute_script("return document.querySelectorAll('.tree svg.tree-svg text.w').length")
            assert words >= 2
            time.sleep(0.5)
        finally:
            stop.set()
            watcher.join()
        assert not [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]
    print(f"\n5 MB page: {page_mb:.1f} MB file, {len(sents):,} sentences; Chromium: loaded in {loaded:.1f} s, "
          f"slider {max(timings.values()) * 1000:.0f} ms, peak memory {peak[0] / 2**20:.0f} MiB (PSS, all processes)")
    assert peak[0] <= BROWSER_MEMORY_TARGET, f"{peak[0] / 2**20:.0f} MiB"
