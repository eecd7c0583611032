"""Run golden queries through the MCP tools and score them.

Queries go through an MCP client session: in-process against ``build_server`` (the very
tool handlers an agent reaches), or with ``via_mcp`` against ``docs-mcp serve`` spawned
over stdio.  Each query pages through ``search_docs`` until it has ``k`` hits, then
fetches the first relevant hit (or the top hit) with ``get_doc``, as an agent would.
A query's expansions (golden.py), with ``expansions`` "typed", go to ``search_docs_expanded``
as its typed parts; with "concatenated", they are appended to the query in ``search_docs``.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import orjson
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from docs_mcp.environment import environment
from docs_mcp.eval.bootstrap import Interval, bootstrap_mean
from docs_mcp.eval.errors import EvalRunError
from docs_mcp.eval.golden import GoldenQuery, load_golden
from docs_mcp.eval.judgments import IndexedChunk, resolve_judgments
from docs_mcp.eval.metrics import Judgment, QueryScores, mean_scores, percentile, score_query
from docs_mcp.indexer.duckdb_store import open_store
from docs_mcp.indexer.models.query_graph import FLOAT32, query_precision
from docs_mcp.server.app import ServerSettings, build_server
from docs_mcp.server.search.modes import MODES, Mode
from docs_mcp.server.tools.search_docs_expanded import NAME as SEARCH_DOCS_EXPANDED

# How golden expansions are sent: not at all, as search_docs_expanded's typed parts, or appended to the query.
EXPANSION_USES = ("none", "typed", "concatenated")
SEARCH_TOOLS = ("search_docs", SEARCH_DOCS_EXPANDED)

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class QueryResult:
    """One golden query as run: what came back, its scores and timings."""

    query: GoldenQuery
    judgments: tuple[Judgment, ...]
    ranked: tuple[str, ...]
    scores: QueryScores
    search_ms: tuple[float, ...]
    get_doc_ms: float | None
    error: str | None = None  # isError text of search_docs or get_doc


@dataclass(frozen=True)
class EvalResult:
    """Every query of one golden file run in one mode against one index."""

    mode: str
    k: int
    index_dir: str
    generation: str
    transport: str  # "in-process" or "stdio"
    has_vectors: bool
    results: tuple[QueryResult, ...]
    expansions: str = "none"  # how the queries' expansions were sent (EXPANSION_USES)
    query_precision: str = FLOAT32  # how the default model embedded the queries (DOCS_MCP_QUERY_PRECISION)

    @property
    def on_topic(self) -> tuple[QueryResult, ...]:
        """The queries that have relevant entries (every query but the off-topic ones)."""
        return tuple(r for r in self.results if not r.query.off_topic)

    @property
    def off_topic(self) -> tuple[QueryResult, ...]:
        """The off-topic queries: each should come back with zero hits."""
        return tuple(r for r in self.results if r.query.off_topic)

    def overall(self) -> QueryScores:
        """Mean metrics over the on-topic queries."""
        return mean_scores([r.scores for r in self.on_topic])

    def by_category(self) -> dict[str, tuple[int, QueryScores]]:
        """Query count and mean metrics per category of on-topic queries, categories sorted by name."""
        groups: dict[str, list[QueryScores]] = {}
        for result in self.on_topic:
            groups.setdefault(result.query.category, []).append(result.scores)
        return {name: (len(groups[name]), mean_scores(groups[name])) for name in sorted(groups)}

    def ndcg_interval(self, category: str | None = None) -> Interval:
        """Mean NDCG@k of the on-topic queries (of one category) with its seeded 95% bootstrap interval."""
        return bootstrap_mean([r.scores.ndcg for r in self.on_topic if category in (None, r.query.category)])

    def abstention(self) -> float | None:
        """Share of the off-topic queries that returned zero hits; None without off-topic queries."""
        off = self.off_topic
        return sum(1 for r in off if not r.ranked) / len(off) if off else None

    def latency(self) -> dict[str, float]:
        """search_docs p50/p95 and get_doc p50, in milliseconds."""
        search = [ms for r in self.results for ms in r.search_ms]
        get_doc = [r.get_doc_ms for r in self.results if r.get_doc_ms is not None]
        return {
            "search_p50": percentile(search, 50),
            "search_p95": percentile(search, 95),
            "get_doc_p50": percentile(get_doc, 50),
        }


def read_index_chunks(index_dir: Path) -> tuple[list[IndexedChunk], str, bool]:
    """The chunks golden entries resolve against, the index generation, and whether it has vectors.

    Raises:
        IndexNotFoundError, IndexFormatError: from the indexer.
    """
    store = open_store(index_dir)
    try:
        chunks = [
            IndexedChunk(row.chunk_id, row.filepath, row.heading_path, row.headings) for row in store.heading_paths()
        ]
        return chunks, store.generation, store.model is not None
    finally:
        store.close()


def evaluate(
    golden: Path | str | Sequence[GoldenQuery],
    index_dir: Path | str,
    *,
    k: int = 5,
    mode: Mode = Mode.hybrid,
    via_mcp: bool = False,
    progress: Progress | None = None,
    expansions: str = "none",
) -> EvalResult:
    """Run every golden query against the index at ``index_dir`` and score the top ``k``.

    ``expansions``: how the queries' expansions are sent (EXPANSION_USES); queries without are asked as they are.

    Raises:
        GoldenFileError, GoldenResolveError: the golden file is bad or does not fit the index.
        EvalRunError: an unknown mode, no queries, ``vector`` on an index without vectors, or every
            query failed.
        IndexNotFoundError, IndexFormatError: from the indexer.
        ModelLoadError: DOCS_MCP_QUERY_PRECISION holds no query precision.
    """
    precision = query_precision()  # read here too: a bad value stops the run before any query, with its own hint
    if mode not in MODES:
        raise EvalRunError(f"Unknown mode {mode!r}.", f"Use one of: {', '.join(MODES)}.")
    if expansions not in EXPANSION_USES:
        raise EvalRunError(f"Unknown use of expansions {expansions!r}.", f"Use one of: {', '.join(EXPANSION_USES)}.")
    queries = load_golden(golden) if isinstance(golden, (str, Path)) else tuple(golden)
    if not queries:
        raise EvalRunError("No golden queries to run.", "Pass a golden file with at least one query.")
    index_dir = Path(index_dir)
    chunks, generation, has_vectors = read_index_chunks(index_dir)
    if mode == Mode.vector and not has_vectors:
        raise EvalRunError(
            f"The index at {index_dir} has no vectors, so --mode vector cannot run.",
            "Rebuild it with embeddings: docs-mcp index DOCS_DIR --embeddings default.",
        )
    judgments = resolve_judgments(queries, chunks)
    results = anyio.run(_run_all, queries, judgments, index_dir, mode, k, via_mcp, progress, expansions)
    answered = [r for r in results if not r.query.off_topic]
    if answered and all(r.error and not r.ranked for r in answered):
        raise EvalRunError(
            f"Every query failed in mode {mode}; the first said: {results[0].error}",
            "Check the index and the golden filters.",
        )
    transport = "stdio" if via_mcp else "in-process"
    return EvalResult(
        mode, k, str(index_dir), generation, transport, has_vectors, tuple(results), expansions, precision
    )


async def _run_all(
    queries: Sequence[GoldenQuery],
    judgments: Sequence[tuple[Judgment, ...]],
    index_dir: Path,
    mode: str,
    k: int,
    via_mcp: bool,
    progress: Progress | None,
    expansions: str = "none",
) -> list[QueryResult]:
    async with _connect(index_dir, mode, via_mcp) as client:
        # One untimed search first: postings, vectors and the model load lazily on first use.
        await client.call_tool("search_docs", {"query": queries[0].query, "limit": 1})
        results = []
        for done, (query, judged) in enumerate(zip(queries, judgments), 1):
            results.append(await _ask(client, query, judged, k, expansions))
            if progress:
                progress(done, len(queries))
        return results


@asynccontextmanager
async def _connect(index_dir: Path, mode: str, via_mcp: bool) -> AsyncIterator[Client]:
    if not via_mcp:
        # "legacy": the initialize handshake and JSON-RPC framing over memory streams, as a stdio client sees it.
        async with Client(build_server(index_dir, ServerSettings(mode=Mode(mode))), mode="legacy") as client:
            yield client
        return
    command = [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index_dir), "--mode", mode]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(environment()))
    # The server's log goes to a file, so a failed start can be explained without cluttering the terminal.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                yield client
        except Exception as error:  # noqa: BLE001 - any failure to talk to the subprocess is reported alike
            errlog.seek(0)
            tail = errlog.read()[-2000:].strip()
            raise EvalRunError(
                f"`{' '.join(command[2:])}` failed over stdio: {error.__class__.__name__}: {error}"
                + (f"\nserver stderr:\n{tail}" if tail else ""),
                "Run the same `docs-mcp serve` command by hand to see why, or drop --via-mcp.",
            ) from None


async def _ask(
    client: Client, query: GoldenQuery, judgments: tuple[Judgment, ...], k: int, expansions: str = "none"
) -> QueryResult:
    page = query.limit or k
    max_rounds = query.max_rounds or math.ceil(k / page)
    ranked: list[str] = []
    search_ms: list[float] = []
    cursor: str | None = None
    tool, asked = _search_call(query, expansions)
    for _ in range(max_rounds):
        arguments: dict[str, Any] = {**asked, "limit": page, **query.filters}
        if cursor:
            arguments["cursor"] = cursor
        payload, elapsed, error = await _call(client, tool, arguments)
        search_ms.append(elapsed)
        if error:
            return _result(query, judgments, ranked, k, search_ms, None, f"{tool}: {error}")
        ranked.extend(h["chunk_id"] for h in payload["hits"] if h["chunk_id"] not in ranked)
        cursor = payload.get("next_cursor")
        if len(ranked) >= k or not cursor:
            break
    if not ranked or query.off_topic:
        return _result(query, judgments, ranked, k, search_ms, None, None)
    relevant = [cid for cid in ranked[:k] if any(cid in j.ids for j in judgments)]
    _, get_doc_ms, error = await _call(client, "get_doc", {"chunk_id": (relevant or ranked)[0]})
    return _result(query, judgments, ranked, k, search_ms, get_doc_ms, f"get_doc: {error}" if error else None)


def _search_call(query: GoldenQuery, expansions: str) -> tuple[str, dict[str, Any]]:
    """The search tool and its query arguments for ``query``, its expansions used as ``expansions`` says."""
    if query.expansions is None or expansions == "none":
        return "search_docs", {"query": query.query}
    if expansions == "concatenated":
        return "search_docs", {"query": query.expansions.concatenated(query.query)}
    parts = {name: text for name, text in asdict(query.expansions).items() if text}
    return SEARCH_DOCS_EXPANDED, {"query": query.query, **parts}


async def _call(client: Client, tool: str, arguments: Mapping[str, Any]) -> tuple[Any, float, str | None]:
    """(parsed search payload or None, elapsed ms, isError text or None) of one tool call."""
    start = time.perf_counter()
    result = await client.call_tool(tool, dict(arguments))
    elapsed = (time.perf_counter() - start) * 1000
    text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
    if result.is_error:
        return None, elapsed, text or "(no message)"
    return (orjson.loads(text) if tool in SEARCH_TOOLS else None), elapsed, None


def _result(
    query: GoldenQuery,
    judgments: tuple[Judgment, ...],
    ranked: list[str],
    k: int,
    search_ms: list[float],
    get_doc_ms: float | None,
    error: str | None,
) -> QueryResult:
    return QueryResult(
        query, judgments, tuple(ranked), score_query(ranked, judgments, k), tuple(search_ms), get_doc_ms, error
    )
