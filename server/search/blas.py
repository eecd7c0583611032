"""One BLAS thread per search: concurrency comes from concurrent queries, not from one matrix product.

The vector signal is one matrix-vector product per query.  OpenBLAS splits it over every
core by default, which on a busy 2-core machine made a 10k x 384 product take 16 ms instead
of 1.1 ms on one thread, and four concurrent queries fight over the same cores.  OpenBLAS
reads its thread count once, when numpy is first imported, so the processes that search
(``docs-mcp serve``, ``docs-mcp search``, the benchmark's children) call this first.  The
concurrent queries then get one search worker per usable core (``usable_cores``).
"""

from __future__ import annotations

import os

from docs_mcp.environment import default_variable

BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"


def use_one_blas_thread() -> None:
    """Ask OpenBLAS for one thread, unless the user set a count (no effect once numpy is imported)."""
    default_variable(BLAS_THREADS_VARIABLE, "1")


def usable_cores() -> int:
    """The cores this process may run on: how many search workers a team server starts by default."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
