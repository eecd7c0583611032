"""What each chunk is, from its raw markdown alone: page-role signals the learned ranking reads.

Computed by the build in DuckDB (no chunk text enters Python) and stored as one column per
role in the serving arrays, so a query reads them by chunk row from the mapping. Roles are
defined by markdown structure only, never by a corpus's names.
"""

from __future__ import annotations

import duckdb
import numpy as np

from docs_mcp.indexer.schema import CHUNKS_TABLE

# Column order of roles.npy (recorded in the manifest), with the SQL that computes each from `content`.
_ROLE_SQL = {
    # An example: a fenced code block (``` or ~~~ at the start of a line).
    "has_code": r"CAST(regexp_matches(content, '(^|\n)[ \t]*(```|~~~)') AS FLOAT)",
}
ROLES = tuple(_ROLE_SQL)


def read_roles(conn: duckdb.DuckDBPyConnection) -> np.ndarray:
    """(chunks, len(ROLES)) float32 roles of every chunk, by chunks.id.

    Raises:
        duckdb.Error: left to the caller, which translates it at its boundary.
    """
    columns = ", ".join(f"{sql} AS {name}" for name, sql in _ROLE_SQL.items())
    rows = conn.execute(f"SELECT {columns} FROM {CHUNKS_TABLE} ORDER BY id").fetchnumpy()
    return np.column_stack([np.asarray(rows[name], dtype=np.float32) for name in ROLES])
