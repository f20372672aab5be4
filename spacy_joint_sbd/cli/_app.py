"""The Typer application every command registers on: the commands import it from here, and
`spacy_joint_sbd.cli` gathers them (so that no command imports the package that imports it)."""
import typer

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="`python -m spacy_joint_sbd segment | serve | segment-corpus | convert | evaluate | tune-bias | "
                       "text-docs | train-prior | stats | download`.")
