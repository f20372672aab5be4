"""Imports flow one way between the joint parser and its calibration: `joint_sbd_parser` imports
`calibration`, never the reverse, at module level or inside a function."""
import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, Set

import spacy_joint_sbd

PACKAGE_DIR = Path(spacy_joint_sbd.__file__).parent
PARSER = "spacy_joint_sbd.pipeline.joint_sbd_parser"
CALIBRATION = "spacy_joint_sbd.pipeline.calibration"


def module_name(path: Path, package_dir: Path) -> str:
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package_dir: Path = PACKAGE_DIR) -> Dict[str, Set[str]]:
    """Module → the package's modules it imports anywhere in its code (function-local imports
    included), from every .py file's syntax tree."""
    files = {module_name(p, package_dir): p for p in package_dir.rglob("*.py")}
    graph: Dict[str, Set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[:len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            edges.update(t for t in targets if t in files and t != name)
        graph[name] = edges
    return graph


def reachable(graph: Dict[str, Set[str]], start: str) -> Set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_graph_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "b.py", "c.py", "sub/__init__.py", "sub/d.py"):
        (pkg / name).write_text("")
    (pkg / "a.py").write_text("def f():\n    from .b import g\n")  # function-local, relative
    (pkg / "b.py").write_text("from . import c\nimport pkg.sub.d\n")
    (pkg / "sub" / "d.py").write_text("from ..a import f\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg", "pkg.c", "pkg.sub.d"}
    assert graph["pkg.sub.d"] == {"pkg.a"}
    assert "pkg.sub.d" in reachable(graph, "pkg.a") and "pkg.a" in reachable(graph, "pkg.a")


def test_calibration_never_reaches_the_parser():
    graph = import_graph()
    assert CALIBRATION in reachable(graph, PARSER)
    assert PARSER not in reachable(graph, CALIBRATION)


def test_calibration_imports_without_the_parser():
    code = f"import sys, {CALIBRATION}; print({PARSER!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
