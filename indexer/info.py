"""`docs-mcp info`: which embedding model built an index, and the default model installed here.

For the index, what it recorded when it was built: the model's name, dimensions, runtime and
each file's sha256 with the package that installed it. For this installation, the default
model loaded the way a build loads it (every file checked against its recorded digest), and
whether the index's model is that one, i.e. whether `serve` and `index` can use it as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.ranker import describe_ranking
from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR

if TYPE_CHECKING:  # records are cheap, but index_file pulls in duckdb: only when the command runs
    from docs_mcp.indexer.index_file import IndexReader
    from docs_mcp.indexer.records import ModelIdentity


def info(
    index: Path | None = typer.Option(
        None, "--index", help=f"Index folder to describe [default: {DEFAULT_INDEX_DIR} when there is one]."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of text."),
) -> None:
    """Show which embedding model built the index, and check the default model installed here (exit 1 if it is damaged)."""
    import orjson

    from docs_mcp.indexer.errors import IndexNotFoundError
    from docs_mcp.indexer.index_file import open_index
    from docs_mcp.indexer.models.loading import load_embedder

    reader = None
    try:
        reader = open_index(index or Path(DEFAULT_INDEX_DIR))
    except IndexNotFoundError:
        if index is not None:
            raise
    installed: ModelIdentity | DocsMcpError  # the default model, or why it does not load
    try:
        installed = load_embedder("default").identity
    except DocsMcpError as error:
        installed = error
    try:
        if as_json:
            typer.echo(orjson.dumps(_as_json(reader, installed), option=orjson.OPT_INDENT_2).decode())
        else:
            typer.echo("\n".join(_text(reader, installed)))
    finally:
        if reader is not None:
            reader.close()
    if isinstance(installed, DocsMcpError):
        raise typer.Exit(1)


def _text(reader: IndexReader | None, installed: ModelIdentity | DocsMcpError) -> list[str]:
    lines = [f"docs-mcp {__version__}"]
    if reader is None:
        lines.append(f"index: none at {DEFAULT_INDEX_DIR} (pass --index DIR to describe another folder)")
    else:
        chunks = (reader.metadata.get("stats") or {}).get("chunks")
        lines.append(f"index: {reader.path} (generation {reader.generation}, {chunks} chunks)")
        lines += (
            [f"  {line}" for line in _model_lines(reader.model)]
            if reader.model
            else ["  embeddings:  none (full-text only)"]
        )
        lines.append(
            f"  ranking:     {describe_ranking(reader.metadata.get('ranker'), has_vectors=reader.model is not None)}"
        )
    if isinstance(installed, DocsMcpError):
        lines += [f"default model installed here: cannot load: {installed.message}", f"  hint: {installed.hint}"]
        return lines
    lines.append("default model installed here: loads offline, every file matches its recorded sha256")
    if reader is not None and reader.model is not None:
        lines.append(f"  the index's model: {_verdict(reader.model, installed)}")
    if reader is None or reader.model != installed:
        lines += [f"  {line}" for line in _model_lines(installed)]
    return lines


def _model_lines(model: ModelIdentity) -> list[str]:
    lines = [
        f"model:       {model.name} ({model.provider}, {model.dimensions} dimensions)",
        f"runtime:     {model.runtime or 'not recorded'}",
    ]
    if not model.files:
        return [*lines, f"weights:     sha256 {model.checksum} (files not recorded: rebuild the index to record them)"]
    width = max(len(f.name) for f in model.files)
    return [
        *lines,
        *(
            f"{'files:' if i == 0 else '':<13}{f.name:<{width}}  sha256 {f.sha256}  {f.source}"
            for i, f in enumerate(model.files)
        ),
    ]


def _verdict(recorded: ModelIdentity, installed: ModelIdentity) -> str:
    if (recorded.name, recorded.checksum, recorded.dimensions) == (
        installed.name,
        installed.checksum,
        installed.dimensions,
    ):
        return "the same (search embeds queries with it)"
    from docs_mcp.indexer.models.static_model import STATIC_PROVIDER

    if recorded.provider == STATIC_PROVIDER:
        return _static_verdict(recorded)
    if recorded.name != installed.name:
        return f"{recorded.name}, another fastembed model: search loads it from fastembed's cache (downloading it once if needed)"
    return "different weights: search refuses this index until it is rebuilt (docs-mcp index DOCS_DIR)"


def _static_verdict(recorded: ModelIdentity) -> str:
    """Whether docs-mcp's static model installed here is the one that built the index (its table is package data)."""
    from docs_mcp.indexer.models.loading import load_embedder
    from docs_mcp.indexer.models.static_model import STATIC_MODEL

    try:
        here = load_embedder(STATIC_MODEL).identity
    except DocsMcpError as error:
        return f"{recorded.name}, docs-mcp's static model, which does not load here: {error.message} {error.hint}"
    if (here.checksum, here.dimensions) == (recorded.checksum, recorded.dimensions):
        return f"{recorded.name}, docs-mcp's static model: the same table is installed here (search embeds queries with it)"
    return (
        f"{recorded.name} with another table (sha256 {recorded.checksum[:12]}; installed here: {here.checksum[:12]}): "
        f"search refuses this index until it is rebuilt (docs-mcp index DOCS_DIR --model {STATIC_MODEL})"
    )


def _as_json(reader: IndexReader | None, installed: ModelIdentity | DocsMcpError) -> dict[str, Any]:
    index = None
    if reader is not None:
        model = reader.model.as_json() if reader.model else None
        index = {
            "path": str(reader.path),
            "generation": reader.generation,
            "chunks": (reader.metadata.get("stats") or {}).get("chunks"),
            "embedding": model,
        }
    default: dict[str, Any] = (
        {"error": installed.message, "hint": installed.hint}
        if isinstance(installed, DocsMcpError)
        else installed.as_json()
    )
    return {"version": __version__, "index": index, "default_model": default}
