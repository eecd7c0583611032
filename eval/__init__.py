"""Search quality and speed: golden queries -> NDCG@5 and friends; benchmarks.

Names load on first use (PEP 562): importing ``docs_mcp.eval.commands`` for the
CLI must not pull in the MCP SDK, duckdb and numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.lazy import lazy_exports

# The one list of this package's public names, by home module; __all__ follows its order.
_EXPORTS = {
    "runner": ("EvalResult", "QueryResult", "evaluate"),
    "golden": ("GoldenQuery", "RelevantEntry", "load_golden"),
    "judgments": ("resolve_judgments",),
    "metrics": ("Judgment", "QueryScores", "hit_at_k", "mrr_at_k", "ndcg_at_k", "recall_at_k"),
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # the same names for type checkers (tests/test_public_api.py keeps the two in step)
    from docs_mcp.eval.golden import GoldenQuery, RelevantEntry, load_golden
    from docs_mcp.eval.judgments import resolve_judgments
    from docs_mcp.eval.metrics import Judgment, QueryScores, hit_at_k, mrr_at_k, ndcg_at_k, recall_at_k
    from docs_mcp.eval.runner import EvalResult, QueryResult, evaluate
