"""Many libraries in one index: adding, re-indexing and removing one leaves the others untouched."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from library_corpora import ACME, ACME_FILES, PYDANTIX, PYDANTIX_FILES, QUICKWEB, QUICKWEB_FILES, write_corpus

from docs_mcp.indexer import build_index, open_index
from docs_mcp.indexer.errors import LibraryError
from docs_mcp.indexer.libraries.ops import list_libraries, remove_library
from docs_mcp.indexer.libraries.spec import LibrarySpec, check_library_id, requested_spec
from docs_mcp.server.app import tool_list

ROWS_SQL = (
    "SELECT chunk_id, filepath, breadcrumb, content, metadata, library FROM chunks WHERE library = ? ORDER BY chunk_id"
)


def _rows(index: Path, library: str) -> list[tuple]:
    with open_index(index) as reader:
        rows = reader.conn.execute(ROWS_SQL, [library]).fetchall()
    # The library facet may come and go with the number of libraries; everything else must not move.
    return [(*row[:4], {k: v for k, v in json.loads(row[4]).items() if k != "library"}, row[5]) for row in rows]


def _metadata(index: Path) -> dict:
    with open_index(index) as reader:
        return dict(reader.metadata)


@pytest.fixture
def docs(tmp_path: Path) -> dict[str, Path]:
    return {
        QUICKWEB: write_corpus(tmp_path / "quickweb", QUICKWEB_FILES),
        PYDANTIX: write_corpus(tmp_path / "pydantix", PYDANTIX_FILES),
        ACME: write_corpus(tmp_path / "acme", ACME_FILES),
    }


def _spec(library_id: str, docs: dict[str, Path]) -> LibrarySpec:
    return requested_spec(docs[library_id], library_id)


def test_a_single_corpus_index_has_no_library_facet(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build_index(docs[PYDANTIX], index, embeddings="none")
    metadata = _metadata(index)
    assert "library" not in metadata["taxonomy"]
    assert (
        list(metadata["libraries"]) == ["local/pydantix"]
        and metadata["libraries"]["local/pydantix"]["implicit"] is True
    )
    assert sorted(metadata["files"]) == sorted(PYDANTIX_FILES)  # paths are not prefixed
    (search,) = [tool for tool in tool_list(metadata) if tool.name == "search_docs"]
    assert set(search.input_schema["properties"]) == {"query", "limit", "cursor"}
    assert all(row[5] == "" for row in _rows(index, ""))


def test_adding_and_reindexing_a_library_keeps_the_others_and_their_vectors(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build_index(docs[QUICKWEB], index, library=_spec(QUICKWEB, docs))
    quickweb = _rows(index, QUICKWEB)
    added = build_index(docs[PYDANTIX], index, library=_spec(PYDANTIX, docs))
    assert added.reused_embeddings > 0  # QuickWeb's vectors were copied, not recomputed
    assert _rows(index, QUICKWEB) == quickweb
    assert _metadata(index)["taxonomy"]["library"]["values"] == [PYDANTIX, QUICKWEB]
    (docs[PYDANTIX] / "errors.md").write_text("# Errors\n\nInvalid input raises `ValidationError`, now with a hint.\n")
    again = build_index(docs[PYDANTIX], index, library=_spec(PYDANTIX, docs))
    assert 0 < again.embedded < again.reused_embeddings  # only the changed page was embedded
    assert _rows(index, QUICKWEB) == quickweb
    assert "now with a hint" in "".join(row[3] for row in _rows(index, PYDANTIX))


def test_removing_a_library_keeps_the_others_and_embeds_nothing(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"
    for library_id in (QUICKWEB, PYDANTIX, ACME):
        build_index(docs[library_id], index, library=_spec(library_id, docs))
    acme, pydantix = _rows(index, ACME), _rows(index, PYDANTIX)
    report = remove_library(index, QUICKWEB)
    assert report.embedded == 0 and report.reused_embeddings > 0
    assert (_rows(index, ACME), _rows(index, PYDANTIX), _rows(index, QUICKWEB)) == (acme, pydantix, [])
    metadata = _metadata(index)
    assert sorted(metadata["libraries"]) == [ACME, PYDANTIX]
    assert [p["name"] for p in metadata["prompts"]] == []  # QuickWeb's template went with it
    remove_library(index, ACME)
    assert "library" not in _metadata(index)["taxonomy"]  # one library left: no facet
    with pytest.raises(LibraryError, match="only library"):
        remove_library(index, PYDANTIX)
    with pytest.raises(LibraryError, match="no library 'nope/nope'"):
        remove_library(index, "nope/nope")


def test_an_unnamed_corpus_and_named_libraries_live_side_by_side(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"
    build_index(docs[ACME], index)
    build_index(docs[PYDANTIX], index, library=_spec(PYDANTIX, docs))
    assert [item.library_id for item in list_libraries(index)] == ["local/acme", PYDANTIX]
    assert "install.md" in _metadata(index)["files"]  # the unnamed corpus stays at the root
    build_index(docs[ACME], index)  # re-indexing the unnamed corpus replaces it, not the library
    assert [item.library_id for item in list_libraries(index)] == ["local/acme", PYDANTIX]


def test_paths_that_would_belong_to_two_libraries_are_refused(tmp_path: Path) -> None:
    index = tmp_path / "index"
    build_index(
        write_corpus(tmp_path / "mixed", {"acme/cli/install.md": "# Install\n\nText of the page.\n"}),
        index,
        embeddings="none",
    )
    with pytest.raises(LibraryError, match="two libraries"):
        build_index(
            write_corpus(tmp_path / "acme", ACME_FILES), index, library=LibrarySpec(ACME, "Acme CLI"), embeddings="none"
        )


@pytest.mark.parametrize("bad", ["acme", "acme/cli/extra", "/acme", "acme/", "ac me/cli", "../etc", ""])
def test_library_ids_must_be_org_slash_project(bad: str) -> None:
    with pytest.raises(LibraryError, match="org/project"):
        check_library_id(bad)


def test_library_flags_need_an_id(docs) -> None:
    with pytest.raises(LibraryError, match="No library ID"):
        requested_spec(docs[ACME], None, name="Acme")
    assert requested_spec(docs[ACME], None) is None
    assert requested_spec(docs[QUICKWEB], None).library_id == QUICKWEB  # declared in its manifest
    with pytest.raises(LibraryError, match="is not a library ID"):  # `--library "$UNSET"`: not a whole-index build
        requested_spec(docs[ACME], " ")


def test_the_cli_indexes_lists_and_removes_libraries(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"

    def cli(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    cli(
        "index",
        str(docs[ACME]),
        "--out",
        str(index),
        "--library",
        ACME,
        "--name",
        "Acme CLI",
        "--language",
        "go",
        "--version",
        "1.4",
        "--embeddings",
        "none",
    )
    cli("index", str(docs[PYDANTIX]), "--out", str(index), "--library", PYDANTIX, "--embeddings", "none")
    listed = json.loads(cli("libraries", "--index", str(index), "--json"))
    assert [(item["library_id"], item["name"], item["version"], item["languages"]) for item in listed] == [
        (ACME, "Acme CLI", "1.4", ["go"]), (PYDANTIX, "pydantix", "", []),
    ]  # fmt: skip
    assert "pydantix/pydantix" in cli("libraries", "--index", str(index))
    assert "removed acme/cli" in cli("libraries", "remove", ACME, "--index", str(index))
    assert [item["library_id"] for item in json.loads(cli("libraries", "--index", str(index), "--json"))] == [PYDANTIX]


def test_the_libraries_table_keeps_columns_apart_for_long_ids(docs, tmp_path: Path) -> None:
    index = tmp_path / "index"
    long_id = "a-very-long-organisation-name/an-even-longer-project-name-for-docs"
    long_name = "A Library Whose Name Is Longer Than Its Column"
    for args in (
        (
            "--library",
            long_id,
            "--name",
            long_name,
            "--language",
            "python",
            "--language",
            "typescript",
            "--language",
            "go",
        ),
        ("--library", ACME, "--version", "2024.10.01-rc1"),
    ):
        done = subprocess.run([sys.executable, "-m", "docs_mcp", "index", str(docs[ACME]), "--out", str(index), "--embeddings", "none", *args],
                              capture_output=True, text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
    table = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "libraries", "--index", str(index)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    header, *rows = table.splitlines()
    columns = re.split(r"\s{2,}", header.strip())
    assert columns == ["ID", "NAME", "VERSION", "DOCS", "CHUNKS", "LANGUAGES", "SOURCE", "INDEXED", "STALE"]
    for row in rows:
        cells = re.split(r"\s{2,}", row.strip())
        assert len(cells) == len(columns), row
    cells = dict(
        zip(
            columns,
            re.split(r"\s{2,}", rows[0].strip()) if long_id in rows[0] else re.split(r"\s{2,}", rows[1].strip()),
        )
    )
    assert cells["ID"] == long_id and cells["NAME"] == long_name and cells["LANGUAGES"] == "python, typescript, go"
