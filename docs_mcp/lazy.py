"""Lazy public APIs (PEP 562): a package lists its exports once, by home module, and loads each on first use.

The CLI imports every area's ``commands`` module on start, which imports the area's
package: loading the areas' names eagerly would pull in the MCP SDK, duckdb, numpy and
the model runtime (measured: about 7 s of imports on a loaded 2-core machine, against
0.3-0.7 s for `docs-mcp --help` today).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package`` from ``{home module: names}``.

    Home modules are relative to ``package`` (``"search.engine"``). Unknown names raise
    AttributeError as a normal module does.
    """
    homes = {name: module for module, names in exports.items() for name in names}
    if len(homes) != sum(len(names) for names in exports.values()):
        raise ValueError(f"{package} exports a name from two modules")

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{homes[name]}"), name)

    def __dir__() -> list[str]:
        return sorted(homes)

    return list(homes), __getattr__, __dir__
