"""A trained replication system as a ready spaCy pipeline: the setting's tok2vec + tagger, then the
trained `joint_sbd_parser` sourced from the system's saved pipeline. `spacy.load(path)` then splits
and parses raw text, like the pipelines `spacy train configs/joint_sbd.cfg` writes."""
from pathlib import Path

from spacy_joint_sbd.corpus.tagging import TAGGER_PIPES

from .systems import COMPONENT


def export_pipeline(tagger: str, model_dir: Path, out: Path) -> None:
    import spacy

    system = spacy.load(model_dir)
    nlp = spacy.load(tagger)
    for name in [n for n in nlp.pipe_names if n not in TAGGER_PIPES]:
        nlp.remove_pipe(name)
    nlp.add_pipe(COMPONENT, source=system)
    nlp.meta["name"] = f"joint_sbd_{Path(model_dir).parent.name}".replace("-", "_")
    nlp.meta["description"] = f"tagger + joint_sbd_parser exported from {model_dir}"
    out.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(out)
    print(f"{out}: pipeline {nlp.pipe_names}")
