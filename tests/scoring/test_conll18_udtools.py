"""conll18 against the official CoNLL 2018 evaluator (udtools) on real EWT documents: the gold
file with its multi-word tokens, and a system that tokenizes, splits and parses differently (as a
spaCy Doc for us, written as CoNLL-U for udtools). Every count must be the evaluator's.

udtools is a test requirement: a missing evaluator fails the suite instead of skipping the check."""
import random
from collections import defaultdict

import pytest
import spacy
from spacy.tokens import Doc
from udtools import udeval

from spacy_joint_sbd import conll18
from spacy_joint_sbd.corpus.labels import from_spacy_dep
from spacy_joint_sbd.corpus.raw_text import RawDoc, raw_documents
from spacy_joint_sbd.corpus.record import ROOT

VOCAB = spacy.blank("en").vocab
MEASURES = {"tokens": "Tokens", "sentences": "Sentences", "words": "Words", "uas": "UAS", "las": "LAS"}


def _pieces(raw: RawDoc, rng: random.Random):
    """The system's tokens as (start, end, gold words they hold): multi-word tokens split into their
    words where these spell the token, then some tokens split in two and some neighbours merged."""
    words_of = defaultdict(list)
    for k, w in enumerate(raw.words):
        words_of[w.token].append(k)
    pieces = []
    for t, (a, b) in enumerate(raw.tokens):
        ks = words_of[t]
        if len(ks) > 1 and "".join(raw.words[k].form for k in ks) == raw.text[a:b]:
            for k in ks:
                n = len(raw.words[k].form)
                pieces.append((a, a + n, [k]))
                a += n
        elif b - a > 1 and rng.random() < 0.03:
            cut = rng.randrange(a + 1, b)
            pieces += [(a, cut, ks), (cut, b, [])]
        else:
            pieces.append((a, b, ks))
    merged = [pieces[0]]
    for a, b, ks in pieces[1:]:
        pa, pb, pks = merged[-1]
        if pb == a and rng.random() < 0.05:
            merged[-1] = (pa, b, pks + ks)
        else:
            merged.append((a, b, ks))
    return merged


def _descends(heads, node, anc):
    for _ in range(len(heads) + 1):
        if node == anc:
            return True
        if heads[node] == node:
            return False
        node = heads[node]
    return True


def system_doc(raw: RawDoc, rng: random.Random) -> Doc:
    """A valid parse of `raw`'s text with other tokens, sentences, heads and labels than the gold."""
    pieces = _pieces(raw, rng)
    piece_of = {k: i for i, (_, _, ks) in enumerate(pieces) for k in ks}
    firsts = set(raw.sent_words)
    starts = [i == 0 or any(k in firsts for k in ks) for i, (_, _, ks) in enumerate(pieces)]
    for i in range(1, len(pieces)):
        r = rng.random()
        if starts[i] and r < 0.15:
            starts[i] = False
            if rng.random() < 0.5:
                starts[min(len(pieces) - 1, i + rng.randint(1, 3))] = True
        elif r < 0.02:
            starts[i] = True
    bounds = [i for i, s in enumerate(starts) if s] + [len(pieces)]
    heads, labels = list(range(len(pieces))), [""] * len(pieces)
    names = sorted({w.dep for w in raw.words} - {"root"})
    for s, e in zip(bounds, bounds[1:]):
        roots = [i for i in range(s, e) if any(raw.words[k].head == ROOT for k in pieces[i][2])]
        root = roots[0] if roots else s
        for i in range(s, e):
            heads[i] = root
            labels[i] = raw.words[pieces[i][2][0]].dep if pieces[i][2] else "goeswith"
        heads[root], labels[root] = root, "ROOT"
        for i in range(s, e):
            if i == root:
                continue
            gold_head = raw.words[pieces[i][2][0]].head if pieces[i][2] else None
            want = piece_of.get(gold_head) if gold_head is not None and gold_head >= 0 else None
            if rng.random() < 0.1:
                want = rng.randrange(s, e)
            if want is not None and s <= want < e and want != i and not _descends(heads, want, i):
                heads[i] = want
            if rng.random() < 0.1:
                labels[i] = rng.choice(names)
    words = [raw.text[a:b] for a, b, _ in pieces]
    spaces = [b < len(raw.text) and raw.text[b].isspace() for _, b, _ in pieces]
    return Doc(VOCAB, words=words, spaces=spaces, heads=heads, deps=labels)


def write_system(docs, path):
    lines = []
    for doc in docs:
        for sent in doc.sents:
            for t in sent:
                head = 0 if t.head.i == t.i else t.head.i - sent.start + 1
                assert 0 <= head <= len(sent)
                lines.append(f"{t.i - sent.start + 1}\t{t.text}\t_\t_\t_\t_\t{head}\t{from_spacy_dep(t.dep_)}\t_\t_")
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf8")


def check_agreement(gold_path, tmp_path):
    rng = random.Random(0)
    raws = list(raw_documents(gold_path))
    docs = [system_doc(r, rng) for r in raws]
    write_system(docs, tmp_path / "system.conllu")
    ours = conll18.score_analyses([conll18.from_raw_doc(r) for r in raws],
                                  [conll18.from_doc(d, r.doc_id) for d, r in zip(docs, raws)])
    theirs = udeval.evaluate(udeval.load_conllu_file(str(gold_path)),
                             udeval.load_conllu_file(str(tmp_path / "system.conllu")))
    for name, key in MEASURES.items():
        mine, official = getattr(ours, name), theirs[key]
        assert (mine.gold, mine.system, mine.correct) == \
            (official.gold_total, official.system_total, official.correct), name
        assert getattr(ours, name).f1 == pytest.approx(official.f1)
    assert ours.uas.aligned == theirs["UAS"].aligned_total == ours.words.correct
    # the system really differs from the gold on every measure
    assert ours.tokens.correct < ours.tokens.gold and ours.sentences.correct < 0.9 * ours.sentences.gold
    assert ours.las.correct < ours.uas.correct < ours.words.correct < ours.words.gold
    return ours


def test_agrees_with_udtools_on_the_ewt_sample(sample_path, tmp_path):
    ours = check_agreement(sample_path, tmp_path)
    assert ours.words.gold > 1000


@pytest.mark.slow
def test_agrees_with_udtools_on_ewt_dev_documents(ewt_dev_path, tmp_path):
    """The first 60 documents of EWT dev."""
    lines, docs = [], 0
    for line in ewt_dev_path.read_text(encoding="utf8").splitlines():
        docs += line.startswith("# newdoc")
        if docs > 60:
            break
        lines.append(line)
    gold = tmp_path / "gold.conllu"
    gold.write_text("\n".join(lines) + "\n", encoding="utf8")
    check_agreement(gold, tmp_path)
