"""Tool-discovery quality: golden queries over the gateway's tool catalog, scored like search_docs.

The golden file names tools by key (``{"chunk_id": "github:create_issue", "grade": 2}``): each
tool is one chunk of the catalog's index generation. Queries run through the gateway's local
provider (the ranking of ``tool_discovery``) against the live upstreams of a config file, in one
mode at a time, so hybrid and BM25 are compared on the very same catalog.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from docs_mcp.eval.errors import EvalRunError, GoldenResolveError
from docs_mcp.eval.golden import GoldenQuery
from docs_mcp.eval.metrics import Judgment, score_query
from docs_mcp.eval.path_checks import input_file_problem
from docs_mcp.eval.runner import EvalResult, QueryResult
from docs_mcp.server.gateway import Gateway, GatewayConfig
from docs_mcp.server.gateway.discovery import SearchRequest, tool_keys
from docs_mcp.server.gateway.records import LOCAL_CALLER
from docs_mcp.server.search.modes import MODES, Mode
from docs_mcp.server.tools.tool_discovery import MAX_RESULTS

Progress = Callable[[int, int], None]


def tool_judgments(queries: Sequence[GoldenQuery], known: set[str]) -> list[tuple[Judgment, ...]]:
    """Each query's judgments, one tool key each.

    Raises:
        GoldenResolveError: an entry names a tool the catalog does not have (or is not a tool key).
    """
    problems: list[str] = []
    judged = []
    for query in queries:
        entries = []
        for entry in query.relevant:
            if entry.chunk_id is None or entry.chunk_id not in known:
                problems.append(f"{query.qid}: {entry.describe()} is not a tool of the catalog")
                continue
            entries.append(Judgment(frozenset({entry.chunk_id}), entry.grade))
        judged.append(tuple(entries))
    if problems:
        raise GoldenResolveError(problems)
    return judged


def evaluate_gateway(
    queries: Sequence[GoldenQuery],
    gateway: Gateway,
    *,
    k: int = 5,
    mode: Mode = Mode.hybrid,
    progress: Progress | None = None,
) -> EvalResult:
    """Run every golden query through tool discovery's ranking in ``mode`` and score the top ``k``.

    Raises:
        EvalRunError: an unknown mode, no queries, or no tool at all (every upstream failed).
        GoldenResolveError: the golden file names tools the catalog does not have.
    """
    if mode not in MODES:
        raise EvalRunError(f"Unknown mode {mode!r}.", f"Use one of: {', '.join(MODES)}.")
    if not queries:
        raise EvalRunError("No golden queries to run.", "Pass a golden file with at least one query.")
    available = gateway.available(LOCAL_CALLER)
    if not available:
        problems = "; ".join(f"{name}: {why}" for name, why in gateway.catalog.current().problems.items())
        raise EvalRunError(
            f"The gateway found no tools ({problems or 'no upstream enabled'}).",
            "Check the [[upstream]] entries with `docs-mcp upstream list` and their logs.",
        )
    judgments = tool_judgments(queries, {tool.key for tool in available})
    snapshot = gateway.index.snapshot(gateway.catalog.tools(), gateway.docs)
    gateway.local.search(SearchRequest((queries[0].query,), "", available, 1), mode)  # untimed: loads the model
    results = []
    for done, (query, judged) in enumerate(zip(queries, judgments), 1):
        started = time.perf_counter()
        ranking = gateway.local.search(SearchRequest((query.query,), "", available, max(k, MAX_RESULTS)), mode)
        elapsed = (time.perf_counter() - started) * 1000
        ranked = tuple(tool_keys(ranking))
        results.append(QueryResult(query, judged, ranked, score_query(ranked, judged, k), (elapsed,), None))
        if progress:
            progress(done, len(queries))
    has_vectors = snapshot.engine is not None and snapshot.engine.has_vectors
    return EvalResult(
        mode, k, str(gateway.config.base_dir), snapshot.generation, "gateway", has_vectors, tuple(results)
    )


def gateway_for_eval(config_file: Path) -> Gateway:
    """A gateway over the upstreams of ``config_file`` (the caller closes it).

    Raises:
        GatewayConfigError: the file's gateway sections are invalid.
        EvalRunError: the file does not exist, or configures no enabled upstream.
    """
    return Gateway(upstreams_config(config_file, "--gateway"))


def upstreams_config(config_file: Path, option: str) -> GatewayConfig:
    """The gateway configuration of ``config_file`` (given as ``option``), which must exist and enable an upstream.

    Raises:
        GatewayConfigError: the file's gateway sections are invalid.
        EvalRunError: the file does not exist, is a folder, or configures no enabled upstream.
    """
    from docs_mcp.server.gateway import load_gateway_config

    problem = input_file_problem(config_file, "config file")
    if problem:
        raise EvalRunError(
            f"{option} {config_file}: {problem}.",
            "Pass the config file (TOML, e.g. docs-mcp.toml) that lists the [[upstream]] servers.",
        )
    config = load_gateway_config(config_file)
    if not config.enabled:
        raise EvalRunError(
            f"{config_file} configures no enabled upstream server.",
            f"Add one with `docs-mcp upstream add NAME -- COMMAND` or pass another {option} file.",
        )
    return config
