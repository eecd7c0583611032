"""Which URLs may be fetched: http(s) only, allowlisted hosts only, never a private address.

An address is checked twice: every address the resolver gives for the host before
connecting, and the address the connection actually reached (see fetch.py), so a name that
resolves to a public address for the check and a private one for the connection is still
refused. ``DOCS_MCP_ALLOW_PRIVATE_FETCH=1`` (tests, local development) allows loopback
addresses only; every other private, link-local and metadata address stays refused.

An IPv6 address can carry an IPv4 address inside it: IPv4-mapped and IPv4-compatible
addresses, 6to4 (2002::/16), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and Teredo (2001::/32,
the client address). Translated or tunnelled ones are refused whenever the IPv4 address they
carry is not public (loopback included, even in the test mode: they reach it through a relay).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from docs_mcp.environment import environment
from docs_mcp.indexer.sources.errors import SourceUnavailableError, UrlNotAllowedError

logger = logging.getLogger(__name__)

LOOPBACK_ENV = "DOCS_MCP_ALLOW_PRIVATE_FETCH"
SCHEMES = ("http", "https")
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_REDIRECTS = 5
# Not "private" to the ipaddress module, yet never documentation: carrier-grade NAT (Alibaba's
# metadata service lives there) and the cloud metadata addresses named explicitly.
_ALSO_FORBIDDEN = (
    ipaddress.ip_network("100.64.0.0/10"),
    ipaddress.ip_network("169.254.169.254/32"),
    ipaddress.ip_network("fd00:ec2::254/128"),
)
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_HINT = "Call get_library_info on the library first (its llms.txt domains become readable), or add the domain to DOCS_MCP_FETCH_ALLOW."
# Documentation on a private network is read from a copy on disk: the fetcher never reaches such an address.
PRIVATE_HINT = (
    "Only public documentation sites are fetched. For a site on a private network, mirror it (e.g. wget --mirror "
    "--no-parent URL) and index the folder: docs-mcp index FOLDER --library ORG/NAME."
)
_SHAPE_HINT = (
    "Pass a full http(s) URL (https://docs.example.com/page), or read an indexed page with path and library_id."
)

Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system resolver gives for ``host`` (an IP literal gives itself)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class FetchPolicy:
    """What one fetch may reach and how much it may take."""

    allowed_domains: frozenset[str] = field(default_factory=frozenset)  # host names, or "*.example.com"
    allow_loopback: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    timeout: float = DEFAULT_TIMEOUT
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    # Private networks an operator trusts for one kind of request (a registry mirror on 10.x): never metadata addresses.
    allowed_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    def allowing(self, hosts: Iterable[str]) -> FetchPolicy:
        """This policy with ``hosts`` added to the allowlist."""
        return replace(self, allowed_domains=self.allowed_domains | {h.lower() for h in hosts if h})


def loopback_allowed(environ: dict[str, str] | None = None) -> bool:
    """Whether the test mode that allows loopback fetches is on."""
    return (environ if environ is not None else environment()).get(LOOPBACK_ENV, "") == "1"


def warn_if_loopback_allowed(environ: dict[str, str] | None = None) -> None:
    """Log the one start-up warning of the test mode, so it is never on unnoticed."""
    if loopback_allowed(environ):
        logger.warning(
            "%s=1: remote sources may fetch from loopback addresses (test mode; never set it in production)",
            LOOPBACK_ENV,
        )


def host_of(url: str) -> str:
    """The lower-cased host of ``url`` ('' when it has none)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def origin_of(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of ``url``, the default port filled in: what credentials are bound to."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def private_channel(url: str) -> bool:
    """Whether a secret may travel to ``url``: over https, or over plain http to this machine (loopback never leaves it)."""
    scheme, host, _ = origin_of(url)
    if scheme == "https":
        return True
    try:
        return scheme == "http" and (host == "localhost" or ipaddress.ip_address(host).is_loopback)
    except ValueError:
        return False


def check_url(url: str, policy: FetchPolicy) -> tuple[str, int]:
    """(host, port) of ``url`` if its shape and host may be fetched.

    Raises:
        UrlNotAllowedError: not http(s), credentials in the URL, no host, or a host off the allowlist.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise UrlNotAllowedError(f"'{url}' is not a valid URL ({error}).", _SHAPE_HINT) from error
    if parts.scheme not in SCHEMES:
        raise UrlNotAllowedError(
            f"Only http and https URLs can be read, not '{parts.scheme or 'no scheme'}:'.", _SHAPE_HINT
        )
    if parts.username or parts.password:
        raise UrlNotAllowedError("URLs with credentials are refused.", "Pass the URL without user:password@.")
    host = (parts.hostname or "").lower()
    if not host:
        raise UrlNotAllowedError(f"'{url}' names no host.", _SHAPE_HINT)
    if not host_allowed(host, policy.allowed_domains):
        raise UrlNotAllowedError(f"The domain '{host}' is not on the allowlist of documentation sources.", _HINT)
    return host, port


def host_allowed(host: str, domains: Iterable[str]) -> bool:
    """Whether ``host`` is one of ``domains`` or under a ``*.domain`` entry."""
    for domain in domains:
        if host == domain or (domain.startswith("*.") and host.endswith(domain[1:])):
            return True
    return False


def check_address(address: str, policy: FetchPolicy, host: str) -> None:
    """Refuse a private, loopback (unless allowed), link-local, reserved or metadata address, or an IPv6
    address that carries a non-public IPv4 address (6to4, NAT64, Teredo, IPv4-compatible).

    Raises:
        UrlNotAllowedError: the address is one of those.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError as error:
        raise UrlNotAllowedError(f"'{host}' resolves to '{address}', which is not an IP address.", _HINT) from error
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if any(ip in network for network in policy.allowed_networks if network.version == ip.version) and not _metadata(ip):
        return  # a network the operator allowed (a private registry), never a metadata address
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        carried, kind = embedded
        if _forbidden(carried):
            raise UrlNotAllowedError(
                f"'{host}' resolves to {ip}, which carries the IPv4 address {carried} ({kind}); a private, loopback, "
                "link-local or metadata address is never fetched.",
                PRIVATE_HINT,
            )
        if kind != "IPv4-compatible":
            return  # e.g. a public site reached through DNS64/NAT64 on an IPv6-only network
    if ip.is_loopback:
        if policy.allow_loopback:
            return
        raise UrlNotAllowedError(
            f"'{host}' resolves to {ip}, a loopback address; it is fetched only in the test mode {LOOPBACK_ENV}=1.",
            f"To test against a site on this machine, set {LOOPBACK_ENV}=1 in the environment of the docs-mcp command or "
            "server that fetches it (local testing only, never in production); public documentation sites need no setting.",
        )
    if _forbidden(ip):
        raise UrlNotAllowedError(
            f"'{host}' resolves to {ip}, a private, link-local, reserved or metadata address; it is never fetched.",
            PRIVATE_HINT,
        )


def _embedded_ipv4(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, str] | None:
    """The IPv4 address a translated or tunnelled IPv6 address carries, and the scheme's name (None for others)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.sixtofour is not None:
        return ip.sixtofour, "6to4"
    if ip.teredo is not None:
        return ip.teredo[1], "Teredo"
    low32 = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if any(ip in network for network in _NAT64):
        return low32, "NAT64"
    if ip in _IPV4_COMPATIBLE and int(ip) > 1:  # :: and ::1 are themselves, not IPv4-compatible
        return low32, "IPv4-compatible"
    return None


def check_resolved(host: str, addresses: list[str], policy: FetchPolicy) -> None:
    """Check every address ``host`` resolved to, before connecting.

    Raises:
        UrlNotAllowedError: one of them is refused.
        SourceUnavailableError: the name resolved to nothing.
    """
    if not addresses:
        raise SourceUnavailableError(
            f"'{host}' cannot be resolved to an address.", "Check the host name, or try again later."
        )
    for address in addresses:
        check_address(address, policy, host)


def _metadata(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return any(ip in network for network in _ALSO_FORBIDDEN[1:] if network.version == ip.version)


def _forbidden(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    flags = (ip.is_private, ip.is_loopback, ip.is_link_local, ip.is_multicast, ip.is_reserved, ip.is_unspecified)
    return any(flags) or any(ip in network for network in _ALSO_FORBIDDEN if network.version == ip.version)
