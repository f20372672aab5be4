"""conll18: the CoNLL 2018 shared task's raw-text scores on hand-built documents whose counts can
be worked out by hand: gold from CoNLL-U through `corpus.raw_text`, the system as spaCy Docs."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_joint_sbd import conll18
from spacy_joint_sbd.corpus.raw_text import raw_documents
from spacy_joint_sbd.scoring import char_boundary_scores
from spacy_joint_sbd.segment import doc_sentences

VOCAB = spacy.blank("en").vocab


def conllu(*sentences, newdoc=None):
    """CoNLL-U of sentences given as rows "id form head label [SpaceAfter=No]" (or "a-b form")."""
    lines = [f"# newdoc id = {newdoc}"] if newdoc else []
    for rows in sentences:
        for row in rows:
            parts = row.split()
            if "-" in parts[0]:
                lines.append("\t".join([parts[0], parts[1]] + ["_"] * 8))
                continue
            misc = parts[4] if len(parts) > 4 else "_"
            lines.append("\t".join([parts[0], parts[1], "_", "X", "_", "_", parts[2], parts[3], "_", misc]))
        lines.append("")
    return "\n".join(lines) + "\n"


def gold(tmp_path, text):
    path = tmp_path / "gold.conllu"
    path.write_text(text, encoding="utf8")
    return [conll18.from_raw_doc(d) for d in raw_documents(path)]


def system(words, heads, deps, spaces=None):
    """A parsed Doc: `heads` absolute token indices (a root points at itself); sentences follow the trees."""
    spaces = spaces if spaces is not None else [True] * len(words)
    return conll18.from_doc(Doc(VOCAB, words=words, spaces=spaces, heads=heads, deps=deps))


def counts(golds, systems):
    return conll18.score_analyses(golds, systems)


def prf(score):
    return score.gold, score.system, score.correct


THREE = conllu(["1 I 2 nsubj", "2 ran 0 root SpaceAfter=No", "3 . 2 punct"],
               ["1 You 2 nsubj", "2 sat 0 root SpaceAfter=No", "3 . 2 punct"],
               ["1 We 2 nsubj", "2 ate 0 root SpaceAfter=No", "3 . 2 punct"])
WORDS = ["I", "ran", ".", "You", "sat", ".", "We", "ate", "."]
SPACES = [True, False, True] * 3


def test_the_gold_parse_scores_every_measure_full(tmp_path):
    c = counts(gold(tmp_path, THREE), [system(WORDS, [1, 1, 1, 4, 4, 4, 7, 7, 7], ["nsubj", "ROOT", "punct"] * 3,
                                              SPACES)])
    assert prf(c.sentences) == (3, 3, 3) and prf(c.tokens) == (9, 9, 9)
    assert prf(c.words) == prf(c.uas) == prf(c.las) == (9, 9, 9)
    assert all(s["f"] == 1.0 for s in c.scores().values())


def test_a_missed_boundary_costs_two_sentences(tmp_path):
    """Sentences 2 and 3 merged (the third attached to the second): Sentences 1 of 2 system and 3
    gold, where the token-level boundary measure counts one missed start; one word loses its head."""
    c = counts(gold(tmp_path, THREE), [system(WORDS, [1, 1, 1, 4, 4, 4, 7, 4, 7],
                                              ["nsubj", "ROOT", "punct", "nsubj", "ROOT", "punct", "nsubj",
                                               "parataxis", "punct"], SPACES)])
    assert prf(c.sentences) == (3, 2, 1)
    assert c.scores()["sentences"] == pytest.approx({"p": 1 / 2, "r": 1 / 3, "f": 2 / 5})
    token_level = char_boundary_scores([[0, 7, 16]], [[0, 7]])
    assert token_level["sents_p"] == 1.0 and token_level["sents_r"] == 0.5
    assert prf(c.words) == (9, 9, 9) and prf(c.uas) == prf(c.las) == (9, 9, 8)


def test_the_first_sentence_of_each_document_counts(tmp_path):
    """A one-sentence document scored right counts one correct sentence; a document whose first
    sentence ends early loses its first sentence too."""
    one = conllu(["1 Hi 0 root SpaceAfter=No", "2 ! 1 punct"], newdoc="a")
    two = conllu(["1 Go 0 root SpaceAfter=No", "2 . 1 punct"], ["1 Stay 0 root SpaceAfter=No", "2 . 1 punct"],
                 newdoc="b")
    golds = gold(tmp_path, one + two)
    right = system(["Hi", "!"], [0, 0], ["ROOT", "punct"], [False, False])
    early = system(["Go", ".", "Stay", "."], [0, 2, 2, 2], ["ROOT", "punct", "ROOT", "punct"], [False, True, False, False])
    c = counts(golds, [right, early])
    assert prf(c.sentences) == (3, 3, 1)
    assert char_boundary_scores([[0], [0, 4]], [[0], [0, 2]])["sents_p"] == 0.0  # the same errors, token-level


def test_a_token_split_differently_loses_its_words_only(tmp_path):
    """Gold `e-mail` is one token, the system's three: Tokens and Words lose it on both sides, and
    LAS counts the other words right; Sentences is untouched."""
    g = gold(tmp_path, conllu(["1 Send 0 root", "2 e-mail 1 obj", "3 now 1 advmod SpaceAfter=No", "4 . 1 punct"]))
    s = system(["Send", "e", "-", "mail", "now", "."], [0, 3, 3, 0, 0, 0],
               ["ROOT", "compound", "punct", "obj", "advmod", "punct"], [True, False, False, True, False, False])
    c = counts(g, [s])
    assert prf(c.tokens) == prf(c.words) == (4, 6, 3)
    assert prf(c.uas) == prf(c.las) == (4, 6, 3) and c.las.aligned == 3
    assert c.scores()["las"] == pytest.approx({"p": 0.5, "r": 0.75, "f": 0.6})
    assert prf(c.sentences) == (1, 1, 1)


def test_a_head_on_a_word_tokenized_differently_is_wrong(tmp_path):
    g = gold(tmp_path, conllu(["1 the 2 det", "2 e-mail 0 root"]))
    s = system(["the", "e", "-", "mail"], [3, 3, 3, 3], ["det", "compound", "punct", "ROOT"], [True, False, False, True])
    c = counts(g, [s])
    assert prf(c.words) == (2, 4, 1) and prf(c.uas) == (2, 4, 0)


def test_labels_are_compared_by_their_universal_part(tmp_path):
    g = gold(tmp_path, conllu(["1 It 3 nsubj:pass", "2 was 3 aux:pass", "3 done 0 root", "4 today 3 obl:tmod",
                               "5 by 6 case", "6 me 3 obl:agent"]))
    s = system(["It", "was", "done", "today", "by", "me"], [2, 2, 2, 2, 5, 2],
               ["nsubj", "aux:pass", "ROOT", "obl:npmod", "mark", "obl"])
    c = counts(g, [s])
    assert prf(c.uas) == (6, 6, 6) and prf(c.las) == (6, 6, 5)  # `mark` is not `case`


def test_words_of_a_multiword_token_align_by_their_forms(tmp_path):
    """Gold `I'm` is one token of two words; the system's two tokens are those words: the words
    align, the tokens do not."""
    g = gold(tmp_path, conllu(["1-2 I'm", "1 I 3 nsubj", "2 'm 3 cop", "3 fine 0 root"]))
    assert [(w.start, w.end, w.multiword) for w in g[0].words] == [(0, 3, True), (0, 3, True), (3, 7, False)]
    s = system(["I", "'m", "fine"], [2, 2, 2], ["nsubj", "cop", "ROOT"], [False, True, False])
    c = counts(g, [s])
    assert prf(c.tokens) == (2, 3, 1) and prf(c.words) == (3, 3, 3) and prf(c.las) == (3, 3, 3)
    merged = system(["I'm", "fine"], [1, 1], ["nsubj", "ROOT"])
    assert prf(counts(g, [merged]).words) == (3, 2, 1)


def test_whitespace_and_layout_do_not_matter_but_characters_do(tmp_path):
    g = gold(tmp_path, conllu(["1 Hi 0 root SpaceAfter=No", "2 ! 1 punct"]))
    spaced = system(["Hi", "!"], [0, 0], ["ROOT", "punct"], [True, False])
    assert prf(counts(g, [spaced]).las) == (2, 2, 2)
    with pytest.raises(ValueError, match="document 'gold': .* at non-space character 1: gold 'i!', system 'o!'"):
        counts(g, [system(["Ho", "!"], [0, 0], ["ROOT", "punct"])])
    with pytest.raises(ValueError, match="1 system documents but 2 gold"):
        conll18.score_analyses(g * 2, [spaced])


def test_a_sentence_splitter_is_scored_on_sentences_only(tmp_path):
    g = gold(tmp_path, THREE)
    text = "I ran.  You sat.\nWe ate."
    c = counts(g, [conll18.from_sentence_spans(text, [(0, 8), (8, 24)])])
    assert prf(c.sentences) == (3, 2, 1)
    scores = c.scores()
    assert scores["las"] is None and scores["tokens"] is None and scores["sentences"]["p"] == 0.5


def test_a_doc_without_parse_scores_no_heads(tmp_path):
    g = gold(tmp_path, conllu(["1 Hi 0 root SpaceAfter=No", "2 ! 1 punct"]))
    doc = Doc(VOCAB, words=["Hi", "!"], spaces=[False, False], sent_starts=[True, False])
    scores = counts(g, [conll18.from_doc(doc)]).scores()
    assert scores["words"]["f"] == 1.0 and scores["uas"] is None and scores["las"] is None
    with pytest.raises(ValueError, match="no sentence boundaries"):
        conll18.from_doc(Doc(VOCAB, words=["Hi", "!"]), "x")


def test_whitespace_tokens_are_no_words_and_no_heads(tmp_path):
    """A line break the tokenizer kept as a token is not a word; a word attached to it is wrong."""
    g = gold(tmp_path, conllu(["1 Go 0 root", "2 home 1 obj"]))
    s = system(["Go", "\n", "home"], [0, 0, 1], ["ROOT", "dep", "obj"], [False, False, False])
    c = counts(g, [s])
    assert prf(c.tokens) == (2, 2, 2) and prf(c.uas) == (2, 2, 1)


def test_segment_sentences_score_as_their_doc(tmp_path):
    """`segment`'s sentences with their parse give the counts of the Doc they came from."""
    g = gold(tmp_path, THREE)
    doc = Doc(VOCAB, words=WORDS, spaces=SPACES, heads=[1, 1, 1, 4, 4, 4, 7, 4, 7],
              deps=["nsubj", "ROOT", "punct", "nsubj", "ROOT", "punct", "nsubj", "parataxis", "punct"])
    from_segments = conll18.from_segments(doc.text, doc_sentences(doc, with_parse=True))
    assert counts(g, [from_segments]) == counts(g, [conll18.from_doc(doc)])
    with pytest.raises(ValueError, match="without tokens"):
        conll18.from_segments(doc.text, doc_sentences(doc))


def test_a_record_scores_as_the_raw_document(tmp_path, sample_path):
    """Gold read by `corpus.conllu` (multi-word tokens split into their words) against itself and
    against the raw rebuilding of the same file: every word aligns and every head is right."""
    from spacy_joint_sbd.corpus import read_conllu

    records = read_conllu(sample_path, sents_per_doc=0)[:5]
    raw = [conll18.from_raw_doc(d) for d in list(raw_documents(sample_path))[:5]]
    c = counts(raw, [conll18.from_record(r) for r in records])
    assert c.words.gold == c.words.system == c.words.correct == c.las.correct > 100
    assert c.sentences.correct == c.sentences.gold and c.tokens.correct < c.tokens.gold  # `I'm` is one gold token
