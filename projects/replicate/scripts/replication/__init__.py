"""Replication of Björkelund et al. (2016), Tables 2-4 and Figures 3-6, on open data.

The modules behind `scripts/replicate.py` (each step a command of this project's `all` workflow):
`settings` (the data settings and splits), `data` (corpus splits, predicted tags, the boundary
peers), `systems` (JOINT, NOSYNTAX and GOLD: the `joint_sbd_parser` component trained epoch by
epoch, the best epoch kept), `curves` (Figures 3-5), `pipelines` (Table 4), `report` (RESULTS.md
and the figures), `export` (a trained system as a spaCy pipeline), `jobs` (parallel runs).
They call only the public API of `spacy_joint_sbd`.
"""
