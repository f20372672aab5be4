"""The graph-based stack: Eisner decoding (1st and 2nd order) under the punctuation constraints
of Spitkovsky et al. (2011), the MSTParser-style perceptron parser, §2.1's statistics, and the
punctuation-fragment two- and three-stage parsers of Li, Che & Liu.

Modules (compiled ones are not imported here, so `stats` works without a build):
  fragments        inter-punctuation fragments (Spitkovsky et al. §2: any punctuation)
  constraints      strict / loose / sprawl / tear / thread: tree checker, chart masks, n-best filter
  eisner           first-order Eisner with masks (Cython)
  eisner2          second-order (adjacent sibling) Eisner with the same masks (Cython)
  features         MSTParser arc / sibling / label features over a hashed weight table (Cython)
  parser           GraphParser: training, decoding under a constraint, labeler
  stats            constraint coverage of gold trees (`constraint_stats`, `format_stats`)
  split_fragments  Li et al. §II.A: split punctuation, fragments, sub-roots (type 1/2), WF/IF,
                   Table I (`table1_stats`, `format_table1`)
  multiroot        forest decoding with the single-root decoders (a virtual root)
  stages           Li et al. §II.B-C: TwoStageParser (FRG + INTER), ThreeStageParser (IF/WF
                   classifier, WF-parser, ALL-parser), the combination into one tree
"""
from .constraints import ALL_CONSTRAINTS, CONSTRAINTS, build_masks, nbest_filter, satisfies, violations
from .fragments import fragments, strip_punct, word_fragments
from .split_fragments import format_table1, table1_stats
from .stats import constraint_stats, format_stats

__all__ = [
    "ALL_CONSTRAINTS", "CONSTRAINTS", "build_masks", "constraint_stats", "format_stats",
    "format_table1", "fragments", "nbest_filter", "satisfies", "strip_punct", "table1_stats",
    "violations", "word_fragments",
]
