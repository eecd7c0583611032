"""The layering, read from the source with an AST walk (no module is imported).

- Imports go one way: docs_mcp.eval -> docs_mcp.server -> docs_mcp.indexer -> the root
  (``docs_mcp``'s ``__init__`` and ``errors``); lazy imports inside functions count too.
- The root package reaches the areas only inside ``cli.py``'s ``_mount``.
- Nothing imports the source folders ``server``, ``indexer`` or ``eval`` as top-level names:
  they are only importable by accident, from a checkout, as the wrong package.
- Nothing in server/ writes to stdout (it carries the MCP protocol under ``serve``), except the
  CLI commands listed in ``STDOUT_PRINTERS``, whose output is their result.
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass
from pathlib import Path
from functools import cache
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOT = "docs_mcp"
# Lower number = lower layer; a module may import its own layer or lower ones.
LAYERS = {"docs_mcp": 0, "docs_mcp.indexer": 1, "docs_mcp.server": 2, "docs_mcp.eval": 3}
# What the areas may use of the root package: the version and the error tree, never the CLI.
ROOT_MODULES_FOR_AREAS = {"docs_mcp", "docs_mcp.errors"}
MOUNT = ("cli.py", "_mount")
FOLDER_NAMES = {"server", "indexer", "eval"}
# (file, function) pairs allowed to write to stdout: CLI commands whose result is their output.
STDOUT_PRINTERS = {
    ("server/commands.py", "search"),
    ("server/team_commands.py", "create"),
    ("server/team_commands.py", "list_keys"),
    ("server/team_commands.py", "example"),
    ("server/team_commands.py", "show"),
}


@dataclass(frozen=True)
class Import:
    """One import statement: the file, the module it names (absolute), where it stands."""

    file: str
    line: int
    module: str
    function: str  # the enclosing top-level function, "" at module level

    def __str__(self) -> str:
        where = f" (in {self.function})" if self.function else ""
        return f"{self.file}:{self.line}{where} imports {self.module}"


def package_dirs() -> dict[str, Path]:
    """Package name -> source folder, from pyproject's setuptools package-dir mapping."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: REPO / folder for name, folder in pyproject["tool"]["setuptools"]["package-dir"].items()}


def source_files() -> Iterator[tuple[str, Path, str]]:
    """(package, path, module name) of every module of every package."""
    for package, folder in package_dirs().items():
        for path in sorted(folder.glob("*.py")):
            module = package if path.name == "__init__.py" else f"{package}.{path.stem}"
            yield package, path, module


@cache
def known_modules() -> frozenset[str]:
    return frozenset(module for _, _, module in source_files())


def imports_of(path: Path, module: str) -> list[Import]:
    """Every import in ``path``, relative ones resolved against ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []
    for function, node in _walk_with_function(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            # `from docs_mcp import errors` imports the module docs_mcp.errors; `from x import name` imports x.
            names = sorted({f"{base}.{alias.name}" if f"{base}.{alias.name}" in known_modules() else base for alias in node.names})
        else:
            continue
        found.extend(Import(_rel(path), node.lineno, name, function) for name in names)
    return found


def _walk_with_function(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    for top in tree.body:
        function = top.name if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
        for node in ast.walk(top):
            yield function, node


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join(anchor + ([node.module] if node.module else []))


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.name


def layer_of(module: str) -> str | None:
    """The package (layer) ``module`` belongs to, or None for third-party modules."""
    matches = [package for package in LAYERS if module == package or module.startswith(package + ".")]
    return max(matches, key=len) if matches else None


def upward_imports(package: str, imports: list[Import]) -> list[Import]:
    """The imports that break the layering from a module of ``package``."""
    bad = []
    for imp in imports:
        target = layer_of(imp.module)
        if target is None or target == package:
            continue
        if package == ROOT:
            allowed = target == ROOT or (Path(imp.file).name == MOUNT[0] and imp.function == MOUNT[1])
        elif target == ROOT:
            allowed = imp.module in ROOT_MODULES_FOR_AREAS
        else:
            allowed = LAYERS[target] < LAYERS[package]
        if not allowed:
            bad.append(imp)
    return bad


def all_imports() -> list[tuple[str, Import]]:
    """(package of the importing module, import) for every import in every package."""
    return [(package, imp) for package, path, module in source_files() for imp in imports_of(path, module)]


def test_the_packages_are_the_four_layers():
    assert set(package_dirs()) == set(LAYERS)
    assert all(folder.is_dir() for folder in package_dirs().values())


def test_imports_go_one_way():
    bad = [str(imp) for package, imp in all_imports() if upward_imports(package, [imp])]
    assert bad == []


def test_the_root_reaches_the_areas_only_in_mount():
    mounted = {imp.module for package, imp in all_imports() if package == ROOT and layer_of(imp.module) not in (None, ROOT)}
    assert mounted == {"docs_mcp.indexer.commands", "docs_mcp.server.commands", "docs_mcp.eval.commands"}


def folder_imports(paths: list[Path]) -> list[str]:
    """The imports in ``paths`` that name a source folder (``server``...) as a top-level package."""
    # Relative imports resolve under the dummy package, so only absolute names can hit the folders.
    imports = [imp for path in paths for imp in imports_of(path, "_anywhere.module")]
    return [str(imp) for imp in imports if imp.module.split(".")[0] in FOLDER_NAMES]


def test_source_folders_are_never_imported_as_top_level_packages():
    folders = ("docs_mcp", "indexer", "server", "eval", "tests", "scripts")
    assert folder_imports([path for folder in folders for path in sorted((REPO / folder).rglob("*.py"))]) == []


# -- the checker itself: each rule fails on a known bad case -----------------------------------


def _imports_from_text(tmp_path: Path, name: str, text: str, module: str) -> list[Import]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return imports_of(path, module)


def test_the_checker_catches_upward_and_lazy_imports(tmp_path):
    source = (
        "from docs_mcp.errors import DocsMcpError\n"
        "from docs_mcp import __version__\n"
        "from docs_mcp.server.records import Hit\n"
        "def f():\n"
        "    import docs_mcp.eval.metrics\n"
        "    from . import build\n"
        "    from ..cli import app\n"
        "    from docs_mcp import cli\n"
    )
    imports = _imports_from_text(tmp_path, "m.py", source, "docs_mcp.indexer.m")
    assert [imp.module for imp in upward_imports("docs_mcp.indexer", imports)] == [
        "docs_mcp.server.records",
        "docs_mcp.eval.metrics",
        "docs_mcp.cli",
        "docs_mcp.cli",
    ]


def test_the_checker_catches_folders_imported_as_packages(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("import server.app\nfrom eval import metrics\nimport evaluate\nfrom docs_mcp import eval\n", encoding="utf-8")
    assert [line.split(" imports ")[1] for line in folder_imports([path])] == ["server.app", "eval"]


def test_the_checker_allows_the_mount_only_in_cli(tmp_path):
    source = "from docs_mcp import errors\ndef _mount():\n    from docs_mcp.server.commands import register\n"
    assert upward_imports(ROOT, _imports_from_text(tmp_path, "cli.py", source, "docs_mcp.cli")) == []
    assert len(upward_imports(ROOT, _imports_from_text(tmp_path, "other.py", source, "docs_mcp.other"))) == 1


# -- stdout ------------------------------------------------------------------------------------


def stdout_writes(path: Path) -> list[tuple[str, int]]:
    """(enclosing top-level function, line) of each write to stdout in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(function, node.lineno) for function, node in _walk_with_function(tree) if _writes_stdout(node)]


def _writes_stdout(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        # sys.stdout / sys.__stdout__ in any use: .write, a StreamHandler, basicConfig(stream=...).
        return node.attr in ("stdout", "__stdout__") and isinstance(node.value, ast.Name) and node.value.id == "sys"
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if name == "print":
        return "file" not in keywords
    if name in ("echo", "secho"):  # typer / click
        return not _is_true(keywords.get("err"))
    if name == "Console":  # rich
        return not _is_true(keywords.get("stderr")) and "file" not in keywords
    return False


def _is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def test_nothing_in_server_writes_to_stdout_but_the_listed_cli_commands():
    server = package_dirs()["docs_mcp.server"]
    writers = {(_rel(path), function) for path in server.glob("*.py") for function, _ in stdout_writes(path)}
    assert writers == STDOUT_PRINTERS


@pytest.mark.parametrize(
    ("line", "writes"),
    [
        ("print('x')", True),
        ("print('x', file=sys.stderr)", False),
        ("sys.stdout.write('x')", True),
        ("logging.basicConfig(stream=sys.stdout)", True),
        ("typer.echo('x')", True),
        ("typer.echo('x', err=True)", False),
        ("Console()", True),
        ("Console(stderr=True)", False),
        ("logger.info('x')", False),
    ],
)
def test_the_stdout_detector(tmp_path, line, writes):
    path = tmp_path / "m.py"
    path.write_text(f"import sys\ndef f():\n    {line}\n", encoding="utf-8")
    assert bool(stdout_writes(path)) is writes
