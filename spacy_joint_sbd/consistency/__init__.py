"""Inter-sentence consistency by dual decomposition (Rush, Reichart, Collins & Globerson 2012).

Modules:
  contexts  §7: context templates, training counts of head POS, each word's predictive context
  mrf       §4: the consensus MRF (θ from δ1..δ3, observed training nodes), exact argmax per node
  dual      §6 Figure 2: subgradient dual decomposition, lazy re-decoding (§9), certificate
  tables    dual's bookkeeping in C: flat multipliers, per-word consensus tables, node argmax
  penalties one sentence's Lagrange penalties as flat arrays (and as (m, candidates, u) tuples)
  adjusted_eisner  Eisner on arc scores minus penalties, scores checked once per sentence
  parsing   §4: the parsing MRF over the graph parser; Eisner with additive Lagrange arc terms
  tagging   §7: the tagging MRF over unknown word types, with the trigram tagger

The spaCy component is `pipeline.consistency_decoder`.
"""
from .contexts import ContextModel, all_templates, format_context
from .dual import DDResult, WordNode, dual_decompose
from .mrf import ConsensusMRF, make_theta
from .parsing import ConsistencyParse, ParserSolver, build_parsing_mrf, consistency_parse
from .tagging import ConsistencyTagging, build_tagging_mrf, consistency_tag, tag_close_matrix

__all__ = [
    "ConsensusMRF", "ConsistencyParse", "ConsistencyTagging", "ContextModel", "DDResult",
    "ParserSolver", "WordNode", "all_templates", "build_parsing_mrf", "build_tagging_mrf",
    "consistency_parse", "consistency_tag", "dual_decompose", "format_context", "make_theta",
    "tag_close_matrix",
]
