"""What every embedding model loader shares: the provider its names come from, the one boundary where
the model runtimes' errors become ours, and the package versions a model's identity records.

loading.py (the default model) and named.py (fastembed's others) both use it, so neither
imports the other at module level.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docs_mcp.environment import default_variable
from docs_mcp.indexer.errors import ModelLoadError

# The catalogue model names come from: the default model is fastembed's
# sentence-transformers/all-MiniLM-L6-v2 (same weights, same vectors), whichever runtime runs it.
PROVIDER = "fastembed"


def onnxruntime_without_telemetry() -> Any:
    """The onnxruntime module, imported with its telemetry off (a user's own ORT_DISABLE_TELEMETRY wins).

    ONNX Runtime 1.32 records usage events on Linux too: at load it writes a device id and a queue of
    events (the executable's path, the OS, the network type) to $XDG_CACHE_HOME/Microsoft/DeveloperTools,
    to send to Microsoft. ``disable_telemetry_events()`` comes too late for those; the variable, read
    when the library loads, stops them. Every import of onnxruntime (fastembed's too) goes through here.
    """
    default_variable("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    return onnxruntime


@contextmanager
def translated(what: str, *, network: bool = False) -> Iterator[None]:
    """Turn whatever onnxruntime, tokenizers, fastembed or the hub client raise into one-line ModelLoadErrors."""
    try:
        yield
    except ModelLoadError:
        raise
    # onnxruntime's errors derive from Exception directly, the hub's from OSError or
    # ValueError: this is the one place where those libraries' errors end.
    except Exception as error:
        hint = (
            "Models other than the default are downloaded by fastembed on first use: check the network, "
            "or drop --model to use the default model."
            if network
            # The default model's files were verified by sha256 before it loaded: the runtime is at fault.
            else "Reinstall the model runtime: pip install --force-reinstall onnxruntime tokenizers"
        )
        # Hub and onnxruntime messages can run to many lines: the first one says what happened.
        detail = (str(error).strip().splitlines() or [""])[0]
        raise ModelLoadError(f"{what}: {type(error).__name__}" + (f": {detail}" if detail else ""), hint) from error


def package_version(distribution: str) -> str:
    """The installed version of ``distribution`` (recorded in a model's identity)."""
    from importlib.metadata import version

    return version(distribution)
