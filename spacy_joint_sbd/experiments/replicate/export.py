"""A trained replication model as a spaCy pipeline: the setting's tok2vec + tagger, then
`joint_sbd_parser` carrying the JOINT model's averaged weights, with `feature_encoding = "plain"`
(the model was trained on `DocRecord` feature ids, not on spaCy's attribute hashes). `spacy.load(path)` then splits and
parses raw text, like the pipelines `spacy train configs/joint_sbd.cfg` writes."""
from pathlib import Path


def export_pipeline(tagger: str, model_dir: Path, out: Path) -> None:
    import spacy

    from ...transition import TransitionParser

    parser = TransitionParser.from_disk(model_dir)
    nlp = spacy.load(tagger)
    keep = {"tok2vec", "tagger"}
    for name in [n for n in nlp.pipe_names if n not in keep]:
        nlp.remove_pipe(name)
    component = nlp.add_pipe("joint_sbd_parser", config={"attrs": list(parser.cfg["attrs"]),
                                                        "feature_encoding": "plain"})
    component.use_parser(parser)
    nlp.meta["name"] = f"joint_sbd_{Path(model_dir).parent.name}".replace("-", "_")
    nlp.meta["description"] = f"tagger + joint_sbd_parser exported from {model_dir}"
    out.parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(out)
    print(f"{out}: pipeline {nlp.pipe_names}")
