"""`segment` as a user meets it: one-line errors for bad option values and
unloadable models, a usage line and help that read like a CLI, exact offsets for every newline
convention from files and stdin alike, stdin streamed and named sensibly, and output files that
SIGTERM does not leave half-written."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy

from spacy_joint_sbd.cli._util import atomic_path
from spacy_joint_sbd.segment import segment_stream, segment_texts


def run(*args, stdin=None, check=True, binary=False):
    proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", *map(str, args)],
                          capture_output=True, input=stdin, text=not binary)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def one_line_error(proc, *needles):
    """Exit code 1 or 2, exactly one non-empty line on stderr, starting `error:`, holding every
    needle, and no traceback."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode in (1, 2), proc.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def rules_model(tmp_path_factory) -> Path:
    """A pipeline directory with spaCy's sentencizer: fast, enough for the CLI's plumbing."""
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    path = tmp_path_factory.mktemp("models") / "rules"
    nlp.to_disk(path)
    return path


def run_here(capsys, *args):
    """`segment` in this process (the app as `python -m spacy_joint_sbd` runs it): (exit code,
    stdout, stderr)."""
    from spacy_joint_sbd.cli import app

    with pytest.raises(SystemExit) as e:
        app(["segment", *map(str, args)], prog_name="spacy_joint_sbd")
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, e.value.code or 0, out.out, out.err)


@pytest.mark.parametrize("args,needles", [
    (["--format", "xml"], ["--format", "xml"]),
    (["--newlines", "sometimes"], ["--newlines", "sometimes"]),
    (["--window-chars", "0"], ["--window-chars must be a positive integer, got 0"]),
    (["--batch-size", "-3"], ["--batch-size must be a positive integer, got -3"]),
    (["--n-process", "0"], ["--n-process"]),
    (["--batch-size", "many"], ["--batch-size"]),
    (["--no-such-option"], ["--no-such-option"]),
    (["--with-parse"], ["--with-parse", "jsonl"]),
    (["--pattern", ""], ["--pattern"]),
])
def test_every_bad_option_value_is_one_line(rules_model, capsys, args, needles):
    one_line_error(run_here(capsys, rules_model, "-", *args), *needles)


def test_an_unknown_encoding_is_one_line(rules_model):
    """As a user runs it (it was a 40-line traceback ending in LookupError)."""
    one_line_error(run(rules_model, "-", "--encoding", "foo-9", stdin="Hello there.", check=False),
                   "--encoding", "foo-9")


def test_bad_output_places_are_one_line(rules_model, tmp_path, capsys):
    one_line_error(run_here(capsys, rules_model, "-", "-o", tmp_path / "missing" / "out.txt"), "does not exist")
    one_line_error(run_here(capsys, rules_model, "-", "-o", tmp_path), "is a folder")


def test_settings_have_the_same_message_from_python_and_the_cli(rules_model):
    import io

    nlp = spacy.load(rules_model)
    with pytest.raises(ValueError, match="window_chars must be a positive integer, got 0"):
        list(segment_stream(nlp, io.StringIO("Hi."), window_chars=0))
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got 0"):
        list(segment_texts(nlp, [("x", "Hi.")], batch_size=0))


@pytest.mark.parametrize("damage", ["config syntax", "config interpolation", "meta.json", "tokenizer"])
def test_an_unloadable_model_is_one_line_naming_the_file(rules_model, tmp_path, capsys, damage):
    import shutil

    model = tmp_path / "damaged"
    shutil.copytree(rules_model, model)
    if damage == "config syntax":
        (model / "config.cfg").write_text("[nlp\nlang = en\n", encoding="utf8")
        broken = model / "config.cfg"
    elif damage == "config interpolation":
        cfg = (model / "config.cfg").read_text(encoding="utf8")
        (model / "config.cfg").write_text(cfg.replace("[nlp]", "[nlp]\nfoo = ${nowhere.x}"), encoding="utf8")
        broken = model / "config.cfg"
    elif damage == "meta.json":
        (model / "meta.json").write_text("{broken", encoding="utf8")
        broken = model / "meta.json"
    else:
        (model / "tokenizer").write_bytes(b"\x93garbage")
        broken = model / "tokenizer"
    one_line_error(run_here(capsys, model, "-"), "cannot load pipeline", str(broken))


def test_a_truncated_joint_model_is_one_line(trained_model_dir, tmp_path, capsys):
    import shutil

    model = tmp_path / "joint"
    shutil.copytree(trained_model_dir, model)
    weights = model / "joint_sbd_parser" / "model"
    weights.write_bytes(weights.read_bytes()[:100])
    one_line_error(run_here(capsys, model, "-"), "cannot load pipeline", str(model / "joint_sbd_parser"))


def test_usage_and_help_read_like_a_cli(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    proc = run_here(capsys, "--help")
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0
    assert "segment [OPTIONS] [MODEL] INPUT..." in text
    assert "{items}" not in text and "<list" not in text and "<bool>" not in text and "<str>" not in text
    for needle in ("lines:", "jsonl:", "conllu:", "0-based", "-1 for the root", "start_char", "CRLF"):
        assert needle in text, needle


def test_help_paragraphs_wrap_at_the_terminal_not_at_the_source_lines(capsys, monkeypatch):
    """Typer keeps a docstring's single line breaks after its first paragraph: on a wide terminal
    the formats paragraph came out cut at the source's columns ("... as spaces), a" / "blank line")."""
    monkeypatch.setenv("COLUMNS", "250")
    lines = [" ".join(line.split()) for line in run_here(capsys, "--help").stdout.splitlines()]
    assert any("lines: one sentence per line (its line breaks shown as spaces), a blank line between inputs. jsonl:"
               in line for line in lines)
    assert any("each jsonl record also has tokens" in line and "-1 for the root" in line for line in lines)


def test_offsets_are_exact_for_every_newline_convention_from_files_and_stdin(rules_model, tmp_path):
    """`\n`, `\r\n` and a lone `\r` (old Mac files): the same records from a file and from stdin, whose
    offsets index the text (stdin was read with newline translation: one short per `\r\n`)."""
    texts = {}
    for name, newline in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")):
        texts[name] = newline.join(["Hello there.", "General Kenobi.", "", "You are a bold one. Kill him!"]) + newline
        (tmp_path / f"{name}.txt").write_bytes(texts[name].encode("utf8"))
    from_files = {}
    for line in run(rules_model, tmp_path, "-f", "jsonl").stdout.splitlines():
        r = json.loads(line)
        from_files.setdefault(Path(r["source"]).stem, []).append(r)
    for name in ("crlf", "cr"):
        stdin = run(rules_model, "-", "-f", "jsonl", stdin=texts[name].encode("utf8"), binary=True)
        from_stdin = [json.loads(x) for x in stdin.stdout.decode("utf8").splitlines()]
        assert [(r["start_char"], r["end_char"], r["text"]) for r in from_stdin] == \
            [(r["start_char"], r["end_char"], r["text"]) for r in from_files[name]]
    for name, text in texts.items():
        assert [r["text"] for r in from_files[name]] == ["Hello there.", "General Kenobi.", "You are a bold one.",
                                                          "Kill him!"]
        for r in from_files[name]:
            assert text[r["start_char"]:r["end_char"]] == r["text"]


def test_long_stdin_is_streamed_in_windows(rules_model):
    text = "".join(f"Sentence number {i} is here.\r\n" for i in range(60))
    records = [json.loads(x) for x in run(rules_model, "-", "-f", "jsonl", "--window-chars", "100",
                                          stdin=text.encode("utf8"), binary=True).stdout.decode("utf8").splitlines()]
    assert len(records) == 60
    for r in records:
        assert text[r["start_char"]:r["end_char"]] == r["text"]


def test_conllu_from_stdin_has_sensible_ids(rules_model):
    out = run(rules_model, "-", "-f", "conllu", stdin="Hello there. General Kenobi.").stdout
    assert "# newdoc id = stdin" in out and "# sent_id = stdin-0001" in out and "# sent_id = stdin-0002" in out
    assert "--0001" not in out


def test_temporary_output_names_are_unique_per_run(tmp_path):
    out = tmp_path / "out.jsonl"
    with atomic_path(out) as a, atomic_path(out) as b:
        assert a != b and a.parent == b.parent == tmp_path
        a.write_text("a")
        b.write_text("b")
    assert out.read_text() in ("a", "b") and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_sigterm_leaves_no_partial_output(rules_model, tmp_path):
    """A run killed by SIGTERM while writing `-o` removes its temporary file (it stayed behind)."""
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "spacy_joint_sbd", "segment", str(rules_model), "-",
                             "-f", "jsonl", "-o", str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"Hello there. ")
        proc.stdin.flush()  # stdin stays open: the run waits for more text with its output open
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("*.partial")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert list(tmp_path.glob("*.partial")), "the run never opened its output"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert list(tmp_path.iterdir()) == [], err.decode()
