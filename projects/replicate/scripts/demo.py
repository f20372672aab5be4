"""Split and parse a text with a trained pipeline; print the sentences and one dependency tree.

    python scripts/demo.py PIPELINE [TEXT]

The default text is lower-cased and unpunctuated, like a speech transcript: the case for joint
sentence segmentation and parsing."""
import sys

import spacy

SAMPLE = ("i called the office this morning they said the package left the warehouse on monday "
          "it should arrive before the weekend can you check the tracking number when you get home "
          "thanks i will call you tomorrow")


def main(path: str, text: str = SAMPLE) -> None:
    nlp = spacy.load(path)
    doc = nlp(text)
    print(f"pipeline {nlp.pipe_names}; {len(doc)} tokens, {len(list(doc.sents))} sentences\n")
    for i, sent in enumerate(doc.sents, 1):
        print(f"{i:>2}. {sent.text}")
    sent = max(doc.sents, key=len)
    print(f"\ndependency tree of the longest sentence:\n{'id':>3} {'word':<14}{'tag':<6}{'dep':<12}head")
    for tok in sent:
        head = "ROOT" if tok.head.i == tok.i else f"{tok.head.i - sent.start + 1} ({tok.head.text})"
        print(f"{tok.i - sent.start + 1:>3} {tok.text:<14}{tok.tag_:<6}{tok.dep_:<12}{head}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], " ".join(sys.argv[2:]) or SAMPLE)
