"""Corpus preparation and the spaCy peers' predictions, done once per setting.

`prepare` writes each corpus split as a plain DocBin (`<corpus>/<corpus name>/<split>.spacy`);
spaCy's senter and tagger train on these. `tag` then reads one setting's splits, applies its
variant, and stores in one msgpack file what every later step needs:

- the gold documents with PREDICTED fine-grained tags (XPOS) from the setting's spaCy tagger (never
  gold tags: the perceptron systems read these tags at training and at test time);
- the sentence starts predicted by spaCy's `senter` (the paper's MARMOT) and rule-based
  `sentencizer` (the paper's CoreNLP/OpenNLP) on the tuning and test splits, and their scores.
"""
import dataclasses
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import srsly

from spacy_joint_sbd.corpus import DocRecord, apply_variant
from spacy_joint_sbd.corpus.docs import doc_to_record, record_to_doc
from spacy_joint_sbd.corpus.readers import read_docbin
from spacy_joint_sbd.corpus.tagging import load_tagger, predict_tags
from spacy_joint_sbd.scoring import score_records, tag_accuracy

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


def predict_starts(records: Sequence[DocRecord], pipeline: Optional[str]) -> List[List[bool]]:
    """Sentence starts predicted from the tokens alone: by a trained spaCy pipeline's `senter`, or
    (pipeline None) by spaCy's rule-based `sentencizer`."""
    import spacy

    if pipeline is None:
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
    else:
        nlp = spacy.load(pipeline)
        nlp.select_pipes(enable=[n for n in nlp.pipe_names if n in ("tok2vec", "senter")])
    docs = (record_to_doc(nlp.vocab, r, annotations=False) for r in records)
    return [[i == 0 or bool(t.is_sent_start) for i, t in enumerate(doc)] for doc in nlp.pipe(docs, batch_size=16)]


def boundary_scores(records: Sequence[DocRecord], starts: Sequence[Sequence[bool]]) -> Dict:
    """Boundary scores and per-document counts of predicted `starts` against gold `records`."""
    preds = [dataclasses.replace(rec, sent_starts=list(st)) for rec, st in zip(records, starts)]
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
    nlp = load_tagger(tagger)
    for split in splits:
        gold = load_split(corpus_dir, setting, split)
        tagged = predict_tags(nlp, gold)
        tag_acc[split] = tag_accuracy(tagged, gold)["xpos_acc"]
        data["records"][split] = [dataclasses.asdict(r) for r in tagged]
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
