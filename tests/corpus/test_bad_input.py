"""Malformed CoNLL-U: one clear error naming file and line, or a reported repair with --repair."""
import pytest

from spacy_joint_sbd.corpus import ConllUError, read_conllu

GOOD = "# newdoc id = d1\n# text = A b .\n1\tA\ta\tNOUN\tNN\t_\t2\tnsubj\t_\t_\n2\tb\tb\tVERB\tVB\t_\t0\troot\t_\t_\n3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n"


def write(tmp_path, text, name="x.conllu"):
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf8"))
    return p


def sentence(rows):
    return "\n".join("\t".join(r) for r in rows) + "\n\n"


def row(i, form, head, dep="dep"):
    return [str(i), form, form, "X", "X", "_", str(head), dep, "_", "_"]


CASES = {
    "columns": (GOOD + "1\tA\ta\tNOUN\n\n", 7, "expected 10 tab-separated columns"),
    "nonint_head": (GOOD + sentence([row(1, "A", "x"), row(2, "B", 0, "root")]), 7, "non-integer head"),
    "range_head": (GOOD + sentence([row(1, "A", 9), row(2, "B", 0, "root")]), 7, "out of range"),
    "cycle": (GOOD + sentence([row(1, "A", 2), row(2, "B", 1), row(3, "C", 0, "root")]), 7, "cycle"),
    "no_root": (GOOD + sentence([row(1, "A", 2), row(2, "B", 1)]), 7, "no root"),
    "two_roots": (GOOD + sentence([row(1, "A", 0, "root"), row(2, "B", 0, "root")]), 8, "2 roots"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_error_names_file_and_line(tmp_path, case):
    text, line, message = CASES[case]
    p = write(tmp_path, text)
    with pytest.raises(ConllUError, match=message) as exc:
        read_conllu(p)
    assert f"{p}:{line}:" in str(exc.value)


@pytest.mark.parametrize("case", sorted(CASES))
def test_repair_reports_and_yields_valid_trees(tmp_path, case):
    text, line, message = CASES[case]
    reports = []
    recs = read_conllu(write(tmp_path, text), repair=True, report=reports.append)
    assert reports and all("repaired" in r for r in reports)
    assert any(f":{line}:" in r for r in reports)
    from test_conllu import assert_forest

    for r in recs:
        assert_forest(r)


def test_bad_utf8(tmp_path):
    p = write(tmp_path, GOOD.encode() + b"1\tA\xff\ta\tX\tX\t_\t0\troot\t_\t_\n\n")
    with pytest.raises(ConllUError, match=r"x.conllu:7: invalid UTF-8"):
        read_conllu(p)
    recs = read_conllu(p, repair=True, report=lambda m: None)
    assert recs[0].words[-1] == "A\ufffd"


def test_empty_file(tmp_path):
    with pytest.raises(ConllUError, match=r"x.conllu:1: no sentences"):
        read_conllu(write(tmp_path, ""))


def test_empty_document(tmp_path):
    p = write(tmp_path, "# newdoc id = empty\n" + GOOD)
    with pytest.raises(ConllUError, match=r"x.conllu:1: empty document"):
        read_conllu(p)
    recs = read_conllu(p, repair=True, report=lambda m: None)
    assert [r.doc_id for r in recs] == ["d1"]


def test_missing_file(tmp_path):
    with pytest.raises(ConllUError, match="no such file"):
        read_conllu(tmp_path / "nope.conllu")
