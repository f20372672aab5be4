"""Helpers shared by the grammar-induction experiments: loading treebanks as DMV sentences
(punctuation stripped, gold tags), scoring directed accuracy per document, paired tests."""
import json
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from spacy_joint_sbd.corpus import read_conllu
from spacy_joint_sbd.dmv.model import DMV, DMVSentence, make_sentence, sentences_from_records
from spacy_joint_sbd.graph.punct_fragments import strip_punct
from spacy_joint_sbd.significance import wilcoxon_greater

SHORT = 10
"""Table 4's second column: sentences of at most ten words (WSJ10's analogue)."""


def load(path: Path, tags: str, max_sents: int = 0) -> List[DMVSentence]:
    """Sentences of a CoNLL-U file, punctuation stripped, with gold `tags` (upos/xpos) as word
    classes; the first `max_sents` only when > 0."""
    sents = sentences_from_records(read_conllu(path), tags)
    return sents[:max_sents] if max_sents > 0 else sents


def load_punct_as_words(path: Path, tags: str, max_sents: int = 0) -> List[Tuple[DMVSentence, List[bool], List[int]]]:
    """§3.3's "punctuation as words" baseline data: every token a word (marks are class PUNCT,
    no fragments), sentence length counted in words only (footnote 4); with each sentence its
    punctuation flags and its gold word heads (punctuation stripped) for forgiving scoring."""
    out = []
    for rec in read_conllu(path):
        for sent in rec.iter_sentence_slices():
            is_punct = [u == "PUNCT" for u in sent.upos]
            if all(is_punct):
                continue
            s = make_sentence(sent.words, getattr(sent, tags), [False] * len(is_punct), sent.heads, rec.doc_id)
            s.length = len(is_punct) - sum(is_punct)
            out.append((s, is_punct, strip_punct(sent.heads, is_punct)[0]))
            if max_sents and len(out) >= max_sents:
                return out
    return out


def score_forgiving(model: DMV, data: Sequence[Tuple[DMVSentence, List[bool], List[int]]]) -> Dict:
    """Directed accuracy of trees that contain punctuation, §3.2's forgiving scoring: marks are
    not scored and a word's head is its nearest non-punctuation ancestor."""
    per_doc: Dict[str, List[int]] = {}
    correct = total = c10 = n10 = 0
    for s, is_punct, gold in data:
        heads, _, _ = model.parse(s, "none")
        pred = strip_punct(heads, is_punct)[0]
        c = sum(a == b for a, b in zip(pred, gold))
        d = per_doc.setdefault(s.doc_id, [0, 0])
        d[0] += c
        d[1] += len(gold)
        correct += c
        total += len(gold)
        if len(gold) <= SHORT:
            c10 += c
            n10 += len(gold)
    return {"constraint": "none", "correct": correct, "words": total, "fallbacks": 0,
            "acc": 100.0 * correct / total if total else 0.0,
            "correct10": c10, "words10": n10, "acc10": 100.0 * c10 / n10 if n10 else 0.0,
            "per_doc": per_doc}


def predicted_tag_sentences(train_path: Path, test_path: Path, epochs: int = 5) -> Tuple[List[DMVSentence], float]:
    """Test sentences whose word classes are UPOS predicted by the library's perceptron tagger
    (`spacy_joint_sbd.tagger`, trained on the training file's gold UPOS); which tokens are
    punctuation (so the words and fragments) stays gold, so the trees are scored on the same
    words. RETURNS (sentences, tagger accuracy on the test words)."""
    import spacy

    from spacy_joint_sbd.corpus.docs import record_to_doc
    from spacy_joint_sbd.tagger.model import encode_doc, train_tagger

    vocab = spacy.blank("xx").vocab
    train = read_conllu(train_path)
    tagger = train_tagger([(encode_doc(record_to_doc(vocab, r, annotations=False)), r.upos) for r in train],
                          epochs=epochs)
    out: List[DMVSentence] = []
    right = total = 0
    for rec in read_conllu(test_path):
        pred = tagger.predict(encode_doc(record_to_doc(vocab, rec, annotations=False)))
        for sent in rec.iter_sentence_slices():
            is_punct = [u == "PUNCT" for u in sent.upos]
            if all(is_punct):
                continue
            tags = pred[sent.start:sent.start + len(sent.words)]
            right += sum(p == g for p, g, q in zip(tags, sent.upos, is_punct) if not q)
            total += len(is_punct) - sum(is_punct)
            out.append(make_sentence(sent.words, tags, is_punct, sent.heads, rec.doc_id))
    return out, 100.0 * right / total if total else 0.0


def score(model: DMV, sents: Sequence[DMVSentence], constraint: str) -> Dict:
    """Directed accuracy (root included) on all sentences and on those of <= 10 words, with the
    per-document counts the paired tests need and the number of sentences with no tree under the
    constraint (decoded unconstrained)."""
    preds, fallbacks = [], 0
    for s in sents:
        heads, _, fell = model.parse(s, constraint)
        preds.append(heads)
        fallbacks += fell
    return accuracy(sents, preds, constraint, fallbacks)


BASELINES = {"left": "each word headed by its left neighbour (the first word is the root)",
             "right": "each word headed by its right neighbour (the last word is the root)"}


def score_baseline(sents: Sequence[DMVSentence], kind: str) -> Dict:
    """`score` of a trivial chain tree (`BASELINES`): what an induced grammar should beat."""
    if kind == "left":
        preds = [[i - 1 for i in range(len(s))] for s in sents]
    elif kind == "right":
        preds = [[i + 1 if i + 1 < len(s) else -1 for i in range(len(s))] for s in sents]
    else:
        raise ValueError(f"baseline must be one of {sorted(BASELINES)}, got {kind!r}")
    return accuracy(sents, preds, f"{kind} baseline", 0)


def accuracy(sents: Sequence[DMVSentence], preds: Sequence[Sequence[int]], constraint: str,
             fallbacks: int) -> Dict:
    """Directed accuracy of predicted heads (-1 = root) against the sentences' gold heads."""
    correct = sum(a == b for s, p in zip(sents, preds) for a, b in zip(p, s.heads))
    total = sum(len(s) for s in sents)
    per_doc: Dict[str, List[int]] = {}
    c10 = n10 = 0
    for s, p in zip(sents, preds):
        c = sum(a == b for a, b in zip(p, s.heads))
        d = per_doc.setdefault(s.doc_id, [0, 0])
        d[0] += c
        d[1] += len(s)
        if len(s) <= SHORT:
            c10 += c
            n10 += len(s)
    return {"constraint": constraint, "correct": correct, "words": total, "fallbacks": fallbacks,
            "acc": 100.0 * correct / total if total else 0.0,
            "correct10": c10, "words10": n10, "acc10": 100.0 * c10 / n10 if n10 else 0.0,
            "per_doc": per_doc}


def paired_p(a: Dict, b: Dict) -> Optional[float]:
    """One-sided Wilcoxon signed-rank p-value that `a` beats `b` over documents (per-document
    directed accuracy); None with fewer than two documents."""
    ids = sorted(set(a["per_doc"]) & set(b["per_doc"]))
    if len(ids) < 2:
        return None
    xs = [a["per_doc"][i][0] / a["per_doc"][i][1] for i in ids if a["per_doc"][i][1]]
    ys = [b["per_doc"][i][0] / b["per_doc"][i][1] for i in ids if b["per_doc"][i][1]]
    return wilcoxon_greater(xs, ys)


def fmt_p(p: Optional[float]) -> str:
    return "n/a" if p is None else (f"{p:.1e}" if p < 1e-3 else f"{p:.3f}")


def write_json(path: Path, data: Dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf8")


def strip_per_doc(result: Dict) -> Dict:
    return {k: v for k, v in result.items() if k != "per_doc"}
