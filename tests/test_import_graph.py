"""The package's rooms and the one direction imports flow between them (docs/architecture.md draws
the same map): every import of every module, at module level or inside a function, relative or
absolute, read from the syntax trees; an import of a deprecated path counts as one of the module it
names now (`spacy_joint_sbd._moved`)."""
import ast
import subprocess
import sys
from pathlib import Path
from typing import Dict, FrozenSet, List, Set

import spacy_joint_sbd
from spacy_joint_sbd._moved import MOVED, MOVED_NAMES

PACKAGE_DIR = Path(spacy_joint_sbd.__file__).parent

ALLOWED: Dict[str, Set[str]] = {
    "corpus": set(),
    "learn": set(),
    "persist": set(),
    "encoder": set(),
    "_moved": set(),
    "scoring": {"corpus"},
    "significance": set(),
    "conll18": {"corpus"},  # the CoNLL 2018 evaluator's measures on raw text
    "context": {"corpus", "learn"},
    "transition": {"learn"},
    "tagger": {"learn", "context"},
    "boundary": {"corpus", "learn", "context"},
    "graph": {"corpus", "scoring", "learn"},
    "dmv": {"graph", "corpus"},
    "consistency": {"graph", "tagger", "corpus"},
    "evaluation": {"corpus", "persist", "scoring"},  # a pipeline run on gold documents and scored
    "pipeline.joint": {"boundary", "context", "corpus", "learn", "transition"},
    "operating_point": {"corpus", "evaluation", "persist", "pipeline.joint", "scoring"},  # the SB-bias sweeps
    "pipeline": {"pipeline.joint", "boundary", "consistency", "context", "corpus", "dmv", "encoder", "graph", "learn",
                 "persist", "scoring", "tagger", "transition"},
    "text": {"pipeline", "pipeline.joint", "corpus", "transition"},
    "cli": {"text", "pipeline", "pipeline.joint", "boundary", "corpus", "evaluation", "graph", "operating_point",
            "persist", "scoring", "significance", "<package>", "_moved"},
    "__main__": {"cli"},
    "<package>": {"_moved"},
}
"""Room → the rooms its modules may import. A room is a top-level module or package, except that
the joint parser's internals (`pipeline.joint`) sit below the components, and text in, sentences
out (`segment`, `textio`, `scale`) is one room. The lower floors never import the CLI or a
component; graph never imports dmv (the DMV reads graph's masks, not the other way round)."""
TEXT_ROOM = {"segment", "textio", "scale"}



def module_name(path: Path, package_dir: Path) -> str:
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package_dir: Path = PACKAGE_DIR, moved: Dict[str, str] = MOVED) -> Dict[str, Set[str]]:
    """Module → the package's modules it imports anywhere in its code (function-local imports
    included), from every .py file's syntax tree; a `moved` (deprecated) name stands for its new one."""
    files = {module_name(p, package_dir): p for p in package_dir.rglob("*.py")}
    known = set(files) | {m.rsplit(".", 1)[0] for m in files}
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
            targets = [moved.get(t, t) for t in targets]
            edges.update(t for t in targets if (t in files or t in known) and t != name)
        graph[name] = edges
    return graph


def room(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "<package>"
    if parts[1:3] == ["pipeline", "joint"]:
        return "pipeline.joint"
    return "text" if parts[1] in TEXT_ROOM else parts[1]


def cycles(graph: Dict[str, Set[str]]) -> List[FrozenSet[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[FrozenSet[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.add(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def make_package(tmp_path: Path, files: Dict[str, str]) -> Path:
    pkg = tmp_path / "pkg"
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    return pkg


def test_the_graph_sees_every_kind_of_import(tmp_path):
    pkg = make_package(tmp_path, {
        "__init__.py": "", "c.py": "", "sub/__init__.py": "", "new.py": "",
        "a.py": "def f():\n    from .b import g\n",  # function-local, relative
        "b.py": "from . import c\nimport pkg.sub.d\n",
        "sub/d.py": "from ..a import f\nimport pkg.old\n",  # `old` moved to `new`
    })
    graph = import_graph(pkg, {"pkg.old": "pkg.new"})
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg", "pkg.c", "pkg.sub.d"}
    assert graph["pkg.sub.d"] == {"pkg.a", "pkg.new"}
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.sub.d"})]


def test_each_room_imports_only_the_rooms_below_it():
    graph = import_graph()
    bad = sorted(f"{a} imports {b}" for a, targets in graph.items() for b in targets
                 if room(a) != room(b) and room(b) not in ALLOWED.get(room(a), set()))
    assert not bad, "\n".join(bad)
    assert set(map(room, graph)) <= set(ALLOWED), "a room the map does not name"


def test_the_rooms_form_floors():
    """The allowed imports have no cycle: each room stands on the ones it may import."""
    assert cycles({r: set(targets) for r, targets in ALLOWED.items()}) == []


def test_no_module_reaches_itself():
    found = [sorted(c) for c in cycles(import_graph())]
    assert not found, found


def test_the_check_fails_on_an_import_cycle_and_on_a_room_out_of_place(tmp_path):
    pkg = make_package(tmp_path, {"__init__.py": "", "corpus/__init__.py": "",
                                  "corpus/x.py": "def f():\n    from ..cli import main\n",
                                  "cli/__init__.py": "from ..corpus import x\n"})
    graph = import_graph(pkg, {})
    assert cycles(graph) == [frozenset({"pkg.corpus.x", "pkg.cli"})]
    assert room("pkg.cli") not in ALLOWED[room("pkg.corpus.x")]


def test_the_parser_internals_import_without_the_components():
    """`pipeline.joint` loads no component (scripts fit a calibration without a parser)."""
    code = ("import sys, spacy_joint_sbd.pipeline.joint.calibration, spacy_joint_sbd.pipeline.joint.settings; "
            "print(sorted(m for m in sys.modules if m.startswith('spacy_joint_sbd.pipeline.') "
            "and not m.startswith('spacy_joint_sbd.pipeline.joint')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_moved_module_is_found_under_its_old_name_with_a_warning():
    """One fresh interpreter imports every old path: each gives the new module's names, with a
    DeprecationWarning naming the new path."""
    code = f"""
import importlib, warnings
bad = []
for old, new in sorted({MOVED!r}.items()):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        alias = importlib.import_module(old)
    module = importlib.import_module(new)
    names = [n for n in dir(module) if not n.startswith("__")]
    if not names or any(getattr(alias, n) is not getattr(module, n) for n in names):
        bad.append(old + ": not the names of " + new)
    if not any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught):
        bad.append(old + ": no DeprecationWarning naming " + new)
print(bad)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_moved_name_is_found_in_its_old_module_with_a_warning():
    """One fresh interpreter reads every name that moved out of a module that stays: each is the
    moved object itself, with a DeprecationWarning naming the new path, and its old module keeps
    no copy (the name goes through the warning, not around it)."""
    code = f"""
import importlib, warnings
bad = []
for old, names in sorted({MOVED_NAMES!r}.items()):
    module = importlib.import_module(old)
    for name, new in sorted(names.items()):
        if name in vars(module):
            bad.append(old + "." + name + ": still defined there, no warning")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = getattr(module, name)
        if got is not getattr(importlib.import_module(new), name):
            bad.append(old + "." + name + ": not " + new + "." + name)
        if not any(issubclass(w.category, DeprecationWarning) and new + "." + name in str(w.message) for w in caught):
            bad.append(old + "." + name + ": no DeprecationWarning naming " + new)
    try:
        getattr(module, "no_such_name")
        bad.append(old + ": an unknown name did not raise AttributeError")
    except AttributeError:
        pass
print(bad)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
