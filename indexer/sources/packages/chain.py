"""The richer sources a package's metadata points to, in the documented order (sources/packages/richer.py)."""

from __future__ import annotations

from docs_mcp.indexer.sources.github_api import GitHubSettings
from docs_mcp.indexer.sources.packages.repository_docs import RepositoryAtReleaseTag
from docs_mcp.indexer.sources.packages.richer import LlmsTxtAtDocsSite, RicherSource
from docs_mcp.indexer.sources.packages.site_crawl import DocsSiteCrawl


def default_chain(github: GitHubSettings, *, allow_loopback: bool = False) -> tuple[RicherSource, ...]:
    """An llms.txt at the documentation site, the repository's docs folder at the release tag, a crawl of the site.

    ``github``: the API and token the repository is read with (sources/github_api.py, DOCS_MCP_GITHUB_API, GITHUB_TOKEN).
    """
    return (
        LlmsTxtAtDocsSite(allow_loopback=allow_loopback),
        RepositoryAtReleaseTag(github, allow_loopback=allow_loopback),
        DocsSiteCrawl(allow_loopback=allow_loopback),
    )
