"""Settings of remote sources, from the environment (the API key never leaves this record but in a header).

DOCS_MCP_FETCH_ALLOW            extra domains pages may be read from (comma-separated; "*.example.com" allowed)
DOCS_MCP_CUSTOM_LIBRARIES       the user's custom-libraries.json (default ~/.docs-mcp/custom-libraries.json)
DOCS_MCP_CURATED_LIBRARIES=0    leave out the curated list bundled with docs-mcp (air-gapped servers, tests)
DOCS_MCP_SOURCES_CACHE          the page cache file (default INDEX_DIR/sources/cache.sqlite)
DOCS_MCP_CONTEXT7_URL           base URL of a Context7-compatible API (e.g. https://context7.com/api)
DOCS_MCP_CONTEXT7_KEY           its API key (sent as a bearer token; never logged or echoed)
DOCS_MCP_ALLOW_PRIVATE_FETCH=1  test mode: loopback addresses may be fetched
DOCS_MCP_FETCH_TIMEOUT          seconds one read of a page may take, all included (default 10, 1-120)
DOCS_MCP_FETCH_SLOTS            pages fetched at once by one process (default 16, 1-256; 4 at most per host)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.environment import environment
from docs_mcp.errors import UsageError
from docs_mcp.indexer.sources.known_libraries import Registry, custom_path, load_registry
from docs_mcp.indexer.sources.web.fetch_pool import DEFAULT_CAPACITY
from docs_mcp.indexer.sources.web.safety import DEFAULT_TIMEOUT, FetchPolicy, host_of, loopback_allowed

ALLOW_ENV = "DOCS_MCP_FETCH_ALLOW"
CURATED_ENV = "DOCS_MCP_CURATED_LIBRARIES"
CACHE_ENV = "DOCS_MCP_SOURCES_CACHE"
CONTEXT7_URL_ENV = "DOCS_MCP_CONTEXT7_URL"
CONTEXT7_KEY_ENV = "DOCS_MCP_CONTEXT7_KEY"
TIMEOUT_ENV = "DOCS_MCP_FETCH_TIMEOUT"
SLOTS_ENV = "DOCS_MCP_FETCH_SLOTS"
SOURCES_FOLDER = "sources"  # inside the index folder; builds only ever delete generation folders
CACHE_FILE = "cache.sqlite"
# Hosts of documentation in general, allowed for every library (corpus/guide/remote-sources.md#which-urls-are-fetched).
DEFAULT_DOMAINS = ("github.com", "raw.githubusercontent.com", "*.github.io", "*.readthedocs.io")


@dataclass(frozen=True)
class SourceSettings:
    """Where the cache is, what may be fetched, and the Context7-compatible API if any."""

    index_dir: Path
    cache_path: Path
    registry: Registry
    policy: FetchPolicy
    context7_url: str = ""
    context7_key: str = field(default="", repr=False)
    fetch_slots: int = DEFAULT_CAPACITY


def source_settings(
    index_dir: Path, environ: Mapping[str, str] | None = None, registry: Registry | None = None
) -> SourceSettings:
    """The settings for the index at ``index_dir`` from ``environ`` (default: the process environment)."""
    env = dict(environment() if environ is None else environ)
    registry = (
        registry if registry is not None else load_registry(custom_path(env), bundled=env.get(CURATED_ENV, "1") != "0")
    )
    extra = {d.strip().lower() for d in env.get(ALLOW_ENV, "").split(",") if d.strip()}
    context7_url = env.get(CONTEXT7_URL_ENV, "").strip().rstrip("/")
    domains = set(DEFAULT_DOMAINS) | extra | registry.domains() | ({host_of(context7_url)} - {""})
    timeout = _number(env, TIMEOUT_ENV, DEFAULT_TIMEOUT, 1, 120)
    policy = FetchPolicy(allowed_domains=frozenset(domains), allow_loopback=loopback_allowed(env), timeout=timeout)
    cache = Path(env[CACHE_ENV]) if env.get(CACHE_ENV) else Path(index_dir) / SOURCES_FOLDER / CACHE_FILE
    slots = int(_number(env, SLOTS_ENV, DEFAULT_CAPACITY, 1, 256, whole=True))
    return SourceSettings(
        Path(index_dir), cache, registry, policy, context7_url, env.get(CONTEXT7_KEY_ENV, "").strip(), slots
    )


def _number(
    env: Mapping[str, str], name: str, default: float, low: float, high: float, *, whole: bool = False
) -> float:
    """``env[name]`` as a number from ``low`` to ``high`` (``default`` when unset).

    Raises:
        UsageError: the value is not such a number.
    """
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        kind = "a whole number" if whole else "a number of seconds"
        raise UsageError(
            f"{name}={raw!r} is not {kind} from {low:g} to {high:g}.",
            f"Set {name} to such a value, or unset it for {default:g}.",
        )
    return value
