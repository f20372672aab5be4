"""The joint parser's internals (`pipeline.joint_sbd_parser` is the component): settings (its
settings declared once, typed), doc_encoding (the one feature encoding of a Doc for the engine),
whitespace (whitespace tokens out of the engine and back; marks whose sentence is fixed),
prior_scores and unmarked (per-token SB scores from the boundary prior and from unmarked tokens),
final_punct (does a Doc end sentences with marks), calibration (a calibrated
`sent_start_prob`, fitted on dev) and sentence_limits (sentences redrawn by threshold and
max_length, trees repaired).

Imports the lower floors (corpus, boundary, learn, context, transition), never a component.
"""
