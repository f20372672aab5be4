"""The library's floors: nothing outside `cli/` imports the CLI (at module level or inside a
function), and `graph/` never reaches up into `dmv/` (the DMV reads graph's masks, not the other
way round)."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "spacy_joint_sbd"


def imported_modules(path: Path):
    """Absolute dotted names of every module `path` imports (relative imports resolved)."""
    package = path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[:len(package) - node.level + 1]) if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def sources(*exclude):
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] not in exclude]


@pytest.mark.parametrize("path", sources("cli", "__main__.py"), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_nothing_below_the_cli_imports_it(path):
    bad = [m for m in imported_modules(path) if m == "spacy_joint_sbd.cli" or m.startswith("spacy_joint_sbd.cli.")]
    assert not bad, f"{path.relative_to(PACKAGE)} imports {bad}"


def test_graph_never_imports_dmv():
    for path in (PACKAGE / "graph").rglob("*.py"):
        assert not [m for m in imported_modules(path) if m.startswith("spacy_joint_sbd.dmv")], path


def test_the_check_sees_a_relative_import_inside_a_function(tmp_path):
    probe = PACKAGE / "scale" / "shards.py"
    assert "spacy_joint_sbd.textio" in set(imported_modules(probe))  # `from ..textio import` in a function
