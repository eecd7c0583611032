"""Errors of the eval and bench commands (see docs_mcp.errors for the whole tree).

EvalError
├── GoldenFileError      a golden file is missing, unreadable or malformed (names file and line)
├── GoldenResolveError   golden entries name chunks, files or headings the index does not hold
├── BaselineError        a --baseline file is not a JSON report written by `docs-mcp eval --json`
├── EvalRunError         the server could not run the queries (no vectors for --mode vector, ...)
├── TrainingSetError     the --set golden files of train-ranking hold too few queries to train on
├── OutputPathError      an output path (--json, --report, --out, --work-dir) cannot be written
└── QualityGateError     NDCG fell below --min-ndcg (or is not a number)
"""

from __future__ import annotations

import math
from pathlib import Path

from docs_mcp.errors import DocsMcpError

GOLDEN_FORMAT_HINT = (
    "Fix the golden file: each query needs a non-empty `query` and at least one relevant entry "
    "(`relevant: [{chunk_id, grade}]`, `{filepath, heading, grade}` or `expectedChunkId`)."
)


class EvalError(DocsMcpError):
    """Base of every eval and bench error."""


class GoldenFileError(EvalError):
    """A golden file cannot be read, or one of its queries is malformed (``where``: "line 7", "item 3")."""

    def __init__(self, path: str, message: str, where: str = "", hint: str = GOLDEN_FORMAT_HINT) -> None:
        super().__init__(f"{path}, {where}: {message}" if where else f"{path}: {message}", hint)
        self.path = path
        self.where = where


class GoldenResolveError(EvalError):
    """Relevant entries that match nothing in the index (stale golden file, or the wrong index)."""

    def __init__(self, problems: list[str]) -> None:
        shown = "\n  ".join(problems[:12])
        more = f"\n  ... and {len(problems) - 12} more" if len(problems) > 12 else ""
        super().__init__(
            f"{len(problems)} relevant entr{'y matches' if len(problems) == 1 else 'ies match'} nothing in the index:\n  {shown}{more}",
            "Check that --index was built from the corpus the golden file describes, "
            "and update the golden file if headings or files were renamed.",
        )
        self.problems = tuple(problems)


class BaselineError(EvalError):
    """A --baseline file that cannot be compared against."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"Baseline {path}: {reason}.",
            "Pass a file written by an earlier `docs-mcp eval ... --json FILE`.",
        )


class EvalRunError(EvalError):
    """The server could not run the golden queries as asked."""


class TrainingSetError(EvalError):
    """The golden files given to train-ranking hold fewer queries of a kind than training needs."""


class OutputPathError(EvalError):
    """An output path that cannot be written; found before the work starts, not after it."""

    exit_code = 2

    def __init__(self, option: str, path: Path, problem: str, hint: str) -> None:
        super().__init__(f"{option} {path}: {problem}.", hint)
        self.path = path


class QualityGateError(EvalError):
    """NDCG is below the --min-ndcg threshold (the CI gate), or is not a number, which passes no threshold."""

    def __init__(self, ndcg: float, minimum: float, k: int) -> None:
        if math.isnan(ndcg):
            message = f"NDCG@{k} is not a number (nan), so it cannot pass --min-ndcg {minimum:.4f}."
            hint = "Look in the golden file for a relevant entry whose grade is not a finite number above 0."
        else:
            message = f"NDCG@{k} {ndcg:.4f} is below --min-ndcg {minimum:.4f}."
            hint = "A ranking or chunking change lost quality: look at the per-query list (--report FILE.html) for the queries that dropped."
        super().__init__(message, hint)
        self.ndcg = ndcg
        self.minimum = minimum
