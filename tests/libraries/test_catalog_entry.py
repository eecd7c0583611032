"""A library's catalog entry is read once into a typed record (indexer/libraries/catalog_entry.py) and
written back as it was stored: real indexes of our own small libraries (tests/libraries/library_corpora.py)."""

from __future__ import annotations

import json
from pathlib import Path

from library_corpora import ACME, ACME_FILES, PYDANTIX, PYDANTIX_FILES, write_corpus

from docs_mcp.indexer import build_index
from docs_mcp.indexer.libraries.spec import requested_spec
from docs_mcp.indexer.libraries.store import catalog_entries
from docs_mcp.server.libraries.served_libraries import LibraryCatalog


def _published(index: Path) -> dict:
    return json.loads((index / "metadata.json").read_text(encoding="utf-8"))


def test_fields_an_older_index_wrote_as_null_read_as_empty_values(tmp_path: Path) -> None:
    """A null source, name, languages, stats or table of contents is empty, not a TypeError in `docs-mcp libraries`."""
    docs = write_corpus(tmp_path / "pydantix", PYDANTIX_FILES)
    build_index(docs, tmp_path / "index", embeddings="none", library=requested_spec(docs, PYDANTIX))
    metadata = _published(tmp_path / "index")
    metadata["libraries"][PYDANTIX].update(
        {key: None for key in ("source", "name", "languages", "stats", "toc", "aliases", "ttl_hours", "pages")}
    )

    (entry,) = catalog_entries(metadata).values()
    assert (entry.library_id, entry.source, entry.name, entry.languages, entry.toc) == (PYDANTIX, "", "", (), ())
    assert (entry.chunks, entry.documents, entry.ttl_hours, dict(entry.pages)) == (0, 0, 0.0, {})
    listing = LibraryCatalog.from_metadata(metadata).libraries[PYDANTIX].listing()
    assert (listing["source"], listing["name"], listing["languages"], listing["chunks"]) == ("", PYDANTIX, [], 0)


def test_a_kept_library_s_entry_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    """Adding a library rewrites metadata.json; the entries of the libraries it keeps stay as stored (keys and order)."""
    acme = write_corpus(tmp_path / "acme", ACME_FILES)
    pydantix = write_corpus(tmp_path / "pydantix", PYDANTIX_FILES)
    index = tmp_path / "index"
    build_index(acme, index, embeddings="none", library=requested_spec(acme, ACME))
    before = json.dumps(_published(index)["libraries"][ACME])

    build_index(pydantix, index, embeddings="none", library=requested_spec(pydantix, PYDANTIX))

    libraries = _published(index)["libraries"]
    assert list(libraries) == [ACME, PYDANTIX]
    assert json.dumps(libraries[ACME]) == before
    assert catalog_entries(_published(index))[ACME].json == json.loads(before)
