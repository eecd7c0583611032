"""Search quality and speed: golden queries -> NDCG@5 and friends; benchmarks.

Names load on first use (PEP 562): importing ``docs_mcp.eval.commands`` for the
CLI must not pull in the MCP SDK, duckdb and numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = [
    "EvalResult",
    "GoldenQuery",
    "Judgment",
    "QueryResult",
    "QueryScores",
    "RelevantEntry",
    "evaluate",
    "hit_at_k",
    "load_golden",
    "mrr_at_k",
    "ndcg_at_k",
    "recall_at_k",
    "resolve_judgments",
]

_HOMES = {
    "EvalResult": "runner",
    "QueryResult": "runner",
    "evaluate": "runner",
    "GoldenQuery": "golden",
    "RelevantEntry": "golden",
    "load_golden": "golden",
    "resolve_judgments": "judgments",
    "Judgment": "metrics",
    "QueryScores": "metrics",
    "hit_at_k": "metrics",
    "mrr_at_k": "metrics",
    "ndcg_at_k": "metrics",
    "recall_at_k": "metrics",
}

if TYPE_CHECKING:
    from docs_mcp.eval.golden import GoldenQuery, RelevantEntry, load_golden
    from docs_mcp.eval.judgments import resolve_judgments
    from docs_mcp.eval.metrics import Judgment, QueryScores, hit_at_k, mrr_at_k, ndcg_at_k, recall_at_k
    from docs_mcp.eval.runner import EvalResult, QueryResult, evaluate


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
