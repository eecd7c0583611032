"""Compatibility with the reference docs-mcp: ../shared/conformance reproduced chunk for chunk.

The intended differences (see the fixture's README): an empty file gives no chunk
(it is reported as skipped), and parts of a section split without sub-headings keep the
section's heading level (the level is not in expected.tsv). Two files are chunked by their
own outline (issue 39, corpus/guide/chunking.md): only-h1.md (no `##`) splits at its `###`,
and two-h1.md's second H1 starts a chunk instead of joining the section before it. Both keep
every chunk ID the reference gives them and add one chunk.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from docs_mcp.indexer import CorpusScan, scan_corpus

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
CONFORMANCE = SHARED / "conformance"
EMPTY_FILE = "guides/empty.md"
# The files chunked by their own outline: (chunk_id, heading, chunk_index) of each chunk.
RESHAPED = {
    "guides/only-h1.md": [
        ("guides/only-h1.md#_preamble", "", 0),
        ("guides/only-h1.md#only-a-title/a-deeper-heading", "A deeper heading", 1),
    ],
    "guides/two-h1.md": [
        ("guides/two-h1.md#_preamble", "", 0),
        ("guides/two-h1.md#part-a/setup", "Setup", 1),
        ("guides/two-h1.md#part-b", "Part B", 2),
        ("guides/two-h1.md#part-b/setup", "Setup", 3),
    ],
}

pytestmark = pytest.mark.skipif(
    not (CONFORMANCE / "chunk-ids" / "expected.tsv").is_file(),
    reason=f"conformance fixtures not found at {CONFORMANCE.resolve()} (../shared is absent)",
)


@pytest.fixture(scope="module")
def scan() -> CorpusScan:
    return scan_corpus(CONFORMANCE / "chunk-ids" / "corpus")


def expected_rows() -> list[dict[str, str]]:
    with (CONFORMANCE / "chunk-ids" / "expected.tsv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_chunk_ids_headings_breadcrumbs_positions_and_metadata_match_the_reference(scan: CorpusScan) -> None:
    expected = [
        row
        for row in expected_rows()
        if row["chunk_id"] != f"{EMPTY_FILE}#_preamble" and _file(row["chunk_id"]) not in RESHAPED
    ]
    got = [
        {
            "chunk_id": c.chunk_id,
            "heading": c.heading,
            "breadcrumb": c.breadcrumb,
            "chunk_index": str(c.chunk_index),
            "metadata": json.dumps(dict(sorted(c.metadata.items()))),
        }
        for c in scan.chunks
        if c.filepath not in RESHAPED
    ]
    assert sorted(got, key=lambda r: r["chunk_id"]) == sorted(expected, key=lambda r: r["chunk_id"])


def test_files_chunked_by_their_own_outline_keep_the_reference_ids_and_add_one_chunk(scan: CorpusScan) -> None:
    reference = {row["chunk_id"] for row in expected_rows() if _file(row["chunk_id"]) in RESHAPED}
    for filepath, chunks in RESHAPED.items():
        assert [(c.chunk_id, c.heading, c.chunk_index) for c in scan.chunks if c.filepath == filepath] == chunks
    assert reference < {chunk_id for chunks in RESHAPED.values() for chunk_id, _, _ in chunks}


def test_the_empty_file_is_skipped_not_chunked(scan: CorpusScan) -> None:
    assert scan.skipped == (EMPTY_FILE,)
    assert [(p.path, p.severity) for p in scan.problems] == [(EMPTY_FILE, "warning")]


def test_template_files_are_not_indexed(scan: CorpusScan) -> None:
    assert not [c for c in scan.chunks if c.filepath.endswith(".template.md")]


def test_chunk_contents_and_counts_match_the_reference_get_doc(scan: CorpusScan) -> None:
    by_id = {c.chunk_id: c for c in scan.chunks}
    header = re.compile(r"(?:^|\n\n)--- Chunk: (\S+) \(Chunk (\d+) of (\d+)\) \([^)]*\) ---\n")
    checked = 0
    for case in json.loads((CONFORMANCE / "get-doc" / "expected.json").read_text(encoding="utf-8")):
        if case["is_error"]:
            continue
        parts = header.split(case["text"])
        for chunk_id, number, total, content in zip(parts[1::4], parts[2::4], parts[3::4], parts[4::4]):
            if _file(chunk_id) in RESHAPED:
                continue
            chunk = by_id[chunk_id]
            assert (chunk.content, chunk.chunk_index + 1, chunk.file_chunk_count) == (content, int(number), int(total))
            checked += 1
    assert checked >= 20


def _file(chunk_id: str) -> str:
    return chunk_id.partition("#")[0]
