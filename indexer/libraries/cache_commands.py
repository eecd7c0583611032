"""`docs-mcp cache` (list the library cache's entries), `docs-mcp cache prune` and `docs-mcp cache clear`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import typer

from docs_mcp.errors import UsageError
from docs_mcp.indexer.libraries.commands import listing_group
from docs_mcp.tables import table_lines

if TYPE_CHECKING:
    from docs_mcp.indexer.libraries.build_cache import LibraryCache


def register_cache(app: typer.Typer) -> None:
    """Add the `cache` command group to the root `docs-mcp` app."""
    help_text = (
        "List the library cache (packages built once per machine, reused by every project's sync and add), or empty it."
    )
    listing_group(app, "cache", help_text, cache, {"prune": prune, "clear": clear})


def cache(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    """List the entries of the library cache: library, model, size, last use (the least recently used first)."""
    if ctx.invoked_subcommand is not None:
        return
    import orjson

    found = _cache()
    entries = found.entries()
    if as_json:
        rows = [{"library_id": e.library_id, "model": e.model, "bytes": e.bytes, "last_used": _iso(e.last_used),
                 "path": str(e.path)} for e in entries]  # fmt: skip
        body = {"folder": str(found.root), "max_bytes": found.max_bytes, "entries": rows}
        typer.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(f"{found.root}: {len(entries)} entries, {_mb(sum(e.bytes for e in entries))} of {_mb(found.max_bytes)}")
    table: list[tuple[str, ...]] = [("LIBRARY", "MODEL", "SIZE", "LAST USED")]
    table += [(e.library_id, e.model, _mb(e.bytes), _iso(e.last_used)) for e in entries]
    for line in table_lines(table, right_aligned={2}):
        typer.echo(line)


def prune(
    max_mb: int | None = typer.Option(
        None, "--max-mb", min=0, help="Keep at most this many MB (default: the cap, DOCS_MCP_LIBRARY_CACHE_MB)."
    ),
) -> None:
    """Delete the entries used longest ago until the cache holds at most --max-mb."""
    found = _cache()
    removed = found.evict(None if max_mb is None else max_mb << 20)
    typer.echo(f"removed {len(removed)} entries ({_mb(sum(e.bytes for e in removed))}) from {found.root}")


def clear() -> None:
    """Delete every entry of the library cache (the next sync of each project builds its libraries again)."""
    found = _cache()
    removed = found.evict(0)
    typer.echo(f"removed {len(removed)} entries ({_mb(sum(e.bytes for e in removed))}) from {found.root}")


def _cache() -> LibraryCache:
    from docs_mcp.indexer.libraries.build_cache import CACHE_ENV, LibraryCache

    found = LibraryCache.from_environment()
    if found is None:
        raise UsageError(
            f"The library cache is turned off ({CACHE_ENV}=off).",
            f"Unset {CACHE_ENV}, or set it to the cache's folder.",
        )
    return found


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f} MB"


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch)) if epoch else "-"
