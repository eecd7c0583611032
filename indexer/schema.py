"""The on-disk index format: folder layout, tables, columns and the format version.

An index is a folder::

    DIR/CURRENT                 name of the live generation (replaced atomically)
    DIR/metadata.json           copy of the live generation's metadata.json, for people
    DIR/<generation>/index.duckdb
    DIR/<generation>/metadata.json

A build writes a new generation folder aside, then swaps ``CURRENT``; readers
resolve ``CURRENT`` on open, so a crash mid-build leaves the old index live. A build
with embeddings may make two generations live in turn: full text first (``meta.model``
is null, no vectors table), then the same chunks with their vectors.
"""

from __future__ import annotations

FORMAT_VERSION = "1"
METADATA_VERSION = "1"

CURRENT_FILE = "CURRENT"
INDEX_ID_FILE = "INDEX_ID"  # random, written by the first build and kept by every rebuild: which index this is
DB_FILE = "index.duckdb"
METADATA_FILE = "metadata.json"
DEFAULT_INDEX_DIR = ".docs-mcp"

# An empty file a generation gets once written completely: folders without it are what killed builds left.
FINISHED_MARK = ".finished"

# The kinds of generation a build makes live, in order (IndexReport.live_after, progress labels).
FULL_TEXT = "full-text"
HYBRID = "hybrid"

META_TABLE = "meta"
CHUNKS_TABLE = "chunks"
VECTORS_TABLE = "vectors"
# PRAGMA create_fts_index('chunks', ...) puts its tables in this schema.
FTS_SCHEMA = "fts_main_chunks"

# Field order matters: the FTS `fields` table numbers them 0, 1, 2 in this order.
FTS_FIELDS = ("fts_title", "fts_heading", "fts_body")
# Letters of every script and digits make words (oauth2, http2, v1, straße, кошки); everything else separates
# them. CJK text reaches the index already cut into character bigrams (indexer/segmentation.py).
FTS_IGNORE = r"(\.|[^\p{L}\p{N}])+"
FTS_STEMMER = "porter"
FTS_STOPWORDS = "english"

# The meta table's keys: format_version (FORMAT_VERSION of the writer), generation (unique id of this build: cursor
# binding, hot swap), built_at (ISO-8601 UTC), model (JSON ModelIdentity, or "null" for a full-text-only index),
# metadata (the JSON written to metadata.json).


def ddl(dimensions: int | None) -> list[str]:
    """The CREATE statements of an index whose vectors have ``dimensions`` (None: no vectors)."""
    statements = [
        f"CREATE TABLE {META_TABLE} (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
        f"""CREATE TABLE {CHUNKS_TABLE} (
            id INTEGER PRIMARY KEY,          -- dense 0..n-1 in (library, filepath, chunk_index) order
            chunk_id VARCHAR NOT NULL UNIQUE,
            library VARCHAR NOT NULL,
            filepath VARCHAR NOT NULL,
            heading VARCHAR NOT NULL,
            heading_level INTEGER NOT NULL,
            breadcrumb VARCHAR NOT NULL,
            chunk_index INTEGER NOT NULL,
            file_chunk_count INTEGER NOT NULL,
            title VARCHAR NOT NULL,
            content VARCHAR NOT NULL,        -- raw markdown, as written
            text VARCHAR NOT NULL,           -- plain text for search and snippets; '' for a section not searchable
            metadata VARCHAR NOT NULL,       -- JSON object: taxonomy key -> value
            heading_path VARCHAR NOT NULL,   -- JSON array of cleaned headings, top down
            headings VARCHAR NOT NULL,       -- JSON array of every cleaned heading inside the chunk
            fts_title VARCHAR NOT NULL,      -- file title and path words
            fts_heading VARCHAR NOT NULL,    -- heading path, identifiers split (RateLimitError -> rate limit error)
            fts_body VARCHAR NOT NULL        -- plain text, identifiers split
        )""",
    ]
    return [*statements, vectors_ddl(dimensions)] if dimensions else statements


def vectors_ddl(dimensions: int) -> str:
    """The CREATE statement of the vectors table (a hybrid generation adds it to a full-text one)."""
    return f"""CREATE TABLE {VECTORS_TABLE} (
        chunk INTEGER NOT NULL,      -- chunks.id
        "window" INTEGER NOT NULL,   -- 0.. (quoted: a keyword) long chunks are embedded as several windows
        key VARCHAR NOT NULL,        -- sha256(model checksum + window text): reuse across builds
        vec FLOAT[{int(dimensions)}] NOT NULL
    )"""
