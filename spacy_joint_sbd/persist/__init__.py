"""Saving and loading pipelines safely: checksums (a component's files checked against the SHA-256
sums saved beside them, so a truncated or foreign file is one clear error, never a half-loaded
component), saved_strings (a saved pipeline's vocab cut to the strings its components need) and
source_lookups (the `spacy_joint_sbd.copy_lookups.v1` callback: a source pipeline's lookups copied
into a new one).

Below the components: imports no other room of the package.
"""
