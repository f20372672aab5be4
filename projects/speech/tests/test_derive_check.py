"""derive_check: raw text rebuilt from CoNLL-U, and the scores of the derivation on it."""
import random

import spacy

from derive_check import prf, raw_documents, score_set, token_offsets
from treebanks import SAMPLE


def write(tmp_path, text):
    path = tmp_path / "x.conllu"
    path.write_text(text, encoding="utf8")
    return path


def rows(*forms, space_after_last=True):
    out = []
    for i, f in enumerate(forms, 1):
        misc = "_" if space_after_last or i < len(forms) else "SpaceAfter=No"
        if f.endswith("~"):
            f, misc = f[:-1], "SpaceAfter=No"
        out.append(f"{i}\t{f}\t_\tX\t_\t_\t{0 if i == 1 else 1}\t{'root' if i == 1 else 'dep'}\t_\t{misc}")
    return "\n".join(out) + "\n\n"


def test_raw_documents_spaceafter_newpar_and_multiword_tokens(tmp_path):
    text = ("# newdoc id = d1\n# newpar\n" + rows("Hello~", ".")
            + "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n" + "1\tdo\t_\tX\t_\t_\t0\troot\t_\t_\n"
            + "2\tn't\t_\tX\t_\t_\t1\tdep\t_\t_\n"
            + "3\tgo\t_\tX\t_\t_\t1\tdep\t_\tSpaceAfter=No\n"
            + "4\t.\t_\tX\t_\t_\t1\tdep\t_\t_\n\n"
            + "# newpar\n" + rows("New~", ".")
            + "# newdoc id = d2\n" + rows("Two~", "."))
    docs = list(raw_documents(write(tmp_path, text)))
    assert [d.doc_id for d in docs] == ["d1", "d2"]
    assert docs[0].text == "Hello. don't go.\n\nNew."
    assert docs[0].gold == [0, 7, 18]
    assert docs[1].text == "Two." and docs[1].gold == [0]


def test_token_offsets_skip_dropped_layout():
    assert token_offsets("A: Hi there.\n\nB", ["Hi", "there", ".", "\n\n", "B"]) == [3, 6, 11, -1, 14]


def test_prf():
    assert prf(9, 10, 12) == {"tp": 9, "pred": 10, "gold": 12, "p": 90.0, "r": 75.0, "f1": 81.82}


def test_sample_is_derived_precisely():
    s = score_set(SAMPLE, spacy.blank("en").tokenizer, 3, random.Random(0))
    assert s["documents"] == 29 and s["gold"] > 100
    assert s["p"] >= 95.0 and s["r"] >= 70.0
