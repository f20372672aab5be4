"""The Dependency Model with Valence (Klein & Manning 2004) and its punctuation-constrained
Viterbi EM (Spitkovsky et al. 2011, §2–§7): `chart` (split-head Viterbi chart under the masks of
`graph.constraints`), `model` (parameters, supervised estimates, Viterbi EM with scaffolding)."""
