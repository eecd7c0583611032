"""Read a project folder: its Python and JavaScript manifests and lock files, as one list of direct dependencies."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.indexer.sources.packages.node_project import read_node_project
from docs_mcp.indexer.sources.packages.project import Project, merge_dependencies
from docs_mcp.indexer.sources.packages.python_project import read_python_project


def read_project(root: Path) -> Project:
    """Every direct dependency the project at ``root`` declares, with locked versions where a lock file has them."""
    root = Path(root)
    python = read_python_project(root)
    node = read_node_project(root)
    return Project(
        root=root,
        dependencies=merge_dependencies([*python.dependencies, *node.dependencies]),
        files=python.files + node.files,
        problems=python.problems + node.problems,
    )
