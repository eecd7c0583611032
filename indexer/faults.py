"""Named fault points of a build, so tests can interrupt or kill it at an exact step (no timing, no sleeps).

``DOCS_MCP_TEST_FAULT=POINT:ACTION`` makes the build, on reaching ``POINT``, do
``ACTION``: ``sigint`` (Ctrl-C: the signal goes through the same masks as a real
one), ``sigkill`` (the process dies on the spot), ``sigstop`` (the process stops until
the test has done something, then continues it with SIGCONT), ``query-interrupted`` (what
DuckDB raises when Ctrl-C lands inside a query: ``RuntimeError('Query
interrupted')``), ``enospc`` (the disk is full: ``OSError(ENOSPC)``) or
``short-write`` (numpy's full disk: ``OSError('8192 requested and 0 written')``).
Unset, as outside tests, a fault point does nothing. (tests/indexer/test_disk_full.py
fills a real disk where the machine allows; these points cover the steps on any machine.)

Points: ``load`` (a DuckDB extension is about to be loaded into a connection),
``fts`` (before the full-text index is built), ``staging`` (a bulk-load file is
about to be written), ``arrays`` (a serving array is about to be saved),
``replace`` (a temporary file of the swap is written, not yet renamed over its target),
``summary`` (`docs-mcp index` has built the index and is about to print its summary),
``publish-copy`` (`docs-mcp publish` has copied one file of a generation to shared storage) and
``publish-staged`` (`docs-mcp publish` has staged its generation and is about to wait for the flip).
"""

from __future__ import annotations

import errno
import os
import signal

from docs_mcp.environment import variable

FAULT_ENV = "DOCS_MCP_TEST_FAULT"


def fault_point(name: str) -> None:
    """Do what ``$DOCS_MCP_TEST_FAULT`` asks if it names this point."""
    point, _, action = variable(FAULT_ENV).partition(":")
    if point != name:
        return
    if action == "sigint":
        os.kill(os.getpid(), signal.SIGINT)
    elif action == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "sigstop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif action == "query-interrupted":
        raise RuntimeError("Query interrupted")
    elif action == "enospc":
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    elif action == "short-write":
        raise OSError("8192 requested and 0 written")
