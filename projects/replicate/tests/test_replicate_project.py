"""The project file: one workflow (`all`) runs every step of the replication; every command says
what it does, what it reads and everything it writes; the small run README documents (CI runs it) is the
same workflow with smaller vars, writing beside (never over) the published figures."""
import re
import shlex
from pathlib import Path

import srsly

PROJECT = Path(__file__).resolve().parents[1]
ROOT = PROJECT.parents[1]
STEPS = ("prepare", "tag", "train", "pipelines", "curves", "report", "export")


def _project():
    return srsly.read_yaml(PROJECT / "project.yml")


def test_all_runs_every_step_and_commands_declare_help_deps_outputs():
    project = _project()
    commands = {c["name"]: c for c in project["commands"]}
    workflow = project["workflows"]["all"]
    used = " ".join(" ".join(commands[name]["script"]) for name in workflow)
    for step in STEPS:
        assert f"scripts/replicate.py {step} " in used, step
    assert "scripts/demo.py" in used and "check_wheel.py" in used and "spacy package" in used
    for name, command in commands.items():
        assert command.get("help") and command.get("deps") and command.get("outputs"), name
        for dep in command["deps"]:
            if "${" not in dep and not dep.startswith(".."):
                assert (PROJECT / dep).exists(), (name, dep)
    assert list(project["workflows"]) == ["all"]  # no copies of it for other sizes


def test_published_outputs_are_those_of_the_default_vars():
    project = _project()
    run = project["vars"]["run"]
    assert (PROJECT / "metrics" / run / "gum-star" / "fig34").is_dir()
    assert (PROJECT / "results" / run / "RESULTS.md").exists()
    for png in ("fig3_used_share.png", "fig4_strategies.png", "fig5_beam.png", "fig6_syntax.png"):
        assert (PROJECT / "results" / run / png).exists()
    text = (PROJECT / "results" / run / "RESULTS.md").read_text()
    for fig in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (PROJECT / "results" / run / fig).exists(), fig
    assert "/work/" not in " ".join(p.read_text() for p in (PROJECT / "metrics").rglob("*.json"))


def test_readme_small_run_is_this_workflow_with_smaller_vars():
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"`(python -m spacy project run all projects/replicate --vars\.run=small[^`]*)`", readme).group(1)
    args = shlex.split(command)
    assert args[:6] == ["python", "-m", "spacy", "project", "run", "all"], command
    assert Path(args[6]) == Path("projects/replicate")
    declared = _project()["vars"]
    overrides = dict(a[len("--vars."):].split("=", 1) for a in args[7:])
    assert overrides and set(overrides) <= set(declared), set(overrides) - set(declared)
    assert overrides.get("run") not in (None, declared["run"])  # the published figures stay untouched
