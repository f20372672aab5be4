"""`segment`'s inputs and exit codes: named files that do not decode stop the run with nothing
written, files found in folders are skipped with a warning and exit 1, named pipes and process
substitutions read as streams, pipelines that set no sentences and codecs that decode no text
refused in one line, a window too small to hold a sentence refused, stale partial output removed."""
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import spacy

from spacy_joint_sbd.cli._util import atomic_path

SEGMENT = [sys.executable, "-m", "spacy_joint_sbd", "segment"]


def run(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*SEGMENT, *map(str, args)], capture_output=True, text=True, timeout=120, **kwargs)


def one_error(proc, code: int, *needles: str) -> str:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == code, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def rules_model(tmp_path_factory) -> Path:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    path = tmp_path_factory.mktemp("models") / "rules"
    nlp.to_disk(path)
    return path


@pytest.fixture
def texts(tmp_path) -> Path:
    (tmp_path / "good.txt").write_text("One sentence here. Another one.", encoding="utf-8")
    (tmp_path / "bad_utf8.txt").write_bytes(b"caf\xe9 au lait.")
    (tmp_path / "utf16_bom.txt").write_bytes("Hello there.".encode("utf-16"))
    return tmp_path


@pytest.mark.parametrize("names", [["bad_utf8.txt", "utf16_bom.txt"], ["good.txt", "utf16_bom.txt"]])
def test_named_files_that_do_not_decode_stop_the_run_with_nothing_written(rules_model, texts, tmp_path, names):
    out = tmp_path / "out.txt"
    proc = run(rules_model, *[texts / n for n in names], "-o", out)
    one_error(proc, 1, "not valid utf-8 at byte 0" if names[0] == "good.txt" else "bad_utf8.txt")
    assert not out.exists() and not list(tmp_path.glob(".*.partial"))


def test_a_file_found_in_a_folder_is_skipped_with_a_warning_and_exit_1(rules_model, texts, tmp_path):
    out = tmp_path / "out.txt"
    proc = run(rules_model, texts, "--pattern", "*.txt", "-o", out)
    assert proc.returncode == 1
    assert proc.stderr.count("warning: skipped") == 2
    assert "done: 2 sentences from 1 inputs; 2 skipped" in proc.stderr
    assert out.read_text() == "One sentence here.\nAnother one.\n"
    piped = run(rules_model, texts)  # to stdout: the skipped count is still said
    assert piped.returncode == 1 and "2 skipped" in piped.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_and_a_process_substitution_are_read_as_streams(rules_model, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w") as f:
            f.write("Hello there. Bye now.")

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    proc = run(rules_model, fifo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello there.\nBye now.\n"
    if shutil.which("bash"):
        cmd = " ".join([*SEGMENT, str(rules_model), "<(printf 'Hello there. Bye now.')", "-f", "jsonl"])
        proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count('"start_char"') == 2


@pytest.mark.parametrize("codec", ["rot13", "base64", "hex"])
def test_a_codec_that_decodes_no_text_is_an_option_error(rules_model, texts, codec):
    one_error(run(rules_model, texts / "good.txt", "--encoding", codec), 2, f"--encoding '{codec}'",
              "not a text encoding")


@pytest.mark.parametrize("codec,data", [("utf-7", b"Hello +2AA- world."), ("unicode_escape", b"Hi \\ud800 there.")])
def test_a_lone_surrogate_is_one_line(rules_model, tmp_path, codec, data):
    path = tmp_path / "odd.txt"
    path.write_bytes(data)
    one_error(run(rules_model, path, "--encoding", codec), 1, "odd.txt", "lone surrogate U+D800 at character")


def test_a_pipeline_that_sets_no_sentences_is_one_line(texts):
    one_error(run("-m", "blank:en", texts / "good.txt"), 1, "'blank:en' sets no sentence boundaries")


@pytest.mark.parametrize("window", ["1", "10"])
def test_a_window_too_small_for_a_sentence_is_an_option_error(rules_model, texts, window):
    one_error(run(rules_model, texts / "good.txt", "--window-chars", window), 2, "--window-chars must be at least")


def test_option_values_exit_2_and_the_help_says_so(rules_model, texts):
    one_error(run(rules_model, texts / "good.txt", "--threshold", "1.5"), 2, "--threshold")
    one_error(run(rules_model, texts / "good.txt", "--format", "xml"), 2, "--format")
    helptext = run("--help", env={**os.environ, "COLUMNS": "200"}).stdout
    assert "Exit codes: 0 done;" in helptext and "2 a malformed command line or a bad option value" in helptext


def test_a_stale_partial_of_the_same_output_is_removed(tmp_path):
    """Left by a killed run (its process is gone): removed; a running one's is kept."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = tmp_path / "out.txt"
    stale = tmp_path / f".out.txt.{dead.pid}-0badcafe.partial"
    live = tmp_path / f".out.txt.{os.getppid()}-0badcafe.partial"
    other = tmp_path / f".other.txt.{dead.pid}-0badcafe.partial"
    for p in (stale, live, other):
        p.write_text("half")
    with atomic_path(out) as tmp:
        tmp.write_text("whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, live.name, other.name])


@pytest.mark.parametrize("stdin", [False, True])
def test_utf16_without_a_byte_order_mark_is_one_error_line(rules_model, tmp_path, stdin):
    """utf-16 needs a byte-order mark to know the byte order: its absence is the codec's own
    UnicodeError (no UnicodeDecodeError), named like every other decoding error."""
    path = tmp_path / "le.txt"
    path.write_bytes("Hello there. Two sentences.".encode("utf-16-le"))
    if stdin:
        with open(path, "rb") as f:
            proc = run(rules_model, "-", "--encoding", "utf-16", stdin=f)
        one_error(proc, 1, "stdin: not valid utf-16 at byte 0", "BOM")
    else:
        one_error(run(rules_model, path, "--encoding", "utf-16"), 1, f"{path}: not valid utf-16 at byte 0", "BOM")


@pytest.mark.parametrize("pattern", ["../*.txt", "sub/../../*.txt", "..\\*.txt", ".."])
def test_a_pattern_stays_inside_its_folder(rules_model, tmp_path, pattern):
    (tmp_path / "outside.txt").write_text("Outside the folder.", encoding="utf-8")
    (tmp_path / "d" / "sub").mkdir(parents=True)
    (tmp_path / "d" / "in.txt").write_text("Inside.", encoding="utf-8")
    proc = run(rules_model, tmp_path / "d", "--pattern", pattern)
    one_error(proc, 2, "--pattern", "inside its folder")
    assert "Outside" not in proc.stdout
