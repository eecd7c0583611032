"""The model's graph as ONNX Runtime optimises it, saved once per machine so later loads skip the optimisation.

Every load used to rewrite the graph (graph.py) and let ONNX Runtime optimise it: 0.46-0.52 s, and
a peak 47 MiB above what the loaded session keeps (214 vs 165 MiB in a process holding nothing else).
Loading the saved optimised graph with ONNX Runtime's optimisations off takes 0.23-0.29 s and peaks at
165-169 MiB, with the same vectors (tests/indexer/test_optimized_graph.py). The fully optimised graph may
use kernels of this CPU only, so its file is named by everything it depends on: the weights' digest, the
rewrite code, the ONNX Runtime version and the CPU's instruction-set flags. A file that does not load is
deleted and the graph optimised again; where the cache folder cannot be written, every load optimises in
memory as before. Files go to the cache folder (``$XDG_CACHE_HOME/docs-mcp/models``), written under a
temporary name and renamed, so concurrent first loads never read half a file.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
MODELS_DIR = "models"


class OptimizedGraph:
    """Where the optimised graph of one model lives on this machine, and how it is loaded or written."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_weights(
        cls, cache: Path, weights_digest: str, runtime_version: str, *, int8: bool = False
    ) -> OptimizedGraph:
        """The float32 graph, or with ``int8`` the query graph (query_graph.py), of the weights ``weights_digest``."""
        return cls(cache / MODELS_DIR / f"{graph_key(weights_digest, runtime_version, int8=int8)}.onnx")

    def load(self, onnxruntime: Any, options: Any) -> Any | None:
        """A session of the saved graph (``options`` with optimisations off), or None when there is none that loads."""
        if not self.path.is_file():
            return None
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return onnxruntime.InferenceSession(
                str(self.path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # noqa: BLE001 - a damaged or foreign file: optimise again and replace it
            logger.warning("the saved model graph %s does not load (%s); optimising the model again", self.path, error)
            self.path.unlink(missing_ok=True)
            return None

    def optimise_and_save(self, make_session: Callable[[str | None], Any]) -> Any:
        """``make_session(path)`` optimises the graph and writes it to ``path``; the file is kept if the session loads.

        Falls back to ``make_session(None)`` (nothing written) where the folder cannot be written.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            logger.debug("model graph not saved (%s): %s", self.path.parent, error)
            return make_session(None)
        temporary = self.path.with_name(f".{self.path.stem}.{os.getpid()}.tmp.onnx")
        try:
            session = make_session(str(temporary))
        except Exception as error:  # noqa: BLE001 - ONNX Runtime could not write the file: load without saving
            logger.debug("model graph not saved (%s): %s", temporary, error)
            temporary.unlink(missing_ok=True)
            return make_session(None)
        try:
            os.replace(temporary, self.path)
        except OSError as error:
            logger.debug("model graph not saved (%s): %s", self.path, error)
            temporary.unlink(missing_ok=True)
        return session


def graph_key(weights_digest: str, runtime_version: str, *, int8: bool = False) -> str:
    """A name for the optimised graph that changes with anything the graph depends on."""
    from docs_mcp.indexer.models import graph as model_graph
    from docs_mcp.indexer.models import query_graph

    parts = [weights_digest, runtime_version, _file_digest(Path(model_graph.__file__)), platform.machine(), cpu_flags()]
    if int8:  # the int8 query graph: another graph, made by one more module
        parts += ["int8 queries", _file_digest(Path(query_graph.__file__))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def cpu_flags() -> str:
    """The CPU's instruction-set flags (Linux: /proc/cpuinfo), else the processor's name."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(("flags", "Features")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
