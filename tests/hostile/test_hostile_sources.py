"""SourceService against hostile pages: refusals that say what happened, and are not paid for twice."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_site import deep_html, whole

from docs_mcp.indexer.sources.errors import InvalidContentError
from docs_mcp.indexer.sources.service import SourceService
from docs_mcp.indexer.sources.source_settings import source_settings


def loopback_service(tmp_path: Path) -> SourceService:
    """A service that may read any page of 127.0.0.1, with no registered library."""
    env = {
        "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1",
        "DOCS_MCP_FETCH_ALLOW": "127.0.0.1",
        "DOCS_MCP_CURATED_LIBRARIES": "0",
        "DOCS_MCP_CUSTOM_LIBRARIES": str(tmp_path / "none.json"),
    }
    return SourceService(source_settings(tmp_path / "index", env), delays=(0.0, 0.0))


def test_deep_html_is_refused_with_what_it_is_and_the_refusal_is_remembered(hostile, tmp_path):
    url = hostile.route("/deep.html", whole(deep_html(330), "text/html; charset=utf-8"))
    svc = loopback_service(tmp_path)
    for _ in range(3):
        with pytest.raises(InvalidContentError, match="its HTML nests 333 levels deep") as refused:
            svc.read_url(url)
    assert "Read another page" in refused.value.hint and "remembered" in refused.value.hint
    assert hostile.hits("/deep.html") == 1  # fetched and parsed once, not on every retry
    svc.close()


@pytest.mark.parametrize("levels", [5_000, 50_000])
def test_html_deeper_than_the_recursion_limit_is_refused_not_crashed(hostile, tmp_path, levels):
    url = hostile.route("/abyss.html", whole(deep_html(levels), "text/html"))
    svc = loopback_service(tmp_path)
    with pytest.raises(InvalidContentError, match=f"its HTML nests {levels + 3} levels deep"):
        svc.read_url(url)
    svc.close()
