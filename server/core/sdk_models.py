"""The MCP SDK's pydantic models are built when first used, not when their modules load.

The SDK defines about 550 pydantic models (``mcp_types``: the protocol's own, then each protocol
version's wire models, 2025-11-25 and 2026-07-28), and pydantic builds every model's validator and
serializer as its class is defined: a fifth of a stdio server's start (corpus/guide/benchmarks.md),
for the twenty-odd models a session uses (``initialize``, ``tools/list``, ``tools/call``, ``ping``).
pydantic's ``defer_build`` setting postpones that work to a model's first validation or
serialization; the SDK does not set it, so this module sets it on every model the SDK's modules
define, from before the SDK's first import (server/__init__.py installs the watch). What a model
accepts and how it serializes are pydantic's own either way: only when its validator is built moves.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

_SDK_PACKAGES = ("mcp", "mcp_types")


def _is_sdk_module(module: object) -> bool:
    return isinstance(module, str) and module.partition(".")[0] in _SDK_PACKAGES


class _SdkImportWatch:
    """A meta-path finder that finds nothing: the first import of the SDK sets pydantic to defer its models.

    It stays in ``sys.meta_path`` once done (then it only returns None): removing a finder while the
    import system iterates over the list would skip the finder after it.
    """

    def __init__(self) -> None:
        self.done = False

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not self.done and name in _SDK_PACKAGES:
            self.done = True
            defer_sdk_model_builds()
        return None


def watch_sdk_imports() -> None:
    """Defer the SDK's model builds from its first import on (or now, if it is already imported)."""
    if any(isinstance(finder, _SdkImportWatch) for finder in sys.meta_path):
        return
    if any(package in sys.modules for package in _SDK_PACKAGES):
        defer_sdk_model_builds()  # the models defined so far are built already; later ones wait
        return
    sys.meta_path.insert(0, _SdkImportWatch())


def defer_sdk_model_builds() -> None:
    """Give every pydantic model the SDK defines from now on ``defer_build=True`` (unless it sets it itself).

    pydantic reads a new model's settings through ``ConfigWrapper.for_model``, an internal: if a later
    pydantic renames it, models are built as they are defined again (slower start, same answers).
    """
    try:
        from pydantic._internal._config import ConfigWrapper
    except ImportError:
        return
    for_model = ConfigWrapper.__dict__.get("for_model")
    if not isinstance(for_model, classmethod) or getattr(for_model.__func__, "defers_sdk_models", False):
        return
    settings_of = for_model.__func__

    def deferring_sdk_models(cls: type[ConfigWrapper], *args: Any, **kwargs: Any) -> ConfigWrapper:
        wrapper: ConfigWrapper = settings_of(cls, *args, **kwargs)
        # Read defensively: should pydantic change what it passes, models are built as defined, never refused.
        namespace = args[1] if len(args) > 1 else kwargs.get("namespace")
        config = getattr(wrapper, "config_dict", None)
        if isinstance(namespace, dict) and isinstance(config, dict) and _is_sdk_module(namespace.get("__module__")):
            config.setdefault("defer_build", True)
        return wrapper

    deferring_sdk_models.defers_sdk_models = True  # type: ignore[attr-defined]
    ConfigWrapper.for_model = classmethod(deferring_sdk_models)  # type: ignore[method-assign,assignment]
    _defer_sdk_type_adapters()


def _defer_sdk_type_adapters() -> None:
    """The same for the ``TypeAdapter``s the SDK's modules create as they load (``mcp_types``' message unions)."""
    from pydantic import TypeAdapter

    defer_build = TypeAdapter.__dict__.get("_defer_build")
    if not isinstance(defer_build, property) or defer_build.fget is None:
        return
    configured = defer_build.fget

    def deferring_sdk_adapters(adapter: TypeAdapter[Any]) -> bool:
        settings = getattr(adapter, "_config", None)
        explicit = isinstance(settings, dict) and "defer_build" in settings
        if not explicit and _is_sdk_module(getattr(adapter, "_module_name", None)):
            return True
        return bool(configured(adapter))

    TypeAdapter._defer_build = property(deferring_sdk_adapters)  # type: ignore[method-assign,assignment]
