"""What the site crawler reads of a page besides its text: the links it follows, the canonical URL, robots meta.

Every URL the crawler meets is put in one normal form (``normal_url``) before anything looks at it,
and the scope check, robots.txt, the crawl store's deduplication, the fetch and the page's file name
all use that form only: scheme and host lower-cased, the default port and the fragment dropped, an
empty path made ``/``; in the path, backslashes read as slashes, and so do encoded ones (``%2F``,
``%5C``: many servers decode them), runs of slashes collapse to one, escaped unreserved characters
are decoded (``%2e`` is a dot), then dot segments are resolved (``/docs/../private/`` is
``/private/``), so the URL that is checked is the URL the server serves. The query is kept (some
sites page with it) but for common tracking parameters. A crawl covers one scope: the start URL's
scheme, host and port, and the folder of its path (``https://docs.python.org/3/library/`` for
``.../3/library/index.html``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit

from bs4 import BeautifulSoup

from docs_mcp.indexer.corpus.markdown import clean_heading
from docs_mcp.indexer.sources.web.paths import bounded_name

_TRACKING = ("utm_", "fbclid", "gclid", "mc_")
_UNSAFE_PATH = re.compile(r"[\x00-\x1f\x7f#?\\%*]")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = "/!$&'()*+,;=:@%" + "".join(sorted(_UNRESERVED))
_SLASH_ESCAPES = re.compile(r"%(2f|5c)", re.IGNORECASE)
_SLASH_RUNS = re.compile(r"/{2,}")
_HTML_SUFFIXES = (".html", ".htm")
_NOT_PAGES = (
    ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".webp", ".css", ".js", ".json", ".xml", ".zip", ".gz", ".tgz", ".bz2",
    ".xz", ".pdf", ".epub", ".whl", ".tar", ".mp4", ".mp3", ".woff", ".woff2", ".ttf", ".eot", ".txt",
)  # fmt: skip


@dataclass(frozen=True)
class PageLinks:
    """What a page says about its neighbours and itself."""

    links: tuple[str, ...]  # normal-form URLs, in page order, each once
    canonical: str  # the page's canonical URL in normal form ('' when it names none)
    noindex: bool  # <meta name="robots" content="noindex">: not indexed (its links are still followed)
    nofollow: bool  # <meta name="robots" content="nofollow">: its links are not followed


def normal_url(url: str, base: str = "") -> str:
    """``url`` (relative to ``base``) in normal form, or ``""`` when it is no http(s) URL."""
    try:
        parts = urlsplit(urljoin(base, url.strip()) if base else url.strip())
        port = parts.port
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return ""
    scheme = parts.scheme.lower()
    host = parts.hostname.lower()
    default = {"http": 80, "https": 443}[scheme]
    netloc = host if port in (None, default) else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        netloc = f"[{host}]" if port in (None, default) else f"[{host}]:{port}"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not k.lower().startswith(_TRACKING)]
    )
    return urlunsplit((scheme, netloc, normal_path(parts.path), query, ""))


def normal_path(path: str) -> str:
    """A URL path as the server resolves it: one spelling for one resource, no dot segment left.

    ``/docs\\..%2fprivate//%2E%2e/x`` -> ``/x``. Characters a URL may not hold are escaped
    (as the HTTP client would send them), escapes of unreserved characters decoded, the others
    upper-cased.
    """
    path = _SLASH_ESCAPES.sub("/", path.replace("\\", "/"))
    path = quote(_ESCAPE.sub(_unescape_unreserved, path), safe=_PATH_SAFE)
    path = _ESCAPE.sub(lambda match: "%" + match.group(1).upper(), _lone_percents(path))
    segments: list[str] = []
    for segment in _SLASH_RUNS.sub("/", "/" + path).split("/")[1:]:
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in (".", ""):
            segments.append(segment)
    last = path.rsplit("/", 1)[-1]
    folder = last in ("", ".", "..")
    return "/" + "/".join(segments) + ("/" if folder and segments else "")


def _unescape_unreserved(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else match.group(0)


def _lone_percents(path: str) -> str:
    """``%`` not opening an escape, escaped itself (``100%`` -> ``100%25``)."""
    return re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", path)


def scope_of(start: str) -> str:
    """The URL prefix a crawl from ``start`` stays under: its folder (``.../library/index.html`` -> ``.../library/``)."""
    url = normal_url(start)
    parts = urlsplit(url)
    folder = parts.path if parts.path.endswith("/") else parts.path.rsplit("/", 1)[0] + "/"
    return urlunsplit((parts.scheme, parts.netloc, folder, "", ""))


def in_scope(url: str, scope: str) -> bool:
    """Whether the normal-form ``url`` lies under ``scope`` and looks like a page (not an image, archive...)."""
    path = urlsplit(url).path.lower()
    return url.startswith(scope) and not path.endswith(_NOT_PAGES)


def page_links(html: str, url: str) -> PageLinks:
    """The links, canonical URL and robots directives of the HTML page fetched from ``url``."""
    soup = BeautifulSoup(html, "html.parser")
    base_tag = soup.find("base", href=True)
    base = urljoin(url, str(base_tag["href"])) if base_tag else url
    robots = " ".join(
        str(tag.get("content", ""))
        for tag in soup.find_all(
            "meta", attrs={"name": lambda n: n is not None and n.lower() in ("robots", "docs-mcp")}
        )
    )
    links: dict[str, None] = {}
    for anchor in soup.find_all("a", href=True):
        rel = {value.lower() for value in anchor.get("rel") or ()}
        target = normal_url(str(anchor["href"]), base)
        if target and "nofollow" not in rel:
            links.setdefault(target, None)
    canonical_tag = soup.find(
        "link",
        rel=lambda value: value and "canonical" in [v.lower() for v in (value if isinstance(value, list) else [value])],
        href=True,
    )
    canonical = normal_url(str(canonical_tag["href"]), base) if canonical_tag else ""
    return PageLinks(tuple(links), canonical, "noindex" in robots.lower(), "nofollow" in robots.lower())


def page_path(url: str, scope: str) -> str:
    """The document path of the in-scope page ``url``: its path below the scope, an HTML file name
    (``guide/`` -> ``guide/index.html``, ``guide/install`` -> ``guide/install.html``), the query folded in."""
    parts = urlsplit(url)
    relative = unquote(parts.path[len(urlsplit(scope).path) :])
    if not relative or relative.endswith("/"):
        relative += "index.html"
    if parts.query:
        stem, dot, suffix = (
            relative.rpartition(".") if relative.lower().endswith(_HTML_SUFFIXES) else (relative, "", "")
        )
        relative = f"{stem}__{parts.query}{dot}{suffix}"
    if not relative.lower().endswith(_HTML_SUFFIXES):
        relative += ".html"
    segments = [
        bounded_name(_UNSAFE_PATH.sub("_", segment))
        for segment in relative.split("/")
        if segment not in ("", ".", "..")
    ]
    return "/".join(segments) or "index.html"


def section_names(html: str, url: str, scope: str) -> tuple[tuple[str, str], ...]:
    """TOC sections from a site's start page: each folder its navigation links into, named as the link reads.

    ``(("tutorial/**", "The Python Tutorial"), ("library/**", "The Python Standard Library"))``: the first link
    into each top folder of the scope names it; folders no link names keep their folder name (toc.section_of).
    """
    soup = BeautifulSoup(html, "html.parser")
    names: dict[str, str] = {}
    for anchor in soup.find_all("a", href=True):
        target = normal_url(str(anchor["href"]), url)
        text = clean_heading(
            " ".join(anchor.get_text(" ").split())
        )  # a page title as the link shows it, "{ #id }" and all
        if not target.startswith(scope) or not text:
            continue
        folder, slash, _ = urlsplit(target).path[len(urlsplit(scope).path) :].partition("/")
        if slash and folder and folder not in names:
            names[folder] = text
    return tuple((f"{folder}/**", name) for folder, name in names.items())
