"""The shape of the code: imports run down the layers, the command line starts light, every
command documents itself, and the wheel installs one name.

The layers, lowest first: ``replay`` (rules core) <- ``formats`` <- ``archive`` <- ``web``.  A layer
imports only the layers before it; ``daikifu.clikit`` (the commands' shared pieces) imports only
click and the rules core, and ``daikifu.cli`` (the root group) nothing of the layers.
"""

from __future__ import annotations

import ast
import os
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


def _module_name(path: Path) -> str:
    """The installed name of a source file: ``replay/board.py`` is ``daikifu.replay.board``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] != "daikifu":
        parts.insert(0, "daikifu")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _source_files():
    for folder in ("daikifu", *LAYERS):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (imports for annotations
    only, which never run)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
            else:
                stack.append(child)


def _imported_modules(path: Path, package: str) -> set[str]:
    """Every ``daikifu...`` module a file imports (relative imports resolved; imports inside
    functions included: a lazy import still runs up or down the layers)."""
    found = set()
    for module, names in _imports(path, package):
        found.add(module)
        found.update(f"{module}.{name}" for name in names)
    return {m for m in found if m == "daikifu" or m.startswith("daikifu.")}


def _imports(path: Path, package: str):
    """``(module, names)`` for every import statement of a file that runs (relative imports
    resolved against ``package``; ``import a.b`` gives ``("a.b", [])``)."""
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, [a.name for a in node.names]


def _package_of(path: Path) -> str:
    """The package a file of a layer is in (``formats/kakinoki/reader.py``: daikifu.formats.kakinoki)."""
    return ".".join(("daikifu",) + path.relative_to(ROOT).parent.parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the daikifu modules it imports, at its top or inside functions (``from package
    import name`` counts as an import of the module ``package.name`` when there is one, else of
    the package: ``from . import charts`` does not make a module depend on its package's
    ``__init__``)."""
    files = {_module_name(path): path for path in _source_files()}
    graph = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for module, names in _imports(path, package):
            if not names:  # import a.b
                found.add(module)
                continue
            submodules = {f"{module}.{name}" for name in names} & set(files)
            found |= submodules if len(submodules) == len(names) else submodules | {module}
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (the strongly
    connected components of more than one module, by Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    # the graph includes imports inside functions, and not those for annotations only
    source = tmp_path / "m.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import X\n"
                      "def f():\n    from .y import Y\n", encoding="utf-8")
    assert _imported_modules(source, "daikifu.replay") == {"daikifu.replay.y", "daikifu.replay.y.Y"}


def test_the_rules_core_has_no_import_cycle():
    graph = import_graph()
    assert "daikifu.replay.board" in graph["daikifu.replay.notation"]  # (the graph is read at all)
    replay = {m: {d for d in ds if d.startswith("daikifu.replay.")} for m, ds in graph.items()
              if m.startswith("daikifu.replay.")}
    assert import_cycles(replay) == []


def test_no_import_cycle_among_daikifu_modules():
    assert import_cycles(import_graph()) == []


def _id_keyed_module_dicts(path: Path) -> list[str]:
    """The module-level dicts of a file that are indexed, read or written by a key made with
    ``id()`` (directly or through a local name assigned from an expression that calls it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    dicts = set()
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, (ast.Dict, ast.Call)) \
                and (isinstance(value, ast.Dict) or ast.unparse(value.func) in ("dict", "OrderedDict")):
            dicts.add(target.id)

    def calls_id(expr) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "id"
                   for n in ast.walk(expr))

    def scope_nodes(scope):
        """The nodes of a function or module, not those of the functions defined in it."""
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            yield node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.extend(ast.iter_child_nodes(node))

    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        nodes = list(scope_nodes(scope))
        id_names = {t.id for n in nodes if isinstance(n, ast.Assign) and calls_id(n.value)
                    for t in n.targets if isinstance(t, ast.Name)}

        def by_id(key, id_names=id_names) -> bool:
            return calls_id(key) or any(isinstance(n, ast.Name) and n.id in id_names for n in ast.walk(key))

        for n in nodes:
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in dicts \
                    and by_id(n.slice):
                found.append(f"{shown}:{n.lineno} {n.value.id}")
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id in dicts and n.args \
                    and by_id(n.args[0]):
                found.append(f"{shown}:{n.lineno} {n.func.value.id}")
    return sorted(found, key=lambda hit: int(hit.split(":")[1].split()[0]))


def test_the_id_keyed_cache_finder_finds_one(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("_A: dict = {}\n_B = {}\ndef f(x):\n    key = (id(x), 1)\n    return _A.get(key)\n"
                      "def g(x):\n    _B[id(x)] = x\ndef h(x):\n    return {id(x): x}\n", encoding="utf-8")
    assert [f.split()[-1] for f in _id_keyed_module_dicts(source)] == ["_A", "_B"]


def test_no_module_level_cache_is_keyed_by_id():
    """A cache keyed by ``id()`` outlives what it describes (a new object may get the old id): what
    is worked out from an object is kept on it (``Ruleset.derived``) or by ``functools.lru_cache``."""
    found = [hit for path in _source_files() for hit in _id_keyed_module_dicts(path)]
    assert not found


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


# the web layer's commands (serve, image: the viewer's pictures) are the only ones that load Flask
@pytest.mark.parametrize("name", sorted(n for n, (module, _, _) in COMMANDS.items()
                                         if not module.startswith("daikifu.web.")))
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


def _reason_wording_tests(path: Path) -> list[str]:
    """Comparisons of a reason (any expression naming one) with a piece of text: ``"must be
    chosen" in reason``, ``board.illegal_reason(m) == "..."``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            texts = [o for o in operands if isinstance(o, (ast.Constant, ast.JoinedStr))
                     and isinstance(getattr(o, "value", ""), str)]
            if texts and any("reason" in ast.unparse(o).lower() for o in operands if o not in texts):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_no_code_decides_on_the_wording_of_a_reason():
    """Why a move is illegal is a code and a message (``Board.illegality``): code decides on the
    code, so that rewording a message changes no reading."""
    found = [hit for path in _source_files() for hit in _reason_wording_tests(path)]
    assert found == []


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imported_by_its_folder_name_fails_at_once(layer):
    """From the repository's root, ``import replay`` would load a second copy of the rules core with
    classes of its own: it fails, and says which name to use."""
    out = subprocess.run([sys.executable, "-c", f"import {layer}"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: ") and f"'daikifu.{layer}'" in last, out.stderr


def test_a_bad_option_is_a_usage_error_after_the_rules_were_cached(tmp_path):
    """The rule-set cache is filled by one process, then each command given an unknown variant
    option says so in one line and exits 2 (a pickle of another copy of the rules core once
    surfaced here as a traceback)."""
    env = dict(os.environ, DAIKIFU_CACHE_DIR=str(tmp_path / "cache"))
    warm = subprocess.run([sys.executable, "-c", "from daikifu.replay import Board; Board('shogi')"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert warm.returncode == 0, warm.stderr
    assert list((tmp_path / "cache").glob("*.rules")), "the rule set was cached"
    for command in (["moves", "shogi"], ["perft", "shogi", "1"], ["demo", "shogi"], ["generate", "shogi"]):
        out = subprocess.run([sys.executable, "-m", "daikifu", *command, "--option", "speed=fast"],
                             capture_output=True, text=True, cwd=ROOT, env=env)
        assert out.returncode == 2 and "Traceback" not in out.stderr, (command, out.stderr)
        assert out.stderr.splitlines() == [
            "Error: Invalid value for '--option': Shogi has no option 'speed' (options: none) "
            f"(see 'daikifu {command[0]} --help')"], (command, out.stderr)


def test_the_rule_set_cache_key_names_the_module_and_the_version(monkeypatch):
    """Two copies of the rules core (other module names or versions) never read each other's files."""
    import daikifu
    from daikifu.replay import load_variant, rulecache

    variant = load_variant("shogi")
    rulecache._fingerprint.cache_clear()  # (worked out again below, from the source as it is now)
    key = rulecache.cache_key(variant, {})
    rulecache._fingerprint.cache_clear()
    try:
        monkeypatch.setattr(daikifu, "__version__", daikifu.__version__ + ".other")
        assert rulecache.cache_key(variant, {}) != key
        monkeypatch.undo()
        rulecache._fingerprint.cache_clear()
        monkeypatch.setattr(rulecache, "__name__", "replay.rulecache")
        assert rulecache.cache_key(variant, {}) != key
        monkeypatch.undo()
    finally:
        rulecache._fingerprint.cache_clear()
    assert rulecache.cache_key(variant, {}) == key


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
