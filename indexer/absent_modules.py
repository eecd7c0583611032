"""Optional modules that DuckDB's Python client looks for on every bound value, marked absent when not installed.

Before it converts a query parameter, DuckDB checks whether the value is one of pandas' types
by importing pandas; its import cache does not remember a failed import, so without pandas
every value of every query (each id of a list, too) scans the whole ``sys.path`` again:
about 20 failed imports per search_docs call (measured: a lookup of 10 chunk ids 1.17 ms ->
0.43 ms once pandas is marked absent).  A ``None`` in ``sys.modules`` is Python's documented
way to make an import fail at once.  A module that is installed is left alone.
"""

from __future__ import annotations

import importlib.util
import sys

LOOKED_FOR = ("pandas",)


def mark_absent(names: tuple[str, ...] = LOOKED_FOR) -> None:
    """Make ``import NAME`` fail at once for each of ``names`` that is not installed (one search of the path each)."""
    for name in names:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = None  # type: ignore[assignment]
