"""project.yml loads in weasel (a workflow and a command may not share a name: the `ablation`
workflow and command did, and every `spacy project run` of this project refused to start), every
command has help, each workflow step is a command, and the project's own scripts exist."""
import re
from pathlib import Path

from weasel.util import load_project_config

PROJECT = Path(__file__).resolve().parents[1]


def test_project_loads_and_names_what_exists():
    config = load_project_config(PROJECT)
    names = [c["name"] for c in config["commands"]]
    assert len(names) == len(set(names)) and not set(names) & set(config["workflows"])
    for flow, steps in config["workflows"].items():
        assert set(steps) <= set(names), (flow, set(steps) - set(names))
    for cmd in config["commands"]:
        assert cmd.get("help"), cmd["name"]
        for line in cmd["script"]:
            for script in re.findall(r"(?:^|\s)(scripts/\w+\.py)", line):
                assert (PROJECT / script).is_file(), (cmd["name"], script)


def test_default_args_are_the_main_jobs_recipe():
    """`silver-trees` trains "the main job's parser" again: its epochs, beam and context clusters
    must be the root project.yml's, which README's main command trains."""
    root = load_project_config(PROJECT.parents[1])["vars"]
    args = load_project_config(PROJECT)["vars"]["default_args"].split()
    assert args[args.index("--epochs") + 1] == str(root["default_epochs"])
    assert args[args.index("--beam") + 1] == str(root["default_beam"])
    assert args[args.index("--context-clusters") + 1] == root["default_context"]
