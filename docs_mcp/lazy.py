"""Lazy public APIs (PEP 562): a package lists its exports once, by home module, and loads each on first use;
a third-party package's own imports can wait until a name of it is asked for (deferred_package_init).

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


def deferred_package_init(*packages: str) -> None:
    """Let ``packages``' submodules import without running the packages' own ``__init__`` until a name of theirs is
    asked for (``from mcp import Client``): that runs it then, once.

    For the MCP SDK (server/core/mcp_sdk.py): ``mcp/__init__.py`` imports its client and ``mcp/server/__init__.py`` its
    high-level server, neither of which a stdio server answering ``initialize`` and ``tools/call`` uses; for
    snowballstemmer (indexer/stemmer.py), whose ``__init__`` loads every language's stemmer. A package already
    imported, or not installed, is left as it is.
    """
    import sys
    import threading
    from importlib.util import find_spec, module_from_spec

    for package in packages:
        if package in sys.modules:
            continue
        spec = find_spec(package)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            continue
        module = module_from_spec(spec)  # __path__ set, the package's code not run
        module.__dict__["__getattr__"] = _completing(module, spec.loader, threading.Lock())
        sys.modules[package] = module


def _completing(module: Any, loader: Any, lock: Any) -> Callable[[str], Any]:
    """The placeholder package's ``__getattr__``: runs the package's ``__init__`` on first use, then asks again."""

    def __getattr__(name: str) -> Any:
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
                loader.exec_module(module)
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}") from None

    return __getattr__
