"""Tokenizer rules the default pipeline adds to spaCy's English ones, for training text and user
text alike.

Citation marks written straight after a word or a mark (`ending.[5] The next`, Wikipedia copies,
Project Gutenberg footnotes: 1,264 of them in ../shared/data/text) are one token with what precedes
them in spaCy's English tokenizer: `ending.[5`, `]`. The full stop is then no token of its own, the
sentence cannot end at it, and `"[3` or `badly).[4` become words. One suffix rule fixes it: digits
right after a `[` at a token's end split off, after which spaCy's own suffixes split the `[` and
the mark (`ending`, `.`, `[`, `5`, `]`), the tokens a treebank has for `ending. [5]`.

The same callback makes the tokenizer a `corpus.bounded_tokenizer.BoundedTokenizer` (spaCy's, in time
linear in a whitespace-free run's length; the same tokens), so pipelines saved before it get it too.

`use_citation_tokens(nlp)` applies both and records `spacy_joint_sbd.citation_tokens.v1` in
`[nlp.after_creation]`, so a saved pipeline gets it whenever it is built from its config
(`spacy.load`, `spacy package`); the saved tokenizer holds the rule too.
"""
import re
from typing import Callable

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import registry

from .bounded_tokenizer import bound_tokenizer

NAME = "spacy_joint_sbd.citation_tokens.v1"

CITATION_SUFFIX = r"(?<=\[)[0-9]{1,4}$"
"""Up to four digits at a token's end right after a `[`: the number of a citation `[12]`, whose
`]` spaCy has already split off as a suffix."""


def add_citation_suffix(tokenizer: Tokenizer) -> Tokenizer:
    """Extend `tokenizer`'s suffix search with `CITATION_SUFFIX` (once: a second call changes
    nothing). A tokenizer without suffix rules gets this one alone."""
    current = tokenizer.suffix_search
    pattern = getattr(getattr(current, "__self__", None), "pattern", None)
    if current is not None and pattern is None:
        raise ValueError("add_citation_suffix: the tokenizer's suffix_search is not a compiled regex's search")
    if pattern is not None and CITATION_SUFFIX in pattern.split("|"):
        return tokenizer
    joined = f"{pattern}|{CITATION_SUFFIX}" if pattern else CITATION_SUFFIX
    tokenizer.suffix_search = re.compile(joined).search
    return tokenizer


@registry.callbacks(NAME)
def make_citation_tokens() -> Callable[[Language], Language]:
    """For `[nlp.after_creation]`: the pipeline's tokenizer splits citation marks and is bounded
    (see the module)."""

    def citation_tokens(nlp: Language) -> Language:
        bound_tokenizer(nlp)
        add_citation_suffix(nlp.tokenizer)
        return nlp

    return citation_tokens


def use_citation_tokens(nlp: Language) -> Language:
    """Apply the rule to `nlp`'s tokenizer now and record the callback in `nlp.config`
    (`[nlp.after_creation]`) for the saved pipeline. ValueError if the config already names
    another such callback."""
    current = nlp.config["nlp"].get("after_creation")
    if current is not None and current.get("@callbacks") != NAME:
        raise ValueError(f"citation_tokens: [nlp.after_creation] is already {current!r}")
    make_citation_tokens()(nlp)
    nlp.config["nlp"]["after_creation"] = {"@callbacks": NAME}
    return nlp
