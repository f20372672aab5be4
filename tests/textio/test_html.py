"""`segment --format html`: a self-contained page whose sentences are JSONL's, whose threshold slider
re-draws them as `--threshold` does, and whose trees are displaCy's — checked in a real Chromium."""
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
from spacy_joint_sbd.textio.html import MAX_TREE_TOKENS, tree_svg

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


def data_blocks(text: str) -> List[dict]:
    return [json.loads(m) for m in re.findall(r'<script type="application/json" class="s">(.*?)</script>', text)]


@pytest.fixture(scope="module")
def calibrated_model_dir(trained_model_dir, sample_examples, tmp_path_factory) -> Path:
    """The fixture pipeline with a calibration fitted on its training documents: start
    probabilities between 0 and 1 (the beam marginal alone is 0 or 1 on such short texts)."""
    import spacy

    from spacy_joint_sbd.pipeline import calibration

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


def test_after_and_tokens_rebuild_the_text(trained_nlp, inputs):
    """Each sentence's tokens, the text between them and `after` give the text back, from the
    first sentence on: the page shows the input as it is."""
    text = inputs[0].read_text(encoding="utf-8")
    sents = segment_text(trained_nlp, text, with_parse=True)
    rebuilt = ""
    for s in sents:
        toks = s.tokens
        for a, b in zip(toks, toks[1:]):
            rebuilt += a["text"] + text[a["end_char"]:b["start_char"]]
        rebuilt += toks[-1]["text"] + s.after
        assert len(s.probs) == len(toks)
    assert rebuilt == text[sents[0].start_char:]


def test_the_page_has_one_data_block_per_sentence_and_no_outside_reference(trained_nlp, inputs):
    text = inputs[0].read_text(encoding="utf-8")
    sents = segment_text(trained_nlp, text, with_parse=True)
    html = page([("a <b> & c", sents)])
    blocks = data_blocks(html)
    assert len(blocks) == len(sents)
    assert [b["w"] for b in blocks] == [[t["text"] for t in s.tokens] for s in sents]
    assert [b["p"] for b in blocks] == [s.probs for s in sents]
    assert html.count("<template id=\"tree-") == sum(len(s.tokens) <= MAX_TREE_TOKENS for s in sents)
    assert not re.search(r"""(src|href)\s*=\s*["']?\w+:""", html), "the page must not load anything"
    assert "<link" not in html and "@import" not in html
    assert "a &lt;b&gt; &amp; c" in html


def test_text_cannot_end_the_data_script():
    evil = "</script><script>alert(1)</script> <!-- x"
    s = Sentence("x", 0, len(evil), evil, [{"text": evil, "start_char": 0, "end_char": len(evil), "head": -1,
                                            "dep": "root", "tag": None}], [1.0], "")
    html = page([("x", [s])])
    assert "alert(1)</script>" not in html
    assert data_blocks(html)[0]["w"] == [evil]


def test_an_empty_run_is_still_a_page():
    html = page([])
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_tree_svg_needs_a_parse():
    s = Sentence("x", 0, 2, "Hi", [{"text": "Hi", "start_char": 0, "end_char": 2, "head": None, "dep": None,
                                    "tag": None}])
    assert tree_svg(s) is None
    s.tokens[0].update(head=-1, dep="root")
    svg = tree_svg(s)
    assert svg.startswith("<svg") and 'viewBox="0 0 ' in svg and "height: auto" in svg


def test_the_page_in_chromium_agrees_with_segment(calibrated_model_dir, inputs, tmp_path):
    """In a real browser: no console error; the page shows as many sentences as JSONL has; the
    slider at P shows as many as `segment --threshold P`, at two thresholds that differ; a click
    on a sentence shows its displaCy tree and a second click hides it."""
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
            n = drv.execute_script("return document.querySelectorAll('.sent').length")
            assert drv.execute_script("return Number(document.getElementById('summary').dataset.count)") == n
            return n

        assert shown() == expected
        probs = drv.execute_script(
            "return [...document.querySelectorAll('script.s')].flatMap(e => JSON.parse(e.textContent).p || [])")
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
        assert drv.execute_script("return document.querySelectorAll('.tree svg.displacy').length") >= 1
        first.click()
        assert drv.execute_script("return document.querySelectorAll('.tree').length") == 0
        assert not [e for e in drv.get_log("browser") if e["level"] == "SEVERE"]
