"""Sentence starts derived from punctuation: the rules that turn punctuated running text into
boundary supervision.

The rules read spaCy tokens (texts, trailing-space flags, whitespace flags) of one *unit* of
layout (a paragraph, a line, a speaker turn): layout is decided by `corpus.running_text`, which
forces a start at each unit. Inside a unit a boundary follows a sentence-final mark when:

- the mark is `.`, `?`, `!` (or a run of them, `?!`), or an ellipsis (`…`, `...`, `. . .`);
- closing quotes, brackets and dashes written directly after the mark, and a bracketed reference
  (`1805. [19]`), stay in the sentence they close: `He said "it is over." Then` starts the next
  sentence at `Then`, the `"` ends the first one; a straight quote after a space opens the next
  sentence instead;
- the next word (after any opening quote or bracket) starts with a capital letter or a digit. A
  lower-case word continues the sentence in edited text (`"Stop!" he said`, `Is it love? or
  jealousy?`, `Charles II. was`), except a few words that open sentences in uncapitalised typing
  after a lone full stop (`i went there. now i know`: `LOWERCASE_OPENERS`, measured on EWT: +2 to +3
  recall, precision unchanged). In transcripts (`transcript=True`: the transcribers' marks are the
  boundaries, as the AMI scoring of projects/speech counts them) `.`, `?`, `!` end a sentence before any word;
- a quotation followed by a dialogue attribution (`“Your mother keeps well?” I asked.`: a
  capitalised speaker of one or two words, then a verb of `SPEECH_VERBS`) is one sentence;
- an ellipsis ends a sentence only before a capitalised word, in transcripts too;
- an abbreviation does not end a sentence inside a unit, unless it is one that often stands last
  (`etc.`, `Jr.`, `a.m.`: `SENTENCE_FINAL_ABBREVIATIONS`) and a capitalised word follows: titles
  (`Mr.`, `Dr.`), Latin (`e.g.`, `i.e.`), months and capitalised days, references before a number
  (`No. 5`, `p. 191`), initials (`J. R. R. Tolkien`) and other dotted tokens spaCy keeps whole
  (`U.S.`) do not. At the end of a unit (paragraph, turn) the layout makes the boundary (`etc.`
  at a paragraph end is final);
- numbers are single tokens (`3.5`); a number and `.` opening a unit (`1. Introduction`) is a list
  label, not a sentence.
"""
import re
from typing import List, Optional, Sequence

FINAL_MARK = re.compile(r"^(?:[.?!‼⁇⁈⁉]+|…+|\.\.+)$")
"""A token that ends a sentence by itself: `.`, `?`, `!`, runs of them, and ellipses."""

ELLIPSIS = re.compile(r"^(?:…+|\.\.\.+)$")

CLOSERS = frozenset({'"', "'", "”", "’", "»", "›", ")", "]", "}", "''", "--", "—", "–", "---"})
"""Tokens that stay in the sentence a final mark ends when written directly after it."""

OPENERS = frozenset({'"', "'", "“", "‘", "«", "‹", "(", "[", "{", "``", "`"})
"""Tokens that may open the next sentence before its first word."""

NON_FINAL_ABBREVIATIONS = frozenset("""
mr mrs ms messrs mme mlle dr drs prof rev hon st mt gen col capt lt sgt cpl maj adm gov sen rep pres
cf vs viz e.g i.e esp incl dept jan feb apr jun jul aug sep sept oct nov dec
""".split())
"""Abbreviations (lower-cased, no final dot) that do not end a sentence inside a unit: titles
before a name, Latin before what it introduces, months before a day."""

DAY_ABBREVIATIONS = frozenset("mon tue tues wed thu thur thurs fri sat sun".split())
"""Days (`on Sat. you said`): abbreviations only when capitalised (`He sat. Then` ends a sentence)."""

NUMBER_ABBREVIATIONS = frozenset("""
no nos p pp vol vols ch chap fig figs sec art ed eds ca approx op ext pop tel
""".split())
"""Abbreviations before a number (`No. 5`, `p. 191`, `vol. xxxiv`): not final when a number or a
lower-case roman numeral follows; otherwise (`I said no. Then`) the mark is an ordinary full stop."""

SENTENCE_FINAL_ABBREVIATIONS = frozenset("""
etc jr sr a.m p.m
""".split())
"""Abbreviations that often stand last in a sentence: a boundary when a capitalised word follows.
(Company suffixes such as `Inc.`, `Ltd.` are left out: in the treebanks they precede an address
line or a name more often than a new sentence.)"""

LOWERCASE_OPENERS = frozenset("""
i i'm i've i'll i'd im ive it it's its we they he she you my our your their this that these those there
here what why how when where who if but so also now then well yes no ok okay please thanks thank
just maybe anyway however let lets let's do does did is are was were can could will would should
have has had the a an
""".split())
"""Lower-case words that open a sentence after a full stop in uncapitalised typing (`i went there.
now i ...`): a boundary after a lone `.` even in edited text. Other lower-case words continue the
sentence (`Charles II. forms`, `3s. 6d. plain`)."""

SPEECH_VERBS = frozenset("""
said says asked asks cried replied answered exclaimed added continued whispered shouted murmured
remarked observed returned called began repeated inquired enquired demanded declared responded
suggested explained interrupted insisted muttered protested thought wrote laughed sighed screamed
""".split())
"""Verbs of a dialogue attribution after a quotation: `“Well?” I asked.` is one sentence."""

QUOTES = frozenset({'"', "”", "'", "’", "''"})

ROMAN = re.compile(r"^[IVXLC]{2,}$")
NUMBER = re.compile(r"^(?:\d|[ivxlc]+\.?$)")


def _abbrev_key(text: str) -> str:
    return text.rstrip(".").lower()


def is_final_mark(text: str) -> bool:
    return bool(FINAL_MARK.match(text))


def _starts_upper_or_digit(text: str) -> bool:
    c = text[:1]
    return c.isupper() or c.isdigit()


def _starts_upper(text: str) -> bool:
    return text[:1].isupper()


def _is_abbreviation(words: Sequence[str], spaces: Sequence[bool], i: int) -> Optional[str]:
    """The abbreviation key if token i ends an abbreviation: a token ending in `.` with letters
    before it (`Mr.`, `e.g.`, `J.`, `U.S.`), or a lone `.` glued to a listed word (`approx` `.`)."""
    w = words[i]
    if len(w) > 1 and w.endswith(".") and any(c.isalpha() for c in w) and not FINAL_MARK.match(w):
        return _abbrev_key(w)
    if w == "." and i > 0 and not spaces[i - 1]:
        key = words[i - 1].lower()
        if key in NON_FINAL_ABBREVIATIONS or key in SENTENCE_FINAL_ABBREVIATIONS:
            return key
        if key in DAY_ABBREVIATIONS and words[i - 1][:1].isupper():
            return key
        if key in NUMBER_ABBREVIATIONS and _next_word_is_number(words, i):
            return key
    return None


def _next_word_is_number(words: Sequence[str], i: int) -> bool:
    nxt = next((w for w in words[i + 1:] if w.strip()), "")
    return bool(NUMBER.match(nxt))


def unit_sent_starts(words: Sequence[str], spaces: Sequence[bool], is_space: Sequence[bool],
                     *, transcript: bool = False) -> List[bool]:
    """Sentence starts of one unit of layout, its first word True (the unit starts a sentence).

    `words`, `spaces` (trailing whitespace) and `is_space` (whitespace tokens such as "\\n") are the
    unit's spaCy tokens. A whitespace token never starts a sentence: a boundary after a mark falls
    on the first word after it."""
    n = len(words)
    starts = [False] * n
    first = next((k for k in range(n) if not is_space[k]), None)
    if first is None:
        return starts
    starts[first] = True
    i = first
    while i < n:
        w = words[i]
        if is_space[i]:
            i += 1
            continue
        abbrev = _is_abbreviation(words, spaces, i)
        final = is_final_mark(w) if abbrev is None else False
        if abbrev is None and not final:
            i += 1
            continue
        # The cluster: further marks and closers glued to the mark (no whitespace between).
        j = i
        ellipsis = bool(ELLIPSIS.match(w))
        while j + 1 < n and not spaces[j] and not is_space[j + 1] and (
                is_final_mark(words[j + 1]) or words[j + 1] in CLOSERS):
            j += 1
            if is_final_mark(words[j]):
                final = True
                abbrev = None
                ellipsis = bool(ELLIPSIS.match(words[j]))
        # `. . .`: lone dots separated by single spaces are an ellipsis.
        while (words[j] == "." and j + 1 < n and words[j + 1] == "." and spaces[j]):
            j += 1
            ellipsis = True
        # A bracketed reference after the mark (`... in 1805. [19] His`) closes the sentence too.
        while j + 3 < n and words[j + 1] == "[" and words[j + 2].isdigit() and words[j + 3] == "]":
            j += 3
        # The next word, after whitespace tokens and opening quotes / brackets.
        k = j + 1
        while k < n and is_space[k]:
            k += 1
        if k >= n:
            break
        nxt = k
        while nxt < n and (words[nxt] in OPENERS or is_space[nxt]) and nxt + 1 < n:
            nxt += 1
        target = words[nxt]
        if abbrev is not None:
            boundary = abbrev in SENTENCE_FINAL_ABBREVIATIONS and _starts_upper(target)
        elif ellipsis:
            boundary = _starts_upper(target)
        elif _list_label(words, first, i):
            boundary = False
        elif transcript:
            boundary = target[:1].isalnum() or target[:1] in OPENERS
        elif words[j] == "." and target in LOWERCASE_OPENERS and not ROMAN.match(words[i - 1] if i else ""):
            boundary = True
        else:
            boundary = _starts_upper_or_digit(target)
        if boundary and _attribution(words, i, j, nxt):
            boundary = False
        if boundary:
            starts[k] = True
        i = j + 1
    return starts


def _attribution(words: Sequence[str], i: int, j: int, nxt: int) -> bool:
    """A quotation closed by the cluster i..j and followed by a capitalised speaker (one or two
    words) and a speech verb: `“Your mother keeps well?” I asked.`, `“No!” Mary Ann cried.`
    After a quoted full stop only `I` counts (`“Go.” He said nothing.` is two sentences)."""
    if not any(w in QUOTES for w in words[i + 1:j + 1]):
        return False
    if not any(c in "?!" for w in words[i:j + 1] for c in w) and words[nxt] != "I":
        return False  # `“Go.” He said nothing.`: after a full stop only `I` is taken as a speaker
    after = words[nxt + 1:nxt + 3]
    if after[:1] and after[0] in SPEECH_VERBS:
        return True
    return len(after) == 2 and after[0][:1].isupper() and after[1] in SPEECH_VERBS


def _list_label(words: Sequence[str], first: int, i: int) -> bool:
    """`1.` / `IV.` / `a.` opening a unit: a list label, its mark no sentence end."""
    if words[i] != "." or i != first + 1:
        return False
    label = words[first]
    return label.isdigit() or bool(re.match(r"^(?:[IVXLC]+|[A-Za-z])$", label))
