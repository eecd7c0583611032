"""Search providers for tool_discovery: the local engine (default) and an optional remote service.

``LocalProvider`` ranks the catalog's index generation with the engine of ``search_docs``.
``RemoteProvider`` sends the available tools and the query to ``POST {search_url}/catalog/search``
(the remote search service's API, corpus/guide/gateway.md#a-remote-search-service) within one deadline (connecting, headers and body together: a
service that trickles its answer is cut off too), on a fetch pool of its own; ``FallbackProvider``
answers with the local engine whenever the remote one fails in any way (network, status,
deadline, an answer too large or malformed).
Both only ever see, and only ever return, the tools the caller may use.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import orjson

from docs_mcp.indexer.sources.web.fetch_pool import FetchPool
from docs_mcp.indexer.sources.web.safety import host_of
from docs_mcp.server.gateway.catalog_index import CatalogIndex
from docs_mcp.server.gateway.explain import explain
from docs_mcp.server.gateway.records import ToolEntry
from docs_mcp.server.gateway.tooldocs import ToolDoc
from docs_mcp.server.search.modes import Mode

logger = logging.getLogger(__name__)

SEARCH_PATH = "/catalog/search"
MAX_ANSWER_BYTES = 4 * 1024 * 1024  # a ranking of at most 50 tools is a few KB


@dataclass(frozen=True)
class SearchRequest:
    """What tool_discovery asks: queries, optional context, the tools to choose from, how many."""

    queries: tuple[str, ...]
    context: str
    tools: tuple[ToolEntry, ...]  # the caller's available tools: collected, permitted
    max_results: int


@dataclass(frozen=True)
class Ranked:
    """One chosen tool with a 0-1 relevance and why it was chosen."""

    tool_key: str
    relevance: float
    explanation: str


@dataclass(frozen=True)
class Ranking:
    """A provider's answer, and which provider gave it (with the reason when it fell back)."""

    results: tuple[Ranked, ...]
    provider: str
    fallback_reason: str | None = None


class SearchProvider(Protocol):
    """Anything that ranks a request's tools for its queries."""

    def search(self, request: SearchRequest) -> Ranking: ...


class ToolSource(Protocol):
    """Every collected tool (the ToolCatalog), so that one index generation serves every project."""

    def tools(self) -> tuple[ToolEntry, ...]: ...


class LocalProvider:
    """The search engine over the catalog's index generation."""

    name = "local"

    def __init__(
        self, index: CatalogIndex, catalog: ToolSource, docs: Mapping[str, ToolDoc], mode: Mode = Mode.hybrid
    ) -> None:
        self.index = index
        self.catalog = catalog
        self.docs = docs
        self.mode = mode

    def search(self, request: SearchRequest, mode: Mode | None = None) -> Ranking:
        snapshot = self.index.snapshot(self.catalog.tools(), self.docs)
        allowed = {tool.key for tool in request.tools}
        if snapshot.engine is None or not allowed:
            return Ranking((), self.name)
        best: dict[str, Ranked] = {}
        # Enough hits that ``max_results`` permitted ones survive even if every forbidden tool ranks first.
        limit = request.max_results + len(snapshot.tools.keys() - allowed)
        mode = mode or self.mode
        calibrated = mode == Mode.hybrid and snapshot.engine.ranker is not None
        for query in request.queries:
            page = snapshot.engine.search(query, mode=_engine_mode(mode, calibrated), limit=limit, abstain=False)
            hits = [hit for hit in page.hits if hit.chunk_id in allowed]
            top = max((hit.score for hit in hits), default=0.0)
            for hit in hits:
                relevance = round(hit.score, 4) if calibrated else _relevance(hit.score, top, mode)
                if hit.chunk_id not in best or relevance > best[hit.chunk_id].relevance:
                    entry = snapshot.tools[hit.chunk_id]
                    best[hit.chunk_id] = Ranked(
                        hit.chunk_id, relevance, explain(query, entry, self.docs.get(entry.key), hit)
                    )
        ordered = sorted(best.values(), key=lambda r: (-r.relevance, r.tool_key))
        return Ranking(tuple(ordered[: request.max_results]), self.name)


def _engine_mode(mode: Mode, calibrated: bool) -> Mode:
    """The engine's mode for a gateway mode: hybrid with the tools' own learned parts (calibrated relevance, fitted on
    tool queries, never holding a query back), else the fusion."""
    return Mode.hybrid if mode == Mode.hybrid and calibrated else (Mode.fusion if mode == Mode.hybrid else mode)


def _relevance(score: float, top: float, mode: Mode) -> float:
    """0-1 without calibrated scores: the fusion is a convex sum of 0-1 signals already; BM25 is scaled by the best hit
    (so the first tool reads 1.0 whatever it is: only the calibrated relevance of hybrid mode is absolute)."""
    if mode in (Mode.hybrid, Mode.fusion, Mode.vector):
        return round(min(max(score, 0.0), 1.0), 4)
    return round(score / top, 4) if top > 0 else 0.0


class RemoteProvider:
    """The remote search service's API (corpus/guide/gateway.md#a-remote-search-service): ``POST /catalog/search`` with the tools and the query."""

    name = "remote"

    def __init__(self, base_url: str, timeout: float) -> None:
        self.url = base_url.rstrip("/") + SEARCH_PATH
        self.timeout = timeout
        self._pool = FetchPool(capacity=8, per_host=8, name="docs-mcp-tool-search")

    def search(self, request: SearchRequest) -> Ranking:
        """Ask the service.

        Raises:
            httpx.HTTPError, ValueError, TimeoutError: the call failed, took longer than the timeout, or the answer is malformed.
        """
        body = {
            "query": list(request.queries),
            "context": request.context,
            "tools": [
                {"toolKey": t.key, "toolName": t.name, "serverName": t.server, "description": t.description}
                for t in request.tools
            ],
            "maxResults": request.max_results,
        }
        answer = self._pool.call(self._post, body)
        return Ranking(_parse_results(answer, {t.key for t in request.tools}, request.max_results), self.name)

    def close(self) -> None:
        self._pool.close()

    async def _post(self, body: dict[str, Any]) -> Any:
        import httpx  # here, not at the top: a server without a remote search service never loads it

        try:
            with anyio.fail_after(self.timeout):
                async with (
                    self._pool.slot(host_of(self.url)),
                    httpx.AsyncClient(timeout=self.timeout, trust_env=False) as http,
                ):
                    async with http.stream("POST", self.url, json=body) as response:
                        response.raise_for_status()
                        data = bytearray()
                        async for chunk in response.aiter_bytes():
                            data += chunk
                            if len(data) > MAX_ANSWER_BYTES:
                                raise ValueError(f"the answer is larger than {MAX_ANSWER_BYTES} bytes")
        except TimeoutError:
            raise TimeoutError(f"no answer within {self.timeout:g} s") from None
        return orjson.loads(data)


def _parse_results(payload: Any, allowed: set[str], max_results: int) -> tuple[Ranked, ...]:
    """The service's results, keeping only tools we offered it (it must not widen what a caller sees).

    Raises:
        ValueError: the payload is not ``{results: [{toolKey, relevance, explanation?}]}``.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
        raise ValueError("expected {results: [...]}")
    ranked: dict[str, Ranked] = {}
    for item in payload["results"]:
        key, relevance = (item.get("toolKey"), item.get("relevance")) if isinstance(item, dict) else (None, None)
        if not isinstance(key, str) or isinstance(relevance, bool) or not isinstance(relevance, (int, float)):
            raise ValueError(f"malformed result {item!r}")
        explanation = (
            item.get("explanation")
            if isinstance(item.get("explanation"), str)
            else "chosen by the remote search service"
        )
        if key in allowed and key not in ranked:
            ranked[key] = Ranked(key, round(min(max(float(relevance), 0.0), 1.0), 4), explanation)
    return tuple(ranked.values())[:max_results]


class FallbackProvider:
    """The remote provider first; the local engine on any failure of it."""

    def __init__(self, remote: RemoteProvider, local: LocalProvider) -> None:
        self.remote = remote
        self.local = local

    def search(self, request: SearchRequest) -> Ranking:
        import httpx

        try:
            return self.remote.search(request)
        except (httpx.HTTPError, ValueError, TimeoutError) as error:
            reason = f"{error.__class__.__name__}: {error}"[:300]
            logger.warning("remote tool search failed (%s); answering with the local engine", reason)
            local = self.local.search(request)
            return Ranking(local.results, local.provider, fallback_reason=reason)

    def close(self) -> None:
        self.remote.close()


def select_provider(search_url: str, timeout: float, local: LocalProvider) -> SearchProvider:
    """The remote provider with local fallback when ``search_url`` is set, else the local engine."""
    return FallbackProvider(RemoteProvider(search_url, timeout), local) if search_url else local


def tool_keys(ranking: Ranking) -> Sequence[str]:
    """The ranked tool keys, best first (what eval scores)."""
    return [r.tool_key for r in ranking.results]
