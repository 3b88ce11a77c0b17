"""The shape of the code: imports run down the layers, the command line starts light, every
command documents itself, and the wheel installs one name.

The layers, lowest first: ``replay`` (rules core) <- ``formats`` <- ``archive`` <- ``web``.  A layer
imports only the layers before it; ``daikifu.clikit`` (the commands' shared pieces) imports only
click and the rules core, and ``daikifu.cli`` (the root group) nothing of the layers.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from daikifu.cli import COMMANDS, load_command, main

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("replay", "formats", "archive", "web")
ALLOWED = {layer: set(LAYERS[:i]) for i, layer in enumerate(LAYERS)}


def _imported_modules(path: Path, package: str) -> set[str]:
    """Every ``daikifu...`` module a file imports (relative imports resolved; imports inside
    functions included: a lazy import still runs up or down the layers)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in found if m == "daikifu" or m.startswith("daikifu.")}


def _package_of(path: Path) -> str:
    """The package a file of a layer is in (``formats/kakinoki/reader.py``: daikifu.formats.kakinoki)."""
    return ".".join(("daikifu",) + path.relative_to(ROOT).parent.parts)


def _module_of(path: Path) -> str:
    name = _package_of(path)
    return name if path.name == "__init__.py" else f"{name}.{path.stem}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
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
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_formats_import_no_module_that_imports_them_back():
    """No import cycle among the record formats' modules, imports inside functions included (a
    lazy import hides a cycle, it does not remove it)."""
    paths = sorted((ROOT / "formats").rglob("*.py"))
    modules = {_module_of(p): p for p in paths}
    graph = {name: {m for m in _imported_modules(path, _package_of(path)) if m in modules and m != name}
             for name, path in modules.items()}
    assert _cycles(graph) == []


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


@pytest.mark.parametrize("layer", LAYERS)
def test_each_layer_imports_only_the_layers_below_it(layer):
    wrong = []
    for path in sorted((ROOT / layer).rglob("*.py")):
        for module in _imported_modules(path, _package_of(path)):
            used = _layer_of(module)
            if used is not None and used != layer and used not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
            if used is None and module not in ("daikifu", "daikifu.clikit") \
                    and not module.startswith("daikifu.clikit."):
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_command_line_modules_import_no_layer_above_what_they_need():
    clikit = _imported_modules(ROOT / "daikifu" / "clikit.py", "daikifu")
    assert {_layer_of(m) for m in clikit} <= {"replay"}, clikit
    cli = _imported_modules(ROOT / "daikifu" / "cli.py", "daikifu")
    assert {_layer_of(m) for m in cli} == {None}, cli


def _modules_loaded_by(*args: str) -> set[str]:
    code = ("import sys\nfrom daikifu.cli import main\n"
            "try:\n    main(%r, prog_name='daikifu', standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "print('\\n'.join(sorted(sys.modules)))" % (list(args),))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return set(out.split())


def test_daikifu_help_imports_no_command_and_no_flask():
    loaded = _modules_loaded_by("--help")
    assert "flask" not in loaded
    assert not any(_layer_of(m) for m in loaded), sorted(m for m in loaded if _layer_of(m))


@pytest.mark.parametrize("name", sorted(n for n in COMMANDS if n != "serve"))
def test_only_serve_loads_flask(name):
    loaded = _modules_loaded_by(name, "--help")
    assert "flask" not in loaded and "daikifu.web" not in loaded


@pytest.mark.parametrize("name", sorted(n for n, (module, _, _) in COMMANDS.items()
                                         if module.startswith(("daikifu.archive.", "daikifu.formats."))))
def test_help_of_record_and_archive_commands_loads_no_reader_and_no_store(name):
    """Start-up: the readers, the store and SQLite's helpers are imported only when a command runs."""
    loaded = _modules_loaded_by(name, "--help")
    heavy = {"sqlite_utils", "daikifu.archive.store", "daikifu.archive.importer", "daikifu.formats.lsn",
             "daikifu.formats.kif", "daikifu.formats.kakinoki", "daikifu.formats.visitor"}
    assert not heavy & loaded, sorted(heavy & loaded)


def test_python_m_daikifu_runs_the_command_line():
    out = subprocess.run([sys.executable, "-m", "daikifu", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0 and "validate" in out.stdout


# --- every command documents itself ---------------------------------------------------------------


def _all_commands():
    for name in sorted(COMMANDS):
        command = load_command(name)
        if isinstance(command, click.Group):
            for sub in sorted(command.commands):
                yield f"{name} {sub}", command.commands[sub]
        else:
            yield name, command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_root_listing_matches_each_commands_own_help(name):
    command = load_command(name)
    assert command.name == name
    first_paragraph = " ".join(command.help.split("\n\n", 1)[0].split())
    assert first_paragraph.startswith(COMMANDS[name][2].rstrip(".")), first_paragraph


@pytest.mark.parametrize("path,command", list(_all_commands()), ids=[p for p, _ in _all_commands()])
def test_every_command_has_examples_and_json(path, command):
    result = CliRunner().invoke(main, [*path.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert "Examples:" in result.output, f"daikifu {path} --help shows no examples"
    assert f"daikifu {path.split()[0]}" in result.output.split("Examples:", 1)[1]
    if path != "serve":  # the server prints no result
        assert any("--json" in p.opts for p in command.params), f"daikifu {path} has no --json"


# --- the wheel --------------------------------------------------------------------------------------


def test_the_wheel_installs_only_the_daikifu_package(tmp_path):
    """``pip wheel .`` gives ``daikifu/`` and its dist-info at the top level, nothing else."""
    # built from a copy of what the wheel is made of, so that no build/ folder lands in the checkout
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("daikifu", *LAYERS):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "wheel"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                            "-q", "-w", str(out)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    (wheel,) = out.glob("daikifu-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    assert top == {"daikifu", next(t for t in top if t.endswith(".dist-info"))}, top
    for layer in LAYERS:
        assert f"daikifu/{layer}/__init__.py" in names
    assert "daikifu/__main__.py" in names
    assert any(n.startswith("daikifu/replay/variants/") and n.endswith(".toml") for n in names)
    assert "daikifu/web/templates/base.html" in names


def test_validate_of_an_lsn_file_loads_only_the_lsn_reader(tmp_path):
    """Start-up: recognising a record's format loads no reader; only the reader of the format found
    is imported (the detectors of the lighter formats live in formats/detection.py)."""
    path = tmp_path / "one.lsn"
    path.write_text('[Variant "shogi"]\n[Result "*"]\n\n1. P-c4 P-c6 *\n', encoding="utf-8")
    loaded = _modules_loaded_by("validate", str(path))
    assert "daikifu.formats.lsn" in loaded
    others = {f"daikifu.formats.{name}" for name in ("kif", "ki2", "csa", "usi", "jkf", "csg", "playback")}
    assert not others & loaded, sorted(others & loaded)
