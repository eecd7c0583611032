"""The golden queries of the bundled corpus: well formed, balanced, and every entry names a real section.

Two independent checks: a plain reading of the markdown files (the entry's heading is a
heading of its file, with the heading path above it), and resolution against the chunks the
indexer really makes of ``corpus/`` (no index or model needed).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from docs_mcp.eval.golden import load_golden
from docs_mcp.eval.judgments import IndexedChunk, resolve_judgments
from docs_mcp.indexer.corpus.scan import scan_corpus

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpus"
GOLDEN = ROOT / "eval" / "golden" / "corpus.jsonl"
STYLES = ("keyword", "natural", "paraphrase")

_FENCE = re.compile(r"^(```|~~~)")
_ATX = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _entries() -> list[dict]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]


def _heading_paths(path: Path) -> list[list[str]]:
    """Every ATX heading of a file with the headings above it; fenced code is skipped."""
    paths: list[list[str]] = []
    stack: list[tuple[int, str]] = []
    fence = None
    for line in path.read_text(encoding="utf-8").splitlines():
        opener = _FENCE.match(line)
        if opener:
            # A fence closes only with the same marker that opened it.
            fence = None if fence == opener.group(1) else (fence or opener.group(1))
            continue
        heading = _ATX.match(line) if fence is None else None
        if heading:
            level = len(heading.group(1))
            stack = [(lvl, text) for lvl, text in stack if lvl < level] + [(level, heading.group(2))]
            paths.append([text for _, text in stack])
    return paths


def _languages() -> set[str]:
    found = set()
    for manifest in CORPUS.rglob(".docs-mcp.json"):
        language = json.loads(manifest.read_text(encoding="utf-8")).get("metadata", {}).get("language")
        if language:
            found.add(language)
    return found


def test_golden_file_loads_with_the_eval_loader():
    queries = load_golden(GOLDEN)
    assert len(queries) >= 66
    assert len({q.qid for q in queries}) == len(queries)


def test_styles_are_balanced_and_some_queries_are_faceted():
    entries = _entries()
    styles = Counter(entry["style"] for entry in entries)
    assert set(styles) == set(STYLES)
    assert min(styles.values()) >= len(entries) // 3 - 2, styles
    faceted = [entry for entry in entries if entry["facets"]]
    assert len(faceted) >= 10
    assert {value for entry in faceted for value in entry["facets"].values()} <= _languages()
    assert all(set(entry["facets"]) == {"language"} for entry in faceted)


@pytest.mark.parametrize("entry", _entries(), ids=lambda entry: entry["id"])
def test_every_relevant_entry_names_a_heading_of_its_file(entry):
    assert entry["relevant"], "a golden query needs at least one relevant entry"
    for relevant in entry["relevant"]:
        path = CORPUS / relevant["filepath"]
        assert path.is_file(), f"{relevant['filepath']} is not a file of corpus/"
        assert relevant["grade"] in (1, 2)
        assert relevant["heading_path"][-1] == relevant["heading"]
        assert relevant["heading_path"] in _heading_paths(path), (
            f"{relevant['filepath']} has no heading {relevant['heading']!r} under {relevant['heading_path'][:-1]}"
        )


def test_every_relevant_entry_resolves_to_one_chunk_of_the_indexed_corpus():
    scan = scan_corpus(CORPUS)
    chunks = [IndexedChunk(c.chunk_id, c.filepath, c.heading_path, c.headings) for c in scan.chunks]
    resolved = resolve_judgments(load_golden(GOLDEN), chunks)  # raises, listing every entry that matches nothing
    ambiguous = [ids for judgments in resolved for judgment in judgments for ids in [judgment.ids] if len(ids) != 1]
    assert ambiguous == []
