"""HTTP GET with the safety checks, limits, retries and conditional requests every remote read goes through.

Each hop of a redirect is checked like the first URL; the address each connection
reached is checked before a byte of the body is read. A failure that may pass (network
error, timeout, 5xx, 429) is retried after each delay of ``delays`` (1 s then 3 s by
default; tests inject zeros), then reported as SOURCE_UNAVAILABLE.
"""

from __future__ import annotations

import logging
import ssl
import time
from dataclasses import dataclass
from typing import Callable, Mapping
from urllib.parse import urljoin

import httpx

from docs_mcp.redact import redact
from docs_mcp import __version__
from docs_mcp.indexer.sources.errors import (
    InvalidContentError,
    RemotePageNotFoundError,
    SourceError,
    SourceUnavailableError,
    UrlNotAllowedError,
)
from docs_mcp.indexer.sources.safety import FetchPolicy, Resolver, check_address, check_resolved, check_url, system_resolver

logger = logging.getLogger(__name__)

DEFAULT_DELAYS = (1.0, 3.0)
USER_AGENT = f"docs-mcp/{__version__} (+documentation fetcher)"
NOT_MODIFIED = 304
_GONE = (404, 410)
_RETRY_LATER = 429
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})


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
    """Safe GETs: one httpx client (no proxies from the environment: they would hide the address reached)."""

    def __init__(
        self,
        policy: FetchPolicy,
        *,
        resolver: Resolver = system_resolver,
        delays: tuple[float, ...] = DEFAULT_DELAYS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy
        self._resolver = resolver
        self._delays = delays
        self._sleep = sleep
        timeout = httpx.Timeout(policy.timeout, connect=min(policy.timeout, 5.0))
        # The system's certificate store (and OpenSSL's SSL_CERT_FILE/SSL_CERT_DIR), not certifi's: a company's own
        # CA, which its proxies and registry mirrors use, is trusted where the operating system trusts it.
        self._client = httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False, verify=ssl.create_default_context(),
                                    headers={"User-Agent": USER_AGENT})

    def close(self) -> None:
        self._client.close()

    def get(
        self, url: str, *, etag: str = "", last_modified: str = "", headers: Mapping[str, str] | None = None, policy: FetchPolicy | None = None
    ) -> Fetched:
        """GET ``url`` (conditionally when ``etag``/``last_modified`` are given), retrying transient failures.

        Raises:
            UrlNotAllowedError: the URL, a redirect or an address reached is refused.
            RemotePageNotFoundError: the source answered 404 or 410.
            InvalidContentError: the body exceeds the size limit.
            SourceUnavailableError: the retries failed, or the source refused the request.
        """
        sent = dict(headers or {})
        if etag:
            sent["If-None-Match"] = etag
        if last_modified:
            sent["If-Modified-Since"] = last_modified
        last = ""
        for attempt, delay in enumerate((0.0, *self._delays)):
            if delay:
                self._sleep(delay)
            try:
                return self._follow(url, sent, policy or self.policy)
            except _Transient as failure:
                last = str(failure)
                logger.info("fetch %s failed (attempt %d): %s", redact(url), attempt + 1, redact(str(last)))
        raise SourceUnavailableError(
            f"{url} could not be fetched after {len(self._delays) + 1} attempts: {last}.",
            "The source seems down; try again later (cached pages are still served).",
        )

    def _follow(self, url: str, headers: Mapping[str, str], policy: FetchPolicy) -> Fetched:
        first_host = ""
        for _hop in range(policy.max_redirects + 1):
            host, port = check_url(url, policy)
            check_resolved(host, port, policy, self._resolver)
            first_host = first_host or host
            if host != first_host:  # credentials are for the host they were given for, never for where it redirects
                headers = {name: value for name, value in headers.items() if name.lower() not in _CREDENTIALS}
            fetched, location = self._once(url, host, headers, policy)
            if fetched is not None:
                return fetched
            url = urljoin(url, location)
        raise SourceUnavailableError(f"{url}: more than {policy.max_redirects} redirects.", "Check the URL; the site redirects in a loop.")

    def _once(self, url: str, host: str, headers: Mapping[str, str], policy: FetchPolicy) -> tuple[Fetched | None, str]:
        started = time.monotonic()
        try:
            with self._client.stream("GET", url, headers=dict(headers)) as response:
                _check_peer(response, policy, host)
                if response.has_redirect_location:
                    return None, response.headers.get("location", "")
                _check_status(response, url)
                body = b"" if response.status_code == NOT_MODIFIED else _read(response, url, policy, started)
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


def _check_peer(response: httpx.Response, policy: FetchPolicy, host: str) -> None:
    """Refuse a connection that reached a forbidden address (DNS may answer differently the second time)."""
    stream = response.extensions.get("network_stream")
    peer = stream.get_extra_info("server_addr") if stream is not None else None
    if not peer:
        raise UrlNotAllowedError(f"Cannot tell which address '{host}' connected to; refused.", "Report this: the HTTP stack changed.")
    check_address(str(peer[0]), policy, host)


def _check_status(response: httpx.Response, url: str) -> None:
    status = response.status_code
    if status in _GONE:
        raise RemotePageNotFoundError(f"{url} answered {status}: the page does not exist.", "Check the URL, or refresh the table of contents with get_library_info.")
    if status >= 500 or status == _RETRY_LATER:
        raise _Transient(f"HTTP {status}")
    if status >= 400:
        raise SourceUnavailableError(f"{url} answered {status}.", "The source refuses the request; check the URL or its access rules.")


def _read(response: httpx.Response, url: str, policy: FetchPolicy, started: float) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > policy.max_bytes:
        raise _too_large(url, policy)
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > policy.max_bytes:
            raise _too_large(url, policy)
        if time.monotonic() - started > policy.timeout:
            raise _Transient(f"the download took longer than {policy.timeout:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, policy: FetchPolicy) -> SourceError:
    return InvalidContentError(f"{url} is larger than {policy.max_bytes} bytes; documentation pages are smaller.", "Read another page of the table of contents.")
