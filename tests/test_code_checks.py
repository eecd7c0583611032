"""CI runs the code checks (issue 38): ruff's lint and format check and the type checker, before the tests.

``.ci/run`` is read as text: each check must be a command of its own (not a comment) between the install and pytest,
so that CI fails on a lint, format or type error before spending its ten minutes on the suite.
``scripts/typecheck.py`` is loaded from its file: the tree it links for mypy must be the package as installed.
"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ("ruff check .", "ruff format --check .", "python scripts/typecheck.py")


def _commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _typecheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / "scripts" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ci_runs_each_check_after_the_install_and_before_the_tests() -> None:
    commands = _commands()
    install = next(i for i, command in enumerate(commands) if 'pip install -e ".[test]"' in command)
    tests = commands.index("pytest")
    for check in CHECKS:
        assert check in commands, f"{check!r} is not a command of .ci/run"
        assert install < commands.index(check) < tests, f"{check!r} must run after the install and before pytest"


def test_the_checkers_ci_installs_are_the_pinned_ones() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    check_extra = project["project"]["optional-dependencies"]["check"]
    assert {requirement.split("==")[0] for requirement in check_extra} == {"ruff", "mypy"}
    assert all("==" in requirement for requirement in check_extra)  # a new release must not fail CI by itself
    assert 'pip install -e ".[check]"' in _commands()


def test_the_type_checked_tree_is_the_package_as_installed(tmp_path: Path) -> None:
    typecheck = _typecheck()
    package = typecheck.link_tree(tmp_path)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = project["tool"]["setuptools"]["package-dir"]
    for name, folder in folders.items():
        if name != "docs_mcp":  # the root package: a folder of its own, its files linked one by one
            assert package.parent.joinpath(*name.split(".")).resolve() == (ROOT / folder).resolve(), name
    root_files = {path.name for path in (ROOT / folders["docs_mcp"]).glob("*.py")}
    assert root_files and all((package / name).resolve() == ROOT / "docs_mcp" / name for name in root_files)


def test_mypy_paths_are_reported_as_the_repository_has_them() -> None:
    typecheck = _typecheck()
    assert (
        typecheck.repository_path("docs_mcp/server/core/arguments.py:118: error: x  [arg-type]")
        == "server/core/arguments.py:118: error: x  [arg-type]"
    )
    assert typecheck.repository_path("docs_mcp/eval/bench.py:1: note: y") == "eval/bench.py:1: note: y"
    assert typecheck.repository_path("docs_mcp/cli.py:3: error: z") == "docs_mcp/cli.py:3: error: z"
    assert typecheck.repository_path("Success: no issues found") == "Success: no issues found"
