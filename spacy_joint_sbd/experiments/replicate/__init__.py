"""Replication of Björkelund et al. (2016), Tables 2-4 and Figures 3-6, on open data.

Steps (each a subcommand of `python -m spacy_joint_sbd.experiments.replicate`, each a command of
the `replicate` / `replicate-small` workflows in project.yml): `prepare` the corpus splits, `tag`
them with the setting's spaCy tagger and run the boundary peers, `train` the perceptron systems
(JOINT, NOSYNTAX, GOLD) with per-epoch dev curves and dev-tuned iterations, `pipelines` (X → GOLD
parser), `curves` (Figures 3-5), and `report` (results/RESULTS.md and the plots).
"""
