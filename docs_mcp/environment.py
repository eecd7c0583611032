"""The process environment, read and set in one place: every variable docs-mcp reads is named here.

Settings records (the team server's ``TeamConfig``, the sources' ``SourceSettings``) and the few
single switches below read it through :func:`environment` or :func:`variable`; nothing else
touches ``os.environ`` (tests/test_architecture.py). Reads happen when asked, never at import,
so a test or a wrapper may set a variable before the code that reads it runs.

    DOCS_MCP_CONFIG                 the team server's config file (server/team/server_settings.py lists its keys' variables)
    DOCS_MCP_FETCH_ALLOW, DOCS_MCP_CUSTOM_LIBRARIES, DOCS_MCP_CURATED_LIBRARIES, DOCS_MCP_SOURCES_CACHE,
    DOCS_MCP_CONTEXT7_URL, DOCS_MCP_CONTEXT7_KEY, DOCS_MCP_ALLOW_PRIVATE_FETCH   remote sources (indexer/sources/source_settings.py)
    DOCS_MCP_GITHUB_API, GITHUB_TOKEN, GH_TOKEN   GitHub repositories: the API base, the token (indexer/sources/github_api.py)
    DOCS_MCP_ANN_MIN_WINDOWS        windows from which a build makes the approximate vector index
    DOCS_MCP_QUERY_PRECISION        float32 (default) or int8: how the default model embeds queries (indexer/models/query_graph.py)
    DOCS_MCP_TEST_FAULT             tests only: a fault point and what happens there
    XDG_CACHE_HOME                  where docs-mcp's cache folder goes (default ~/.cache)
    DOCS_MCP_LIBRARY_CACHE, DOCS_MCP_LIBRARY_CACHE_MB   the library cache's folder ("off") and size cap (indexer/libraries/build_cache.py)
    HF_HUB_OFFLINE                  the Hugging Face hub may not be reached (models other than the default)
    OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, MKL_NUM_THREADS   set to 1 unless given: one BLAS thread
    ORT_DISABLE_TELEMETRY           set to 1 unless given, before ONNX Runtime loads: it reports nothing
    CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, APPDATA   where `docs-mcp setup` finds the clients' user config
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def environment() -> Mapping[str, str]:
    """The process environment as it is now."""
    return os.environ


def variable(name: str) -> str:
    """The value of the environment variable ``name``, '' when unset."""
    return os.environ.get(name, "")


def default_variable(name: str, value: str) -> None:
    """Set ``name`` to ``value`` unless the user set it (before the library that reads it loads)."""
    os.environ.setdefault(name, value)
