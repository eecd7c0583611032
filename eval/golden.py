"""Golden query files: load and validate JSON or JSONL into GoldenQuery records.

Three spellings are accepted, one query per object:

- ours: ``{"query", "relevant": [{"chunk_id", "grade"}], "filters", "category"}``; a ``chunk_id``
  without ``#`` names a whole file (any chunk of it counts, once);
- the section form of ``../shared/golden``: ``{"filepath", "heading", "heading_path", "grade"}``
  entries, with ``facets`` for filters and ``style`` for category (``heading`` ``"_preamble"``
  is the text before the first heading, ``null`` the whole file);
- the reference server's cases: ``expectedChunkId`` / ``expected_chunk_id``, ``filters``,
  ``limit``, ``maxRounds`` / ``max_rounds_allowed``, ``name``, ``category``.

A query with style ``off-topic`` and no relevant entry is one the corpus does not answer: it
scores by returning zero hits (the abstention rate), not by NDCG.

Any query may carry ``expansions``: what an agent adds to it for search_docs_expanded,
``{"keywords", "question", "hypothetical_answer"}`` (strings, each optional).  `docs-mcp eval
--expansions typed` sends them as the tool's typed parts, ``concatenated`` appends them to the
query in search_docs, ``none`` (the default) leaves them out.

A JSON file may hold one query, a list of them, or an object with a ``cases`` list.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.eval.errors import GoldenFileError
from docs_mcp.eval.path_checks import input_file_problem
from docs_mcp.server.search.expansion import Expansions

PREAMBLE = "_preamble"
DEFAULT_CATEGORY = "uncategorized"
# A query no section of the corpus answers: it has no relevant entry and should return zero hits.
OFF_TOPIC = "off-topic"

_QUERY_KEYS = {
    "id", "name", "query", "relevant", "expectedChunkId", "expected_chunk_id", "expectedChunkIds",
    "expected_chunk_ids", "filters", "facets", "category", "style", "limit", "maxRounds",
    "max_rounds_allowed", "max_rounds", "notes", "note", "comment", "expansions",
}  # fmt: skip
_EXPANSION_KEYS = ("keywords", "question", "hypothetical_answer")
_ENTRY_KEYS = {"chunk_id", "filepath", "heading", "heading_path", "grade", "note", "notes", "comment"}
_LIST_KEYS = ("cases", "queries", "test_cases")
_PATH_HINT = "Pass a golden query file: JSON lines (.jsonl, one query object per line) or a .json list of queries."
_ENCODING_HINT = "Save the golden file as UTF-8 JSON or JSON lines."


class _MalformedError(Exception):
    """A problem inside one query object; the loader adds file and line."""


@dataclass(frozen=True)
class RelevantEntry:
    """One relevant entry: a chunk ID (a whole file if it has no ``#``) or a section by heading."""

    grade: float = 1.0
    chunk_id: str | None = None
    filepath: str | None = None
    heading: str | None = None  # None with filepath: the whole file; PREAMBLE: before the first heading
    heading_path: tuple[str, ...] = ()

    def describe(self) -> str:
        """A short human label, for error messages and reports."""
        if self.chunk_id is not None:
            return self.chunk_id
        if self.heading is None:
            return f"{self.filepath} (whole file)"
        return f"{self.filepath} § {self.heading}"


@dataclass(frozen=True)
class GoldenQuery:
    """One golden query with its graded relevant entries and how to ask it."""

    qid: str
    query: str
    relevant: tuple[RelevantEntry, ...]
    filters: Mapping[str, str] = field(default_factory=dict)
    category: str = DEFAULT_CATEGORY
    limit: int | None = None  # page size per search_docs call (reference cases)
    max_rounds: int | None = None  # pages to fetch at most (reference cases)
    where: str = ""  # "line 7" (JSONL) or "item 3" (JSON list): for messages
    expansions: Expansions | None = None  # what an agent adds to the query (search_docs_expanded)

    @property
    def off_topic(self) -> bool:
        """True for a query that nothing answers (style ``off-topic``): success is zero hits."""
        return self.category == OFF_TOPIC


def load_golden(path: Path | str) -> tuple[GoldenQuery, ...]:
    """Read and validate every query of a golden file.

    Raises:
        GoldenFileError: the file is missing, is not JSON/JSONL, holds no query, a query is
            malformed (the message names its line), or two queries share an id.
    """
    path = Path(path)
    text = _read_golden_text(path)
    queries = tuple(
        _parse_item(str(path), item, where, n) for n, (where, item) in enumerate(_items(str(path), text), 1)
    )
    if not queries:
        raise GoldenFileError(str(path), "holds no golden query")
    _check_unique_ids(str(path), queries)
    return queries


def _read_golden_text(path: Path) -> str:
    """The file's text; a UTF-8 byte order mark is dropped (editors on Windows write one)."""
    problem = input_file_problem(path, "golden JSONL file")
    if problem:
        raise GoldenFileError(str(path), problem, hint=_PATH_HINT)
    try:
        return path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise GoldenFileError(str(path), f"cannot be read ({error.strerror or error})", hint=_PATH_HINT) from None
    except UnicodeDecodeError as error:
        raise GoldenFileError(
            str(path), f"is not UTF-8 text (byte {error.start} cannot be decoded)", hint=_ENCODING_HINT
        ) from None


def _items(path: str, text: str) -> list[tuple[str, Any]]:
    """(location, object) pairs from a JSON document or from JSON lines."""
    if path.endswith((".jsonl", ".ndjson")):
        return _json_lines(path, text)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        if path.endswith(".json"):
            raise GoldenFileError(path, f"invalid JSON: {error.msg}", f"line {error.lineno}") from None
        return _json_lines(path, text)
    if isinstance(document, dict):
        for key in _LIST_KEYS:
            if isinstance(document.get(key), list):
                document = document[key]
                break
        else:
            return [("item 1", document)]
    if not isinstance(document, list):
        raise GoldenFileError(path, "expected a JSON object, a list of objects, or JSON lines")
    return [(f"item {n}", item) for n, item in enumerate(document, 1)]


def _json_lines(path: str, text: str) -> list[tuple[str, Any]]:
    items = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append((f"line {number}", json.loads(line)))
        except json.JSONDecodeError as error:
            raise GoldenFileError(path, f"invalid JSON: {error.msg} (column {error.colno})", f"line {number}") from None
    return items


def _parse_item(path: str, item: Any, where: str, n: int) -> GoldenQuery:
    try:
        return _parse_query(item, where, n)
    except _MalformedError as bad:
        raise GoldenFileError(path, str(bad), where) from None


def _parse_query(item: Any, where: str, n: int) -> GoldenQuery:
    if not isinstance(item, dict):
        raise _MalformedError(f"expected a JSON object, got {type(item).__name__}")
    unknown = sorted(set(item) - _QUERY_KEYS)
    if unknown:
        raise _MalformedError(f"unknown key(s) {', '.join(unknown)}; accepted: {', '.join(sorted(_QUERY_KEYS))}")
    query = item.get("query")
    if not isinstance(query, str) or not query.strip():
        raise _MalformedError("`query` must be a non-empty string")
    category = _text(item, ("category", "style")) or DEFAULT_CATEGORY
    return GoldenQuery(
        qid=_text(item, ("id", "name")) or f"q{n:03d}",
        query=query,
        relevant=_relevance(item, off_topic=category == OFF_TOPIC),
        filters=_filters(item),
        category=category,
        limit=_int(item, ("limit",), 1, 50),
        max_rounds=_int(item, ("maxRounds", "max_rounds_allowed", "max_rounds"), 1, 100),
        where=where,
        expansions=_expansions(item.get("expansions")),
    )


def _expansions(raw: Any) -> Expansions | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _MalformedError("`expansions` must be an object with keywords, question and/or hypothetical_answer")
    unknown = sorted(set(raw) - set(_EXPANSION_KEYS))
    if unknown:
        raise _MalformedError(
            f"`expansions`: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(_EXPANSION_KEYS)}"
        )
    if not all(isinstance(raw.get(key, ""), str) for key in _EXPANSION_KEYS):
        raise _MalformedError("`expansions`: keywords, question and hypothetical_answer must be strings")
    expansions = Expansions(**{key: raw.get(key, "") for key in _EXPANSION_KEYS})
    if not expansions:
        raise _MalformedError(
            "`expansions` holds no text: drop it or fill in keywords, question or hypothetical_answer"
        )
    return expansions


def _one_of(item: dict, keys: tuple[str, ...]) -> tuple[str, Any] | None:
    present = [k for k in keys if k in item]
    if len(present) > 1:
        raise _MalformedError(f"give only one of {', '.join(present)}")
    return (present[0], item[present[0]]) if present else None


def _text(item: dict, keys: tuple[str, ...]) -> str | None:
    found = _one_of(item, keys)
    if found is None or found[1] is None:
        return None
    if not isinstance(found[1], str):
        raise _MalformedError(f"`{found[0]}` must be a string")
    return found[1]


def _int(item: dict, keys: tuple[str, ...], low: int, high: int) -> int | None:
    found = _one_of(item, keys)
    if found is None or found[1] is None:
        return None
    key, value = found
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _MalformedError(f"`{key}` must be an integer from {low} to {high}, got {value!r}")
    return value


def _filters(item: dict) -> dict[str, str]:
    found = _one_of(item, ("filters", "facets"))
    if found is None or found[1] is None:
        return {}
    key, value = found
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise _MalformedError(f"`{key}` must be an object of taxonomy key -> string value")
    return dict(value)


def _relevance(item: dict, *, off_topic: bool) -> tuple[RelevantEntry, ...]:
    entries: list[RelevantEntry] = []
    relevant = item.get("relevant", [])
    if not isinstance(relevant, list):
        raise _MalformedError("`relevant` must be a list")
    entries.extend(_entry(raw, i) for i, raw in enumerate(relevant, 1))
    # The reference server's expected chunks are its best answers: grade 2.
    single = _one_of(item, ("expectedChunkId", "expected_chunk_id"))
    if single is not None:
        entries.append(_expected(single[1], single[0]))
    several = _one_of(item, ("expectedChunkIds", "expected_chunk_ids"))
    if several is not None:
        if not isinstance(several[1], list):
            raise _MalformedError(f"`{several[0]}` must be a list of chunk IDs")
        entries.extend(_expected(raw, f"{several[0]}[{i}]") for i, raw in enumerate(several[1], 1))
    if off_topic and entries:
        raise _MalformedError(f"an {OFF_TOPIC} query has no relevant entry: drop `relevant` or change its style")
    if not entries and not off_topic:
        raise _MalformedError(f"no relevant entry: give `relevant` or `expectedChunkId` (or style {OFF_TOPIC!r})")
    return tuple(entries)


def _expected(raw: Any, where: str) -> RelevantEntry:
    if not isinstance(raw, str):
        raise _MalformedError(f"`{where}` must be a chunk ID string")
    return RelevantEntry(grade=2.0, chunk_id=_nonblank(raw, f"`{where}`"))


def _entry(raw: Any, number: int) -> RelevantEntry:
    label = f"relevant entry {number}"
    if isinstance(raw, str):
        return RelevantEntry(chunk_id=_nonblank(raw, label))
    if not isinstance(raw, dict):
        raise _MalformedError(f"{label} must be a chunk ID string or an object")
    unknown = sorted(set(raw) - _ENTRY_KEYS)
    if unknown:
        raise _MalformedError(
            f"{label}: unknown key(s) {', '.join(unknown)}; accepted: {', '.join(sorted(_ENTRY_KEYS))}"
        )
    if ("chunk_id" in raw) == ("filepath" in raw):
        raise _MalformedError(f"{label}: give either `chunk_id` or `filepath` (+ `heading`)")
    if "chunk_id" in raw:
        return RelevantEntry(grade=_grade(raw, label), chunk_id=_nonblank(raw["chunk_id"], f"{label} chunk_id"))
    heading = raw.get("heading")
    if heading is not None and not isinstance(heading, str):
        raise _MalformedError(f"{label}: `heading` must be a string or null")
    path = raw.get("heading_path") or []
    if not isinstance(path, list) or not all(isinstance(h, str) for h in path):
        raise _MalformedError(f"{label}: `heading_path` must be a list of strings")
    return RelevantEntry(
        grade=_grade(raw, label),
        filepath=_nonblank(raw["filepath"], f"{label} filepath"),
        heading=heading,
        heading_path=tuple(path),
    )


def _grade(raw: dict, label: str) -> float:
    """The entry's `grade`: required (the golden file format has no default), a finite number above 0."""
    if "grade" not in raw:
        raise _MalformedError(f"{label}: no `grade`; give 2 for the best answer, 1 for a partly relevant one")
    grade = _number(raw["grade"])
    if grade is None or not math.isfinite(grade) or not grade > 0:
        raise _MalformedError(
            f"{label}: `grade` must be a finite number above 0 (2 best, 1 partly relevant), got {raw['grade']!r:.40}"
        )
    return grade


def _number(value: Any) -> float | None:
    """``value`` as a float (an integer too large for one is infinite); None if it is not a JSON number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _nonblank(value: Any, label: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _MalformedError(f"{label} must be a non-empty string")
    return value.strip()


def _check_unique_ids(path: str, queries: tuple[GoldenQuery, ...]) -> None:
    seen: dict[str, str] = {}
    for query in queries:
        if query.qid in seen:
            raise GoldenFileError(
                path, f"id {query.qid!r} is also used at {seen[query.qid]}; ids must be unique", query.where
            )
        seen[query.qid] = query.where
