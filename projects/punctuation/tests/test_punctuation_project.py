"""project.yml: valid for weasel, every command with help, deps and outputs, and the scripts it
runs exist in the project."""
from pathlib import Path

from weasel.util import load_project_config

PROJECT = Path(__file__).resolve().parents[1]


def test_commands_declare_help_deps_outputs():
    config = load_project_config(PROJECT)
    assert [c["name"] for c in config["commands"]] == config["workflows"]["all"]
    for cmd in config["commands"]:
        assert cmd.get("help") and cmd.get("deps") and cmd.get("outputs"), cmd["name"]
        for line in cmd["script"]:
            script = line.split()[1]
            assert (PROJECT / script).is_file(), script
            assert script in cmd["deps"], (cmd["name"], script)
        assert all(o.startswith("results/full/") for o in cmd["outputs"]), cmd["outputs"]
