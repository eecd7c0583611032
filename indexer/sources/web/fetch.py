"""HTTP GET with the safety checks, limits, retries and conditional requests every remote read goes through.

Each hop of a redirect is checked like the first URL; the address each connection
reached is checked before a byte of the body is read. A failure that may pass (network
error, 5xx, 429) is retried after each delay of ``delays`` (1 s then 3 s by default; tests
inject zeros), then reported as SOURCE_UNAVAILABLE.

One deadline (``FetchPolicy.timeout``) bounds a whole ``get``: waiting for a slot of the
fetch pool, resolving, connecting, the response headers, the body, every redirect, retry
and delay between retries. A retry whose delay would end past the deadline is not made.
The fetch runs as a task on the fetch pool (fetch_pool.py), cancelled at the deadline
wherever it stands, so a site that sends its headers a byte at a time is cut off too.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urljoin

import anyio
import httpx

from docs_mcp import __version__
from docs_mcp.indexer.sources.errors import (
    InvalidContentError,
    RedirectRefusedError,
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
    UrlNotAllowedError,
)
from docs_mcp.indexer.sources.web.fetch_pool import FetchPool
from docs_mcp.indexer.sources.web.safety import (
    FetchPolicy,
    Resolver,
    check_address,
    check_resolved,
    check_url,
    host_of,
    origin_of,
    system_resolver,
)  # fmt: skip
from docs_mcp.redact import redact

logger = logging.getLogger(__name__)

DEFAULT_DELAYS = (1.0, 3.0)
USER_AGENT = f"docs-mcp/{__version__} (+documentation fetcher)"
NOT_MODIFIED = 304
_GONE = (404, 410)
_RETRY_LATER = 429
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})
_SLOW_HINT = "The site is slow or down; try again later (cached pages are still served)."


@dataclass(frozen=True)
class Fetched:
    """One answered GET: ``status`` 200 with a body, or 304 (the cached copy is still good)."""

    url: str  # after redirects
    status: int
    body: bytes
    content_type: str
    etag: str
    last_modified: str

    @property
    def not_modified(self) -> bool:
        return self.status == NOT_MODIFIED


class _Transient(Exception):
    """A failure worth another attempt."""


class Fetcher:
    """Safe GETs on a fetch pool: one httpx client (no proxies from the environment: they would hide the address reached).

    ``sleep`` waits between retries (default: the pool's event loop sleeps); tests inject a recorder.
    Without a ``pool``, the fetcher makes its own and closes it with itself.
    """

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        resolver: Resolver = system_resolver,
        delays: tuple[float, ...] = DEFAULT_DELAYS,
        sleep: Callable[[float], None] | None = None,
        pool: FetchPool | None = None,
    ) -> None:
        self.policy = policy
        self._resolver = resolver
        self._delays = delays
        self._sleep = sleep
        self._own_pool = pool is None
        self.pool = pool or FetchPool()
        self._client: httpx.AsyncClient | None = None  # made on the pool's event loop, which it belongs to
        # The system's certificate store (and OpenSSL's SSL_CERT_FILE/SSL_CERT_DIR), not certifi's: a company's own
        # CA, which its proxies and registry mirrors use, is trusted where the operating system trusts it. Loaded
        # here, not inside the first fetch's deadline (reading the store takes a while on a busy machine).
        self._tls = ssl.create_default_context()

    def close(self) -> None:
        if self._client is not None:
            try:
                self.pool.call(self._client.aclose)
            except RuntimeError:
                pass  # the pool was closed first: its loop took the connections with it
            self._client = None
        if self._own_pool:
            self.pool.close()

    def get(
        self, url: str, *, etag: str = "", last_modified: str = "", headers: Mapping[str, str] | None = None, policy: FetchPolicy | None = None,
        redirect: Callable[[str], str] | None = None,
    ) -> Fetched:  # fmt: skip
        """GET ``url`` (conditionally when ``etag``/``last_modified`` are given) within the policy's deadline, retrying transient failures.

        ``redirect``, when given, sees each redirect's target before it is requested: it returns the URL to request
        (the site crawler's normal form) or raises UrlNotAllowedError (robots.txt disallows it).

        Raises:
            UrlNotAllowedError: the URL, a redirect or an address reached is refused.
            RemotePageNotFoundError: the source answered 404 or 410.
            InvalidContentError: the body exceeds the size limit.
            SourceUnavailableError: the deadline passed, the retries failed, or the source refused the request.
        """
        sent = dict(headers or {})
        if etag:
            sent["If-None-Match"] = etag
        if last_modified:
            sent["If-Modified-Since"] = last_modified
        policy = policy or self.policy
        check_url(url, policy)  # a refused URL is refused at once, without a slot of the pool
        return self.pool.call(self._get, url, sent, policy, redirect)

    async def _get(
        self, url: str, headers: Mapping[str, str], policy: FetchPolicy, redirect: Callable[[str], str] | None
    ) -> Fetched:
        deadline = anyio.current_time() + policy.timeout
        attempts, last, host = 0, "", host_of(url)
        try:
            with anyio.fail_after(policy.timeout):
                async with self.pool.slot(host):
                    for delay in (0.0, *self._delays):
                        if delay:
                            if anyio.current_time() + delay >= deadline:
                                break  # the retry would start past the deadline
                            await self._wait(delay)
                        attempts += 1
                        try:
                            return await self._follow(url, headers, policy, redirect)
                        except _Transient as failure:
                            last = str(failure)
                            logger.info("fetch %s failed (attempt %d): %s", redact(url), attempts, redact(last))
        except TimeoutError:
            if not attempts:
                raise SourceUnavailableError(
                    f"{url} was not fetched: the {self.pool.per_host} fetch slots for '{host}' stayed busy for {policy.timeout:g} s "
                    "(other reads of this slow site).",
                    _SLOW_HINT,
                ) from None
            tried = f"; {last} before" if last else ""
            raise SourceUnavailableError(
                f"{url} did not answer within {policy.timeout:g} s (connecting, headers and body together, "
                f"{_attempts(attempts)}{tried}).",
                _SLOW_HINT,
            ) from None
        raise SourceUnavailableError(
            f"{url} could not be fetched after {_attempts(attempts)}: {last}.",
            "The source seems down; try again later (cached pages are still served).",
        )

    async def _wait(self, seconds: float) -> None:
        if self._sleep is None:
            await anyio.sleep(seconds)
        else:
            self._sleep(seconds)

    async def _follow(
        self, url: str, headers: Mapping[str, str], policy: FetchPolicy, redirect: Callable[[str], str] | None
    ) -> Fetched:
        first_origin = origin_of(url)
        for hop in range(policy.max_redirects + 1):
            try:
                if hop and redirect is not None:
                    url = redirect(url)
                host, port = check_url(url, policy)
                addresses = await anyio.to_thread.run_sync(self._resolver, host, port, abandon_on_cancel=True)
                check_resolved(host, addresses, policy)
                # Credentials are for the origin they were given for (scheme, host and port: not http for https, not
                # another port), never for where it redirects; once dropped, they stay dropped.
                if origin_of(url) != first_origin:
                    headers = {name: value for name, value in headers.items() if name.lower() not in _CREDENTIALS}
                fetched, location = await self._once(url, host, headers, policy)
            except UrlNotAllowedError as refused:
                if not hop:
                    raise
                raise RedirectRefusedError(refused.message, refused.hint, target=url) from None
            if fetched is not None:
                return fetched
            url = urljoin(url, location)
        raise SourceUnavailableError(
            f"{url}: more than {policy.max_redirects} redirects.", "Check the URL; the site redirects in a loop."
        )

    async def _once(
        self, url: str, host: str, headers: Mapping[str, str], policy: FetchPolicy
    ) -> tuple[Fetched | None, str]:
        try:
            async with self._http(policy).stream("GET", url, headers=dict(headers)) as response:
                _check_peer(response, policy, host)
                if response.has_redirect_location:
                    return None, response.headers.get("location", "")
                _check_status(response, url)
                body = b"" if response.status_code == NOT_MODIFIED else await _read(response, url, policy)
        except httpx.TransportError as error:
            raise _Transient(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__) from error
        return (
            Fetched(
                url=str(response.url),
                status=response.status_code,
                body=body,
                content_type=response.headers.get("content-type", ""),
                etag=response.headers.get("etag", ""),
                last_modified=response.headers.get("last-modified", ""),
            ),
            "",
        )

    def _http(self, policy: FetchPolicy) -> httpx.AsyncClient:
        if self._client is None:
            # The per-operation timeouts are only a backstop: the deadline around the whole get is what bounds it.
            timeout = httpx.Timeout(policy.timeout, connect=min(policy.timeout, 5.0))
            limits = httpx.Limits(max_connections=self.pool.capacity, max_keepalive_connections=self.pool.capacity)
            self._client = httpx.AsyncClient(
                timeout=timeout,
                limits=limits,
                follow_redirects=False,
                trust_env=False,
                verify=self._tls,
                headers={"User-Agent": USER_AGENT},
            )
        return self._client


def _attempts(count: int) -> str:
    return f"{count} attempt" + ("" if count == 1 else "s")


def _check_peer(response: httpx.Response, policy: FetchPolicy, host: str) -> None:
    """Refuse a connection that reached a forbidden address (DNS may answer differently the second time)."""
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if not peer:
        raise UrlNotAllowedError(
            f"Cannot tell which address '{host}' connected to; refused.", "Report this: the HTTP stack changed."
        )
    check_address(str(peer[0]), policy, host)


def _check_status(response: httpx.Response, url: str) -> None:
    status = response.status_code
    if status in _GONE:
        raise RemotePageNotFoundError(
            f"{url} answered {status}: the page does not exist.",
            "Check the URL, or refresh the table of contents with get_library_info.",
        )
    if status >= 500 or status == _RETRY_LATER:
        raise _Transient(f"HTTP {status}")
    if status >= 400:
        raise SourceUnavailableError(
            f"{url} answered {status}.", "The source refuses the request; check the URL or its access rules."
        )


async def _read(response: httpx.Response, url: str, policy: FetchPolicy) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise _too_large(url, policy)
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > policy.max_bytes:
            raise _too_large(url, policy)
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, policy: FetchPolicy) -> SourceError:
    return InvalidContentError(
        f"{url} is larger than {policy.max_bytes} bytes; documentation pages are smaller.",
        "Read another page of the table of contents.",
    )
