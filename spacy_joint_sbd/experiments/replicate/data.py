"""Corpus preparation and the spaCy peers' predictions, done once per setting.

`prepare` writes each corpus split as a plain DocBin (`corpus/replicate/<corpus>/<split>.spacy`);
spaCy's senter and tagger train on these. `tag` then reads one setting's splits, applies its
variant, and stores in one msgpack file what every later step needs:

- the gold documents with PREDICTED fine-grained tags (XPOS) from the setting's spaCy tagger (never
  gold tags: the perceptron systems read these tags at training and at test time);
- the sentence starts predicted by spaCy's `senter` (the paper's MARMOT) and rule-based
  `sentencizer` (the paper's CoreNLP/OpenNLP) on the tuning and test splits, and their scores.
"""
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import srsly
from tqdm import tqdm

from ...corpus import DocRecord, apply_variant
from ...corpus.docs import record_to_doc
from ...corpus.readers import read_docbin
from ...corpus.docs import doc_to_record
from ...scoring import score_records
from .settings import SETTINGS, corpus_splits, split_path

EVAL_SPLITS = ("tune",)


def prepare(data_dir: Path, corpus_dir: Path, corpora: Sequence[str], limit_train: int = 0,
            limit_eval: int = 0) -> None:
    import spacy
    from spacy.tokens import DocBin

    vocab = spacy.blank("en").vocab
    for corpus in corpora:
        for split, records in corpus_splits(Path(data_dir), corpus, limit_train, limit_eval).items():
            out = split_path(corpus_dir, corpus, split)
            out.parent.mkdir(parents=True, exist_ok=True)
            db = DocBin(store_user_data=True)
            for rec in records:
                db.add(record_to_doc(vocab, rec))
            tmp = out.with_name(out.name + ".partial")
            db.to_disk(tmp)
            tmp.replace(out)
            print(f"{out}: {len(records)} documents, {sum(len(r) for r in records)} tokens")


def load_split(corpus_dir: Path, setting: str, split: str) -> List[DocRecord]:
    """One split of a setting as gold records with the setting's variant applied."""
    import spacy

    s = SETTINGS[setting]
    docs = read_docbin(split_path(corpus_dir, s.corpus, split), spacy.blank("en").vocab)
    records = [apply_variant(doc_to_record(d), s.variant) for d in docs]
    return [r for r in records if len(r)]


def _tokens_only_docs(nlp, records: Sequence[DocRecord]):
    from spacy.tokens import Doc

    return (Doc(nlp.vocab, words=r.words, spaces=r.spaces) for r in records)


def predict_tags(records: Sequence[DocRecord], tagger_path: str, desc: str = "tagging") -> List[DocRecord]:
    """Copies of `records` whose XPOS are predicted by the tagger of a spaCy pipeline."""
    import spacy

    nlp = spacy.load(tagger_path)
    keep = [n for n in nlp.pipe_names if n in ("tok2vec", "tagger")]
    out = []
    with nlp.select_pipes(enable=keep):
        docs = nlp.pipe(_tokens_only_docs(nlp, records), batch_size=16)
        for rec, doc in tqdm(zip(records, docs), total=len(records), desc=desc, unit="doc", disable=None):
            tagged = DocRecord(**asdict(rec))
            tagged.xpos = [t.tag_ for t in doc]
            out.append(tagged)
    return out


def predict_starts(records: Sequence[DocRecord], pipeline: Optional[str]) -> List[List[bool]]:
    """Sentence starts predicted from the tokens alone: by a trained spaCy pipeline's `senter`, or
    (pipeline None) by spaCy's rule-based `sentencizer`."""
    import spacy

    if pipeline is None:
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
    else:
        nlp = spacy.load(pipeline)
        keep = [n for n in nlp.pipe_names if n in ("tok2vec", "senter")]
        nlp.select_pipes(enable=keep)
    out = []
    for doc in nlp.pipe(_tokens_only_docs(nlp, records), batch_size=16):
        out.append([i == 0 or bool(t.is_sent_start) for i, t in enumerate(doc)])
    return out


def boundary_scores(records: Sequence[DocRecord], starts: Sequence[Sequence[bool]]) -> Dict:
    """Boundary scores and per-document counts of predicted `starts` against gold `records`."""
    preds = []
    for rec, st in zip(records, starts):
        p = DocRecord(**asdict(rec))
        p.sent_starts = list(st)
        preds.append(p)
    counts = score_records(preds, records, has_parse=False)
    return {**counts.scores(), "per_doc": counts.per_doc}


def tag(setting: str, corpus_dir: Path, tagger: str, senter: str, out: Path, metrics_dir: Path) -> None:
    """Tag every split of `setting`, predict senter/sentencizer boundaries on the evaluation
    splits, write everything to `out` and the two peers' scores to `metrics_dir`."""
    s = SETTINGS[setting]
    splits = ("train",) + EVAL_SPLITS + s.tests
    data: Dict = {"setting": setting, "tagger": tagger, "senter": senter, "records": {}, "starts": {}}
    peer_metrics: Dict[str, Dict] = {"senter": {"setting": setting, "system": "senter", "pipeline": senter},
                                     "sentencizer": {"setting": setting, "system": "sentencizer"}}
    tag_acc: Dict[str, float] = {}
    for split in splits:
        gold = load_split(corpus_dir, setting, split)
        tagged = predict_tags(gold, tagger, desc=f"{setting} {split}: tags")
        pairs = [(p, g) for pr, gr in zip(tagged, gold) for p, g in zip(pr.xpos, gr.xpos)]
        tag_acc[split] = sum(p == g for p, g in pairs) / max(len(pairs), 1)
        data["records"][split] = [asdict(r) for r in tagged]
        if split == "train":
            continue
        for name, pipeline in (("senter", senter), ("sentencizer", None)):
            starts = predict_starts(gold, pipeline)
            data["starts"].setdefault(name, {})[split] = starts
            peer_metrics[name][split] = boundary_scores(gold, starts)
    out.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_msgpack(out, data)
    metrics_dir.mkdir(parents=True, exist_ok=True)
    # the tagger saw the training split: its tags there are better than at test time
    srsly.write_json(metrics_dir / "tags.json", {"setting": setting, "tagger": tagger, "tag_acc": tag_acc})
    print(f"{setting} tag accuracy: " + ", ".join(f"{k} {100 * v:.2f}" for k, v in tag_acc.items()))
    for name, m in peer_metrics.items():
        srsly.write_json(metrics_dir / f"{name}.json", m)
        print(f"{setting} {name}: " + ", ".join(
            f"{split} F1 {100 * m[split]['sents_f']:.2f}" for split in EVAL_SPLITS + s.tests))


def load_tagged(path: Path) -> Dict:
    """The `tag` output: records (as DocRecords) and predicted starts per split."""
    data = srsly.read_msgpack(path)
    data["records"] = {k: [DocRecord(**r) for r in v] for k, v in data["records"].items()}
    return data
