"""Type-check the docs_mcp package with mypy, configured by pyproject.toml's [tool.mypy].

The package is spread over four folders (pyproject's package-dir: docs_mcp/, indexer/, server/ and eval/ are
docs_mcp, docs_mcp.indexer, docs_mcp.server and docs_mcp.eval), and mypy finds modules by their place on disk; the
editable install's import hook is invisible to it. So this script links the folders into one docs_mcp tree in a
temporary folder, runs mypy there on the installed environment (this interpreter's), and prints mypy's report
with paths relative to the repository again. Its exit status is mypy's (0: clean).

    python scripts/typecheck.py            # what .ci/run runs
    python scripts/typecheck.py -- --some-mypy-flag
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The package's folders: where pyproject's package-dir puts each subpackage of docs_mcp.
SUBPACKAGES = {"indexer": "indexer", "server": "server", "eval": "eval"}


def link_tree(root: Path) -> Path:
    """docs_mcp/ under root: the root package's files, and a link per subpackage to its folder in the repository."""
    package = root / "docs_mcp"
    package.mkdir()
    for entry in (REPO / "docs_mcp").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in SUBPACKAGES.items():
        (package / name).symlink_to(REPO / folder, target_is_directory=True)
    return package


def repository_path(line: str) -> str:
    """A mypy report line with its docs_mcp/... path turned back into the repository's (server/..., docs_mcp/...)."""
    for name, folder in SUBPACKAGES.items():
        prefix = f"docs_mcp/{name}/"
        if line.startswith(prefix):
            return folder + "/" + line[len(prefix) :]
    return line


def main(extra: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="docs-mcp-typecheck-") as tmp:
        root = Path(tmp)
        link_tree(root)
        command = [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--python-executable",
            sys.executable,
            "--cache-dir",
            str(REPO / ".mypy_cache"),
            *extra,
            "-p",
            "docs_mcp",
        ]
        env = {**os.environ, "MYPYPATH": str(root)}
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
        for line in done.stdout.splitlines():
            print(repository_path(line))
        sys.stderr.write(done.stderr)
        return done.returncode


if __name__ == "__main__":
    arguments = sys.argv[1:]
    sys.exit(main(arguments[1:] if arguments[:1] == ["--"] else arguments))
