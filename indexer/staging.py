"""Bulk-load rows into a DuckDB table through a newline-delimited JSON file.

DuckDB's Python ``executemany`` inserts ~1k rows/s; without pandas or pyarrow the fast
path is ``read_json`` over a file (50k chunks in ~0.2 s), which orjson writes quickly,
numpy vectors included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import orjson

from docs_mcp.indexer.faults import fault_point

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


def load_rows(conn: duckdb.DuckDBPyConnection, table: str, folder: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    """Insert ``rows`` (column name -> value, every column of ``table``) and return how many.

    The staging file lives in ``folder`` and is deleted afterwards.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    path = Path(folder) / f"{table}.staging.jsonl"
    count = longest = 0
    fault_point("staging")
    with open(path, "wb") as handle:
        for row in rows:
            line = orjson.dumps(row, option=_OPTIONS)
            handle.write(line + b"\n")
            count += 1
            longest = max(longest, len(line))
    try:
        if count:
            conn.execute(_insert_sql(conn, table), [str(path), longest + 1024])
    finally:
        path.unlink()
    return count


def _insert_sql(conn: duckdb.DuckDBPyConnection, table: str) -> str:
    columns = [(f'"{name}"', kind) for name, kind, *_ in conn.execute(f"DESCRIBE {table}").fetchall()]
    names = ", ".join(name for name, _ in columns)
    # Explicit column types: read_json must not guess them from a sample of the file.
    types = ", ".join(f"{name}: '{kind}'" for name, kind in columns)
    return (
        f"INSERT INTO {table} ({names}) SELECT {names} FROM "
        f"read_json(?, format = 'newline_delimited', columns = {{{types}}}, maximum_object_size = ?)"
    )
