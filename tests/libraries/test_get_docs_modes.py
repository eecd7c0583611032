"""get_docs follows the server's ranking mode: in bm25 mode it never loads the query model."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_corpora import ACME

from docs_mcp.indexer.sources.service import SourceService
from docs_mcp.indexer.sources.source_settings import source_settings
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.libraries.remote import Sources
from docs_mcp.server.tools.get_docs import parse as parse_docs_args
from docs_mcp.server.tools.get_docs import run as get_docs

TOPIC = {"libraries": [ACME], "topic": "deploy command health check"}


@pytest.mark.parametrize("mode, loads_model", [("bm25", False), ("hybrid", True)])
def test_get_docs_loads_the_model_only_for_a_mode_that_uses_vectors(
    libraries_index: Path, mode: str, loads_model: bool
) -> None:
    live = LiveIndex(libraries_index, warm=None)
    try:
        with live.lease() as served:
            sources = Sources(SourceService(source_settings(libraries_index)), live)
            answer = get_docs(served, parse_docs_args(TOPIC), mode, sources)
            assert (served.engine._embedder is not None) == loads_model
    finally:
        live.close()
    assert answer["content"] and 0 < answer["confidence"] <= 1
