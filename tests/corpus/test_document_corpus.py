"""`spacy_joint_sbd.DocumentCorpus.v1` over a folder: every treebank file below it, in path order
(several treebanks or variants in one training corpus), and a clear error for an empty folder."""
import shutil

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_joint_sbd.corpus.readers import corpus_files, create_document_corpus


def test_a_folder_reads_every_file_in_path_order(sample_path, tmp_path):
    nlp = spacy.blank("en")
    single = list(create_document_corpus(str(sample_path))(nlp))
    star = list(create_document_corpus(str(sample_path), variant="star")(nlp))
    (tmp_path / "b").mkdir()
    shutil.copy(sample_path, tmp_path / "b" / "plain.conllu")
    db = DocBin(store_user_data=True, docs=[eg.reference for eg in star])
    db.to_disk(tmp_path / "a.spacy")
    (tmp_path / "notes.txt").write_text("not a treebank")
    assert [p.name for p in corpus_files(tmp_path)] == ["a.spacy", "plain.conllu"]
    both = list(create_document_corpus(str(tmp_path))(nlp))
    assert len(both) == len(single) + len(star)
    assert [eg.reference.text for eg in both] == [eg.reference.text for eg in star + single]
    assert [eg.predicted.text for eg in both[:3]] == [eg.reference.text for eg in star[:3]]
    assert len(list(create_document_corpus(str(tmp_path), limit=5)(nlp))) == 5


def test_an_empty_folder_is_named(tmp_path):
    with pytest.raises(ValueError, match="no .conllu or .spacy file"):
        list(create_document_corpus(str(tmp_path))(spacy.blank("en")))
