"""The graph-based stack: Eisner decoding (1st and 2nd order) under the punctuation constraints
of Spitkovsky et al. (2011), the MSTParser-style perceptron parser, §2.1's statistics, and the
split-punctuation two- and three-stage parsers of Li, Che & Liu.

Modules (compiled ones are not imported here, so `stats` works without a build):
  punct_fragments       spitkovsky2011 §2: inter-punctuation fragments (between *any* punctuation)
  constraints           spitkovsky2011 §2.2: strict / loose / sprawl / tear / thread as a tree
                        checker, chart masks and an n-best filter
  eisner                first-order Eisner, one chart loop reading the masks (Cython)
  eisner2               second-order (adjacent sibling) Eisner, the same masks (Cython)
  constrained_decoding  spitkovsky2011 §4: decoding under a constraint, unconstrained fallback
  features              MSTParser arc / sibling / label features over a hashed weight table (Cython)
  parser                GraphParser: training, decoding under a constraint, labeler
  stats                 spitkovsky2011 §2.1: constraint coverage of gold trees
  split_punct           li §II.A: split punctuation, its fragments, sub-roots (type 1/2), WF/IF,
                        Table I (`table1_stats`, `format_table1`)
  forest                li §II.C stage 1: forest decoding with the single-root decoders
  staged_parsers        li §II.B-C: TwoStageParser (FRG + INTER), ThreeStageParser (IF/WF
                        classifier, WF-parser, ALL-parser), the combination into one tree
"""
from .constraints import ALL_CONSTRAINTS, CONSTRAINTS, build_masks, nbest_filter, satisfies, violations
from .punct_fragments import fragments, strip_punct, word_fragments
from .split_punct import format_table1, split_chars, table1_stats
from .stats import constraint_stats, format_stats

__all__ = [
    "ALL_CONSTRAINTS", "CONSTRAINTS", "build_masks", "constraint_stats", "format_stats",
    "format_table1", "fragments", "nbest_filter", "satisfies", "split_chars", "strip_punct",
    "table1_stats", "violations", "word_fragments",
]
