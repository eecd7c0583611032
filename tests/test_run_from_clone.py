"""`python -m docs_mcp` run in the clone's root works after a regular install as after an editable one.

There the clone's docs_mcp/ folder comes first on sys.path and shadows the installed package; the areas
(docs_mcp.indexer, .server, .eval) live beside it, in indexer/, server/ and eval/ (pyproject.toml's package-dir).
The regular install is laid out here as a wheel lays it out, from pyproject.toml's own mapping (building a real
wheel needs the build backend from a package index), and run with ``-S``: no .pth file, so no editable finder,
only the dependencies' folder on the path behind it.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _installed_layout(target: Path) -> Path:
    """The packages of pyproject.toml where a regular install puts them: docs_mcp/indexer/... under ``target``."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    for package in setuptools["packages"]:
        top = max((name for name in mapping if package == name or package.startswith(name + ".")), key=len)
        source = ROOT / mapping[top] / Path(*package.split(".")[len(top.split(".")) :])
        folder = target / Path(*package.split("."))
        folder.mkdir(parents=True, exist_ok=True)
        for file in source.iterdir():
            if file.is_file():
                shutil.copy2(file, folder / file.name)
    return target


def _help(cwd: Path, *python_flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *python_flags, "-m", "docs_mcp", "--help"], cwd=cwd, capture_output=True, text=True,
                          env=env, check=False, timeout=120)  # fmt: skip


def test_python_m_docs_mcp_runs_in_the_clones_root_after_a_regular_install(tmp_path: Path) -> None:
    installed = _installed_layout(tmp_path / "site-packages")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), *site.getsitepackages()])}
    away = _help(tmp_path, "-S", env=env)  # the installed copy alone serves, away from the clone
    assert away.returncode == 0 and "Usage:" in away.stdout, away.stderr
    in_root = _help(ROOT, "-S", env=env)
    assert in_root.returncode == 0 and "Usage:" in in_root.stdout, in_root.stderr
    assert "ModuleNotFoundError" not in in_root.stderr


def test_python_m_docs_mcp_runs_in_the_clones_root_with_the_editable_install() -> None:
    done = _help(ROOT)
    assert done.returncode == 0 and "Usage:" in done.stdout, done.stderr


def test_a_regular_install_holds_every_package_of_the_tree() -> None:
    """pyproject.toml lists its packages one by one: a folder left out is missing from every regular install (the
    README's first command failed with ``No module named 'docs_mcp.server.tools'``), though an editable one finds it."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    in_tree = set()
    for package, folder in setuptools["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            if relative.parts and any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            in_tree.add(".".join((package, *relative.parts)))
    assert in_tree - set(setuptools["packages"]) == set(), "add these to [tool.setuptools] packages in pyproject.toml"
