"""The encoder project's data and export steps on a tiny random BERT and a few text files."""
import json
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("tokenizers")
safetensors_numpy = pytest.importorskip("safetensors.numpy")

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
TEXT = {
    "talk/train/a.txt": "So I went to the store. They had no milk left! I asked the clerk about it.\n"
                        "She said, \"Next day.\" Okay, hello there.\n",
    "talk/train/b.txt": "We met the team. The next day came and she said yes. Hello world.\n" * 6,
    "talk/dev/c.txt": "Hello there. I went to the store. They had no milk. Okay.\n" * 8,
}


def _text(root: Path) -> Path:
    for name, body in TEXT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body, encoding="utf8")
    return root


def test_corruption_lowercases_strips_and_passes_starts_on():
    from prepare import corrupt, strip_marks

    assert strip_marks('"Hello,') == "Hello" and strip_marks("--") == "" and strip_marks("don't") == "don't"
    words = ["Yes", ".", '"', "Next", "day", ".", "OK"]
    starts = [True, False, True, False, False, False, True]
    assert corrupt(words, starts) == (["yes", "next", "day", "ok"], [True, True, False, True])


def _prepare(tmp_path, tok, out, seed=0):
    subprocess.run([sys.executable, str(SCRIPTS / "prepare.py"), str(out), "--text", str(tmp_path / "text"),
                    "--include", "talk", "--tokenizer", str(tok), "--words", "0", "--window-words", "12",
                    "--corrupt", "0.5", "--seed", str(seed)], check=True, capture_output=True)
    return numpy.load(out)


def test_prepare_writes_labelled_windows_deterministically(tmp_path):
    from tiny_bert import wordpiece_tokenizer_json

    _text(tmp_path / "text")
    tok = tmp_path / "tokenizer.json"
    tok.write_text(wordpiece_tokenizer_json())
    a = _prepare(tmp_path, tok, tmp_path / "a.npz")
    b = _prepare(tmp_path, tok, tmp_path / "b.npz")
    for key in ("ids", "labels", "starts"):
        numpy.testing.assert_array_equal(a[key], b[key])
    meta = json.loads(str(a["meta"]))
    assert meta["windows"] == len(a["starts"]) - 1 > 3
    assert meta["read_words"] < 200  # dev text was not read
    labels = a["labels"]
    assert set(numpy.unique(labels)) <= {-1, 0, 1} and (labels == 1).sum() == meta["positives"] > 0
    assert (labels >= 0).sum() == meta["words"]
    for s in a["starts"][:-1]:
        assert labels[s] >= 0  # a window opens with a word's first piece
    c = _prepare(tmp_path, tok, tmp_path / "c.npz", seed=1)
    assert not numpy.array_equal(a["ids"], c["ids"])


def test_export_writes_a_checked_calibrated_encoder(tmp_path):
    from tiny_bert import SHAPE, random_weights, wordpiece_tokenizer_json

    from spacy_joint_sbd.encoder.files import EncoderFiles

    snap, base = tmp_path / "snap", tmp_path / "base"
    snap.mkdir()
    base.mkdir()
    safetensors_numpy.save_file(random_weights(2), str(snap / "model.safetensors"))
    (snap / "config.json").write_text(json.dumps(SHAPE.to_dict()))
    (snap / "train.json").write_text(json.dumps({"words": 1234, "windows_meta": {"window_words": 12}}))
    (base / "tokenizer.json").write_text(wordpiece_tokenizer_json())
    _text(tmp_path / "text")
    subprocess.run([sys.executable, str(SCRIPTS / "export.py"), str(snap), str(base), str(tmp_path / "enc"),
                    "--dev", str(tmp_path / "text"), "--include", "talk/dev", "--dev-words", "500", "--float"],
                   check=True, capture_output=True)
    files = EncoderFiles.from_disk(tmp_path / "enc")
    card = files.card
    assert card["train"]["words"] == 1234 and card["max_words"] == 12
    assert set(card["dev"]) >= {"float32", "int8", "int8_calibrated"} and card["dev"]["words"] > 50
    assert files.calibration()["scale"] != 1.0
    assert (tmp_path / "enc" / "encoder_fp32.onnx").stat().st_size > len(files.graph)


def test_curve_scores_at_half_and_at_the_best_threshold():
    from curve import best_threshold, prf

    logits = numpy.array([3.0, 1.0, 0.5, -0.2, -1.0, -2.0])
    gold = numpy.array([True, False, True, True, False, False])
    assert prf(logits >= 0, gold) == {"p": 66.67, "r": 66.67, "f": 66.67}
    best = best_threshold(logits, gold)  # the top four: 3 of 3 found, 1 false
    assert best["f"] == 85.71 and best["p_threshold"] == round(1 / (1 + numpy.exp(0.2)), 3)
    assert best_threshold(numpy.array([1.0, -1.0]), numpy.array([False, False]))["f"] == 0.0


def test_curve_replots_its_json_with_word_count_ticks(tmp_path):
    from curve import words_label

    assert [words_label(n) for n in (250_000, 1_000_000, 6_000_000, 16_000_000)] == ["250k", "1M", "6M", "16M"]
    row = {"star": {"f": 60.0, "best": {"f": 62.0}}}
    curve = {"run": "r", "dev": {"star": "dev_star.npz"},
             "snapshots": [{"words": 250_000, "sets": row}, {"words": 1_000_000, "sets": row}]}
    (tmp_path / "c.json").write_text(json.dumps(curve))
    done = subprocess.run([sys.executable, str(SCRIPTS / "curve.py"), str(tmp_path / "run"), str(tmp_path / "c.json"),
                           "--png", str(tmp_path / "c.png"), "--replot"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    bad = subprocess.run([sys.executable, str(SCRIPTS / "curve.py"), str(tmp_path / "run"), str(tmp_path / "none.json"),
                          "--replot"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--replot" in bad.stderr
    other = dict(curve, run="r16", snapshots=[{"words": 8_000_000, "sets": row}, {"words": 16_000_000, "sets": row}])
    (tmp_path / "o.json").write_text(json.dumps(other))
    both = subprocess.run([sys.executable, str(SCRIPTS / "curve.py"), str(tmp_path / "run"), str(tmp_path / "c.json"),
                           "--png", str(tmp_path / "both.png"), "--replot", "--with", str(tmp_path / "o.json")],
                          capture_output=True, text=True)
    assert both.returncode == 0, both.stderr
    assert (tmp_path / "both.png").read_bytes()[:4] == b"\x89PNG"
    gone = subprocess.run([sys.executable, str(SCRIPTS / "curve.py"), str(tmp_path / "run"), str(tmp_path / "c.json"),
                           "--png", str(tmp_path / "x.png"), "--replot", "--with", str(tmp_path / "none.json")],
                          capture_output=True, text=True)
    assert gone.returncode != 0 and "none.json" in gone.stderr


def test_ship_copies_a_checked_encoder_with_its_command_and_refuses_a_large_one(tmp_path):
    from tiny_bert import write_encoder_dir

    from spacy_joint_sbd.encoder.files import EncoderFiles

    src = write_encoder_dir(tmp_path / "enc")
    cmd = [sys.executable, str(SCRIPTS / "ship.py"), str(src), str(tmp_path / "weights"), "--command", "python -m x"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    shipped = EncoderFiles.from_disk(tmp_path / "weights")
    assert shipped.graph == EncoderFiles.from_disk(src).graph and shipped.card["command"] == "python -m x"
    big = subprocess.run(cmd[:3] + [str(tmp_path / "w2"), "--command", "x", "--max-mb", "0.001"],
                         capture_output=True, text=True)
    assert big.returncode != 0 and "over --max-mb" in big.stderr and not (tmp_path / "w2").exists()
    (src / "tokenizer.json").write_text("{}")
    bad = subprocess.run(cmd[:3] + [str(tmp_path / "w3"), "--command", "x"], capture_output=True, text=True)
    assert bad.returncode != 0 and "sha256" in bad.stderr and not (tmp_path / "w3").exists()


def test_a_resumed_fine_tuning_keeps_the_snapshots_it_has_passed():
    from snapshots import pending_snapshots

    assert pending_snapshots("250000,1000000,8000000", 4000000) == [250000, 1000000, 4000000]
    assert pending_snapshots("1000000,4000000", 4000000) == [1000000, 4000000]
    # resumed from a checkpoint at 7.6 M words of a 16 M-word run: only 8 M and 16 M are left
    assert pending_snapshots("250000,4000000,8000000,16000000", 16000000, 7592887) == [8000000, 16000000]
    assert pending_snapshots("1000000", 2000000, 2000000) == []


def test_the_curve_reads_a_snapshot_only_when_its_weights_match_its_name():
    from snapshots import snapshot_is_consistent

    assert snapshot_is_consistent(8000000, 8002490)
    assert snapshot_is_consistent(250000, 251800)
    assert not snapshot_is_consistent(250000, 7655146)  # overwritten by later weights
    assert snapshot_is_consistent(16000000, 15997843)  # the last step, a little short of the budget
    assert not snapshot_is_consistent(1000000, 980000)


def test_operating_point_summarises_the_choices_made_on_dev():
    from operating_point import operating_point

    metrics = {"chosen": {"prior_weight": 0.3, "sb_bias": 0.45}, "tuning": [{"prior_weight": 0.0}],
               "calibration": {"sets": {"EWT dev": {"ece": 0.003753, "tokens": 10}}}}
    got = operating_point(metrics, {"blend": 0.7, "blend_punctuated": 0.0, "own_features": True})
    assert got["chosen"] == metrics["chosen"] and got["calibration_ece"] == {"EWT dev": 0.0038}
    assert (got["blend"], got["blend_punctuated"], got["parser_features"]) == (0.7, 0.0, "own")
    assert operating_point(metrics, {})["parser_features"] == "blend"


def _tiny_ud(root: Path) -> Path:
    """A UD folder whose `en_tiny` treebank's train and dev are the repository's EWT sample."""
    sample = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "en_ewt-sample.conllu"
    (root / "en_tiny").mkdir(parents=True)
    for split in ("train", "dev"):
        (root / "en_tiny" / f"{split}.conllu").write_text(sample.read_text(encoding="utf8"), encoding="utf8")
    return root


def _prepare_syntax(tmp_path, tok, out, *extra):
    subprocess.run([sys.executable, str(SCRIPTS / "prepare_syntax.py"), str(out), "--ud", str(tmp_path / "ud"),
                    "--treebanks", "en_tiny", "--tokenizer", str(tok), "--folds", "2", *extra],
                   check=True, capture_output=True)
    return numpy.load(out)


def test_treebank_windows_point_heads_at_pieces_in_the_window(tmp_path):
    from syntax_windows import Treebank, collate
    from tiny_bert import wordpiece_tokenizer_json

    from spacy_joint_sbd.corpus.conllu import read_conllu

    _tiny_ud(tmp_path / "ud")
    tok = tmp_path / "tokenizer.json"
    tok.write_text(wordpiece_tokenizer_json())
    a = _prepare_syntax(tmp_path, tok, tmp_path / "a.npz")
    b = _prepare_syntax(tmp_path, tok, tmp_path / "b.npz")
    for key in ("ids", "heads", "labels", "starts", "doc_fold"):
        numpy.testing.assert_array_equal(a[key], b[key])
    meta = json.loads(str(a["meta"]))
    plain = read_conllu(tmp_path / "ud" / "en_tiny" / "train.conllu", "plain")
    star = read_conllu(tmp_path / "ud" / "en_tiny" / "train.conllu", "star")
    assert meta["words"] == sum(len(r) for r in plain + star) and meta["documents"] == len(plain) + len(star)
    assert set(meta["labels"]) == {d for r in plain for d in r.deps}
    # a document and its star variant share a fold
    n = len(plain)
    numpy.testing.assert_array_equal(a["doc_fold"][:n], a["doc_fold"][n:])
    tb = Treebank(tmp_path / "a.npz")
    import random

    seen = 0
    for rng in (None, random.Random(3)):
        wins = tb.windows(7, 254, rng)
        assert sum(e - s for _, s, e in wins) == meta["words"]  # every word once
        for d, s, e in wins[:40]:
            w = tb.window(d, s, e)
            first = numpy.flatnonzero(w["candidates"][1:]) + 1
            assert len(first) == e - s == w["words"]
            for k, pos in enumerate(first):
                gold = int(tb.heads[s + k])
                target = w["heads"][pos]
                if gold < 0:
                    assert target == 0
                elif s <= gold + tb.doc_words[d] < e:
                    assert target == first[gold + tb.doc_words[d] - s]
                    assert meta["labels"][w["labels"][pos]] == tb.meta["labels"][tb.labels[s + k]]
                    seen += 1
                else:
                    assert target == -1
    assert seen > 50
    batch = collate([tb.window(*x) for x in wins[:3]], 0, 2, 3)
    assert batch["ids"].shape == batch["heads"].shape and (batch["ids"][:, 0] == 2).all()
    # a fold's encoder trains on the other folds' documents only
    out = Treebank(tmp_path / "a.npz", fold=0)
    assert all(tb.doc_fold[d] == 1 for d in out.docs) and 0 < len(out.docs) < len(tb.docs)


def test_export_of_a_multi_task_snapshot_records_its_labels_and_dev_scores(tmp_path):
    from tiny_bert import SHAPE, random_head_weights, random_weights, wordpiece_tokenizer_json

    from spacy_joint_sbd.encoder.files import EncoderFiles

    _tiny_ud(tmp_path / "ud")
    labels = sorted({d for r in __import__("spacy_joint_sbd.corpus.conllu", fromlist=["read_conllu"]).read_conllu(
        tmp_path / "ud" / "en_tiny" / "train.conllu") for d in r.deps})
    snap, base = tmp_path / "snap", tmp_path / "base"
    snap.mkdir()
    base.mkdir()
    weights = {**random_weights(2), **random_head_weights(3, n_labels=len(labels), n_upos=17)}
    safetensors_numpy.save_file(weights, str(snap / "model.safetensors"))
    (snap / "config.json").write_text(json.dumps(SHAPE.to_dict()))
    upos = ["ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
            "PUNCT", "SCONJ", "SYM", "VERB", "X"]
    (snap / "train.json").write_text(json.dumps({"words": 99, "treebank_meta": {"labels": labels, "upos": upos}}))
    (base / "tokenizer.json").write_text(wordpiece_tokenizer_json())
    _text(tmp_path / "text")
    subprocess.run([sys.executable, str(SCRIPTS / "export.py"), str(snap), str(base), str(tmp_path / "enc"),
                    "--dev", str(tmp_path / "text"), "--include", "talk/dev", "--dev-words", "300", "--top-k", "3",
                    "--ud", str(tmp_path / "ud"), "--syntax-sets", "en_tiny/dev"], check=True, capture_output=True)
    card = EncoderFiles.from_disk(tmp_path / "enc").card
    assert card["syntax"]["labels"] == labels and card["syntax"]["top_k"] == 3
    dev = card["syntax"]["dev"]
    assert set(dev) == {"en_tiny/dev", "en_tiny/dev*"}
    for kind in ("float32", "int8"):
        assert dev["en_tiny/dev"][kind]["words"] > 100 and 0 <= dev["en_tiny/dev"][kind]["las"] <= 100
    out = tmp_path / "scores.json"
    subprocess.run([sys.executable, str(SCRIPTS / "score_syntax.py"), str(tmp_path / "enc"), str(out),
                    "--ud", str(tmp_path / "ud"), "--sets", "en_tiny/dev", "--variants", "star"],
                   check=True, capture_output=True)
    got = json.loads(out.read_text())["sets"]["en_tiny/dev*"]["int8"]
    assert got == dev["en_tiny/dev*"]["int8"] | {"words_per_second": got["words_per_second"]}


def test_syntax_curve_reads_every_scored_snapshot_in_step_order(tmp_path):
    from curve_syntax import points

    ev = {"plain": {"las": 70.0, "uas": 75.0, "boundary": {"f": 80.0}}, "star": {"las": 60.0, "uas": 65.0, "boundary": {"f": 50.0}}}
    for name, steps in (("final", 30), ("step_10", 10), ("step_20", 20)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.json").write_text(json.dumps({"steps": steps, "words": 100 * steps, "seconds": 1.0, "eval": ev}))
    (tmp_path / "unscored").mkdir()
    (tmp_path / "unscored" / "train.json").write_text(json.dumps({"steps": 5, "words": 500, "seconds": 1.0}))
    assert [p["snapshot"] for p in points(tmp_path)] == ["step_10", "step_20", "final"]
    out = tmp_path / "c.json"
    subprocess.run([sys.executable, str(SCRIPTS / "curve_syntax.py"), str(tmp_path), str(out), "--png", str(tmp_path / "c.png")],
                   check=True, capture_output=True)
    assert len(json.loads(out.read_text())["points"]) == 3 and (tmp_path / "c.png").stat().st_size > 1000
