"""Load an installed pipeline BY NAME from an unrelated folder (its meta carrying the scores of its
model card) and split a speech-like paragraph with `segment` (what a user does right after set-up)."""
import os
import subprocess
import sys
import tempfile

TEXT = ("so i went to the store yesterday they had no milk left i asked the clerk about it "
        "she said the truck comes on monday")


def main() -> None:
    name = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        code = (f"import spacy; nlp = spacy.load({name!r}); perf = nlp.meta['performance']; "
                "print(nlp.pipe_names, nlp.meta['name'], nlp.meta['version'], 'EWT test F1', round(100 * perf['sents_f'], 2))")
        subprocess.run([sys.executable, "-c", code], cwd=tmp, check=True)
        out = subprocess.run([sys.executable, "-m", "spacy_joint_sbd", "segment", "-"], cwd=tmp, check=True,
                             input=TEXT, capture_output=True, text=True, env=dict(os.environ)).stdout
    print(out)
    if len(out.strip().splitlines()) < 2:
        sys.exit(f"{name}: segment found no boundary in a paragraph of several sentences")


if __name__ == "__main__":
    main()
