"""The upper layers' seams (issue 23): ``archive``, ``web`` and the command line root reach into
no other module's private names and hide no import cycle, imports inside functions included.
(The rules core and the readers have their own checks.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"archive": "daikifu.archive", "web": "daikifu.web", "daikifu": "daikifu"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            out[package if path.name == "__init__.py" else f"{package}.{path.stem}"] = path
    return out


def _imports(name: str, path: Path, known: set) -> set[str]:
    """The modules of ``known`` that a module imports, anywhere in it (a ``from PACKAGE import
    submodule`` is an import of the submodule: the package is already being imported)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            subs = {f"{base}.{a.name}" for a in node.names} & known
            found.update(subs or {base})
    return (found & known) - {name}


def test_no_import_cycle_in_the_upper_layers_imports_inside_functions_included():
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    state: dict = {}
    cycles = []

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(" -> ".join(trail[trail.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(cycles)


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_no_private_name_of_another_module_is_used(folder):
    """No ``x._name`` but on ``self``/``cls``, and no ``from M import _name`` of another module
    (lxml's element type, which lxml documents as ``etree._Element``, aside)."""
    wrong = []
    for path in sorted((ROOT / folder).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")) \
                        and not (isinstance(owner, ast.Name) and owner.id == "etree" and node.attr == "_Element"):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
            elif isinstance(node, ast.ImportFrom):
                wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: import {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("folder", ["replay", "formats", "archive", "web", "daikifu"])
def test_no_module_imports_another_modules_private_name(folder):
    """``from M import _name`` anywhere in a layer, subpackages included: what two modules share is
    public in one of them (the readers' shared tables are in ``formats/kakinoki/common.py``)."""
    wrong = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "") != "__future__":
                wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: import {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not wrong, "\n".join(wrong)
