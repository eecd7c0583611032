"""`docs-mcp serve` and `docs-mcp search`: options in, one library call, output out.

Heavy imports (the MCP SDK, duckdb, the engine) happen inside the commands so
that `docs-mcp --help` and the other areas' commands stay fast.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from docs_mcp.environment import environment
from docs_mcp.errors import UsageError
from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.server.search.blas import use_one_blas_thread
from docs_mcp.server.search.modes import Mode

if TYPE_CHECKING:
    from docs_mcp.server.gateway import Gateway, GatewayConfig
    from docs_mcp.server.team.server_settings import TeamSettings

MAX_SEARCH_WORKERS = 64


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


class LogFormat(StrEnum):
    json = "json"
    pretty = "pretty"


def register(app: typer.Typer) -> None:
    """Add this area's commands to the root `docs-mcp` app."""
    from docs_mcp.server.fleet.commands import register_fleet
    from docs_mcp.server.gateway.commands import register_gateway
    from docs_mcp.server.setup.commands import register_setup
    from docs_mcp.server.team.commands import register_team

    register_serve(app)
    app.command("search")(search)
    app.command("get")(get)
    register_team(app)
    register_gateway(app)
    register_fleet(app)
    register_setup(app)


def register_serve(app: typer.Typer) -> None:
    """Add `docs-mcp serve` alone (the root mounts it so when the command line asks for it)."""
    app.command("serve")(serve)


def serve(
    index: Path | None = typer.Option(
        None, "--index", help=f"Index directory built by `docs-mcp index` (default: {DEFAULT_INDEX_DIR})."
    ),
    transport: Transport | None = typer.Option(
        None,
        "--transport",
        help="stdio for one client, http for a team (default: stdio, or server.transport / DOCS_MCP_TRANSPORT).",
    ),
    mode: Mode = typer.Option(
        Mode.hybrid,
        "--mode",
        help="Ranking: hybrid (the fusion, identifiers first, calibrated scores, off-topic gate), fusion (BM25 + vectors alone), bm25 or vector.",
    ),
    host: str | None = typer.Option(None, "--host", help="http: address to bind (default: 127.0.0.1)."),
    port: int | None = typer.Option(None, "--port", help="http: port to listen on (default: 3100)."),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="Config file: team settings and [[upstream]] servers (default: $DOCS_MCP_CONFIG, else ./docs-mcp.toml).",
    ),
    redis_url: str | None = typer.Option(None, "--redis-url", help="http: Redis shared by replicas for rate limits."),
    log_format: LogFormat | None = typer.Option(
        None, "--log-format", help="http: log lines as json (default) or pretty."
    ),
    allow_any_host: bool = typer.Option(
        False, "--allow-any-host", help="http: serve a public --host with http.allowed_hosts empty (any Host header)."
    ),
    search_workers: int | None = typer.Option(
        None,
        "--search-workers",
        min=0,
        max=MAX_SEARCH_WORKERS,
        help="Processes that run searches in parallel; 0 searches in the server process "
        "(default: 0 for stdio, one per core for http, or server.search_workers / DOCS_MCP_SEARCH_WORKERS).",
    ),
) -> None:
    """Serve the index to MCP clients (stdout carries only the protocol; logs go to stderr).

    Flags left out fall back to DOCS_MCP_* variables, then the config file (over stdio: the index
    and search workers). With [[upstream]] servers in the config file, the gateway's meta-tools
    are served too.
    """

    from docs_mcp.server.team.server_settings import config_path, load_settings

    use_one_blas_thread()
    team = load_settings({"server.transport": transport.value if transport else None}, config_file=config)
    transport = Transport(team["server.transport"])
    if transport is Transport.stdio:
        index, search_workers = _stdio_index_and_workers(team, index, search_workers)
    if _searches_in_process(mode, transport, search_workers) and (index is not None or transport is not Transport.http):
        from docs_mcp.server.search.query_model import prefetch_query_model

        prefetch_query_model(index or Path(DEFAULT_INDEX_DIR))  # overlaps the MCP SDK's imports below
    from docs_mcp.server.app import ServerSettings, run_stdio

    settings = ServerSettings(mode=mode, search_workers=search_workers or 0)
    gateway_config = _gateway_config(config_path(config, environment()))
    http_only = {
        "--host": host,
        "--port": port,
        "--redis-url": redis_url,
        "--log-format": log_format,
        "--allow-any-host": allow_any_host or None,
    }
    if transport is Transport.stdio:
        _refuse_http_flags([flag for flag, value in http_only.items() if value is not None])
        logging.basicConfig(
            stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
        with _gateway(gateway_config) as gateway:
            run_stdio(index or Path(DEFAULT_INDEX_DIR), settings, gateway)
        return
    try:
        from docs_mcp.server.team.http_transport import run_http
    except ModuleNotFoundError as error:
        if error.name != "docs_mcp.server.team.http_transport":
            raise
        raise UsageError("The http transport is not available in this version.", "Use --transport stdio.") from None
    with _gateway(gateway_config) as gateway:
        run_http(
            index,
            settings,
            host=host,
            port=port,
            config_file=config,
            redis_url=redis_url,
            log_format=log_format.value if log_format else None,
            gateway=gateway,
            allow_any_host=allow_any_host or None,
            search_workers=search_workers,
        )


def _gateway_config(path: Path | None) -> GatewayConfig | None:
    """The gateway's part of the config file at ``path``; None without a file, and then without importing the
    gateway's configuration modules (a plain stdio server's start)."""
    if path is None:
        return None
    from docs_mcp.server.gateway import load_gateway_config

    return load_gateway_config(path)


def _gateway(config: GatewayConfig | None) -> AbstractContextManager[Gateway | None]:
    """The gateway over ``config``'s upstream servers while the block runs; with none enabled, None without
    importing the gateway's modules (httpx, its catalog index: a slower start for every server)."""
    if config is None or not config.enabled:
        return nullcontext(None)
    from docs_mcp.server.gateway import open_gateway

    return open_gateway(config)


def _stdio_index_and_workers(team: TeamSettings, index: Path | None, search_workers: int | None) -> tuple[Path, int]:
    """Flags first, then server.index / server.search_workers from DOCS_MCP_* or the config file.

    Search workers stay 0 over stdio unless asked for: one client sends one request at a time.
    """
    if index is None:
        index = team.index
    if search_workers is None:
        search_workers = 0 if team.sources["server.search_workers"] == "default" else team.search_workers
    return index, search_workers


def _searches_in_process(mode: Mode, transport: Transport | None, search_workers: int | None) -> bool:
    """Whether this process will load the query model: not for bm25, nor when search workers do (http's default)."""
    if mode is Mode.bm25:
        return False
    return search_workers == 0 or (search_workers is None and transport is not Transport.http)


def _refuse_http_flags(given: list[str]) -> None:
    """A flag that only the http transport reads must not be silently ignored under stdio."""
    if given:
        raise UsageError(
            f"{', '.join(given)} only appl{'y' if len(given) > 1 else 'ies'} to the http transport, and this server runs over stdio.",
            "Add --transport http to serve a team over HTTP, or drop " + ("them." if len(given) > 1 else "it."),
        )


def search(
    query: str = typer.Argument(..., help="What to look for, e.g. 'how to paginate' or 'RateLimitError'."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help="Index directory built by `docs-mcp index`."),
    limit: int = typer.Option(5, "--limit", min=1, max=50, help="Number of hits to show."),
    filters: list[str] = typer.Option(
        [], "--filter", help="Taxonomy filter KEY=VALUE, e.g. language=python (repeatable)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the search_docs JSON result instead of a list."),
    mode: Mode = typer.Option(
        Mode.hybrid,
        "--mode",
        help="Ranking: hybrid (the fusion, identifiers first, calibrated scores, off-topic gate), fusion (BM25 + vectors alone), bm25 or vector.",
    ),
    keywords: str | None = typer.Option(
        None,
        "--keywords",
        help="Terms the answer would contain (API, option, error names): searched as search_docs_expanded does.",
    ),
    question: str | None = typer.Option(
        None, "--question", help="The question restated in the documentation's terms (search_docs_expanded)."
    ),
    hypothetical_answer: str | None = typer.Option(
        None, "--hypothetical-answer", help="1-3 sentences the documentation might say (search_docs_expanded)."
    ),
) -> None:
    """Search the index from the command line, the way the search_docs tool does (search_docs_expanded with expansions)."""
    use_one_blas_thread()
    from docs_mcp.server.contract.render import render_search_text
    from docs_mcp.server.core.live_index import LiveIndex
    from docs_mcp.server.tools import search_docs, search_docs_expanded
    from docs_mcp.server.tools.offered import tool_text

    parts = {
        name: text
        for name, text in (("keywords", keywords), ("question", question), ("hypothetical_answer", hypothetical_answer))
        if text
    }
    live = LiveIndex(index, warm=None)
    try:
        with live.lease() as served:
            arguments: dict[str, object] = {
                "query": query,
                "limit": limit,
                **_parse_filters(filters, served.filters),
                **parts,
            }
            text = tool_text(served, search_docs_expanded.NAME if parts else search_docs.NAME, arguments, mode)
    finally:
        live.close()
    typer.echo(text if as_json else render_search_text(text))


def get(
    chunk_id: str = typer.Argument(
        ..., help="A chunk ID from a search hit, e.g. 'guide/pagination.md#cursor-pagination'."
    ),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help="Index directory built by `docs-mcp index`."),
    context: int = typer.Option(
        0, "--context", min=0, max=5, help="Chunks of the same page to add before and after it."
    ),
) -> None:
    """Print a chunk's markdown (and its neighbours with --context), the way the get_doc tool does."""
    from docs_mcp.server.core.live_index import LiveIndex
    from docs_mcp.server.tools import get_doc
    from docs_mcp.server.tools.offered import tool_text

    live = LiveIndex(index, warm=None)
    try:
        with live.lease() as served:
            text = tool_text(served, get_doc.NAME, {"chunk_id": chunk_id, "context": context})
    finally:
        live.close()
    typer.echo(text)


def _parse_filters(filters: list[str], known: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in filters:
        key, sep, value = item.partition("=")
        if not sep or key not in known:
            available = ", ".join(f"{name}=({'|'.join(values)})" for name, values in known.items()) or "none"
            raise UsageError(f"Invalid filter {item!r}.", f"Use --filter KEY=VALUE; this index has: {available}.")
        parsed[key] = value
    return parsed
