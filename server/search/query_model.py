"""The query model of a server process: loaded once, and as early as start-up allows.

A server's first vector search waits for the model (an onnxruntime session, the model files'
checks: 0.4-1 s).  `docs-mcp serve` starts that load in a thread before it imports the MCP SDK
(~0.6 s of imports, nothing the model needs), so on two cores the two overlap; an engine asking
for the model meanwhile waits for the load in flight instead of starting a second one.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from docs_mcp.indexer.records import ModelIdentity

if TYPE_CHECKING:
    from docs_mcp.indexer.models.loading import Embedder

logger = logging.getLogger(__name__)

# One thread per query: the search's other work runs beside it on the second core (query_vectors.py),
# and a pool of threads per operator waits for its slowest one whenever the machine is busy.
QUERY_THREADS = 1
# One load at a time: a second caller waits, then finds the model in the indexer's cache.
_loading = threading.Lock()


def query_model(identity: ModelIdentity) -> Embedder:
    """The model that embeds queries for an index built by ``identity`` (loaded once per process).

    Raises:
        ModelLoadError, ModelMismatchError: from the indexer, when the model cannot be loaded.
    """
    from docs_mcp.indexer import load_model

    with _loading:
        return load_model(identity, threads=QUERY_THREADS)


def prefetch_query_model(index_dir: Path) -> threading.Thread:
    """Start loading the query model of the index at ``index_dir`` in a thread, and return it.

    Failures are logged at debug level only: the first vector search loads again and reports them.
    The thread is not a daemon, so the interpreter waits for it before exiting.
    """

    def load() -> None:
        from docs_mcp.indexer import open_index

        try:
            with open_index(index_dir) as reader:
                identity = reader.model
            if identity is not None:
                query_model(identity)
        except Exception as error:  # noqa: BLE001 - a prefetch must never stop the server from starting
            logger.debug("prefetching the query model failed (the first search will retry): %s", error)

    thread = threading.Thread(target=load, name="docs-mcp-model-prefetch")
    thread.start()
    return thread
