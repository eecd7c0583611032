"""`docs-mcp libraries` (list an index's libraries) and `docs-mcp libraries remove ID`: options in, one call, output out."""

from __future__ import annotations

from pathlib import Path

import typer

from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR

INDEX_HELP = "Index folder built by `docs-mcp index`."


def register_libraries(app: typer.Typer) -> None:
    """Add the `libraries` command group to the root `docs-mcp` app."""
    group = typer.Typer(
        name="libraries",
        help="List the libraries an index holds (see `docs-mcp index --library`), or remove one.",
        invoke_without_command=True,
    )
    group.callback()(libraries)
    group.command("remove")(remove)
    app.add_typer(group, name="libraries")


def libraries(
    ctx: typer.Context,
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the list as JSON."),
) -> None:
    """List the libraries of an index: ID, name, version, documents, chunks, languages, when indexed."""
    if ctx.invoked_subcommand is not None:
        return
    import orjson

    from docs_mcp.indexer.libraries.ops import list_libraries

    listed = list_libraries(index)
    if as_json:
        typer.echo(orjson.dumps([item.as_json() for item in listed], option=orjson.OPT_INDENT_2).decode())
        return
    typer.echo(f"{'ID':<28}{'NAME':<24}{'VERSION':<10}{'DOCS':>6}{'CHUNKS':>8}  {'LANGUAGES':<28}INDEXED")
    for item in listed:
        name = item.name + (" (unnamed corpus)" if item.implicit else "")
        typer.echo(
            f"{item.library_id:<28}{name[:23]:<24}{item.version[:9]:<10}{item.documents:>6}{item.chunks:>8}  "
            f"{', '.join(item.languages)[:27]:<28}{item.indexed_at}"
        )


def remove(
    library_id: str = typer.Argument(..., help="ID of the library to remove (see `docs-mcp libraries`)."),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help=INDEX_HELP),
) -> None:
    """Remove one library from an index; the others stay as they are (nothing is re-embedded)."""
    from docs_mcp.indexer.libraries.ops import remove_library

    report = remove_library(index, library_id)
    typer.echo(f"removed {library_id}: the index now holds {report.files} files, {report.chunks} chunks ({report.reused_embeddings} vectors reused)")
