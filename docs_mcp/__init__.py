"""docs-mcp: documentation search for AI coding agents, served over MCP."""

from pathlib import Path as _Path

__version__ = "0.1.0"

__all__ = ["__version__"]

# In a clone, this folder sits beside indexer/, server/ and eval/, which an install maps to docs_mcp.indexer,
# docs_mcp.server and docs_mcp.eval (pyproject.toml's package-dir). `python -m docs_mcp` run in the clone's root
# finds this folder before any installed copy (the current folder comes first on sys.path), so after a regular
# (not editable) install those subpackages were looked for here and not found. The clone's root joins the
# package's path: they are the clone's own, as an editable install maps them. An installed copy has no such
# siblings (a wheel puts them inside docs_mcp/), so its path is left as it is.
_CLONE = _Path(__file__).resolve().parent.parent
if (_CLONE / "pyproject.toml").is_file() and all(
    (_CLONE / area / "__init__.py").is_file() for area in ("indexer", "server", "eval")
):
    __path__.append(str(_CLONE))
