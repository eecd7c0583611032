"""The registry of libraries the server knows without a local folder, merged at start.

Two files, same format (corpus/guide/remote-sources.md shows one): the curated list bundled with docs-mcp
(``curated.json``) and the user's ``custom-libraries.json`` (``~/.docs-mcp/``, or the
path in ``DOCS_MCP_CUSTOM_LIBRARIES``); a custom entry replaces a bundled one with the same ID.

    {"libraries": [{"id": "company/internal-sdk", "names": ["internal-sdk"], "displayName": "Internal SDK",
                    "description": "...", "languages": ["python"], "docsUrl": "https://...",
                    "llmsTxtUrl": "https://.../llms.txt", "ttlHours": 12},
                   {"id": "vercel/next.js", "source": "context7", "displayName": "Next.js"}],
     "allowedDomains": ["docs.company.com", "*.company.dev"]}

An entry with ``llmsTxtUrl`` is an llms.txt library (fetched, then indexed here and
served like a local one); ``"source": "context7"`` marks a remote library, answered by
the configured Context7-compatible API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from docs_mcp.environment import environment
from docs_mcp.indexer.errors import LibraryError
from docs_mcp.indexer.libraries.spec import check_library_id
from docs_mcp.indexer.sources.web.safety import host_of

CUSTOM_ENV = "DOCS_MCP_CUSTOM_LIBRARIES"
DEFAULT_CUSTOM = Path("~/.docs-mcp/custom-libraries.json")
LLMS_TXT = "llms-txt"
CONTEXT7 = "context7"
DEFAULT_TTL_HOURS = 24.0


@dataclass(frozen=True)
class RegisteredLibrary:
    """A library of the registry: an llms.txt source, or a remote (Context7) one."""

    library_id: str
    name: str
    kind: str  # LLMS_TXT or CONTEXT7
    llms_txt_url: str = ""
    docs_url: str = ""
    description: str = ""
    languages: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    ttl_hours: float = DEFAULT_TTL_HOURS

    @property
    def domains(self) -> set[str]:
        """The hosts this entry vouches for (its llms.txt and docs site)."""
        return {host for host in (host_of(self.llms_txt_url), host_of(self.docs_url)) if host}


@dataclass(frozen=True)
class Registry:
    """The merged registry: libraries by ID, and the extra domains it allows."""

    libraries: Mapping[str, RegisteredLibrary] = field(default_factory=dict)
    allowed_domains: frozenset[str] = field(default_factory=frozenset)
    problems: tuple[str, ...] = ()

    def domains(self) -> set[str]:
        """Every host the registry allows fetching from."""
        return set(self.allowed_domains).union(*(lib.domains for lib in self.libraries.values()))


def custom_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the user's custom-libraries.json is."""
    value = (environ if environ is not None else environment()).get(CUSTOM_ENV, "")
    return Path(value).expanduser() if value else DEFAULT_CUSTOM.expanduser()


def load_registry(custom: Path | None = None, *, bundled: bool = True) -> Registry:
    """The bundled list merged with ``custom`` (default: :func:`custom_path`); a missing custom file is no problem.

    A malformed file or entry is skipped and named in ``problems``: one typo must not stop the server.
    """
    layers: list[tuple[str, str]] = []
    if bundled:
        layers.append(
            (
                "curated.json (bundled)",
                files("docs_mcp.indexer.sources").joinpath("curated.json").read_text(encoding="utf-8"),
            )
        )
    path = custom or custom_path()
    if path.is_file():
        layers.append((str(path), path.read_text(encoding="utf-8")))
    libraries: dict[str, RegisteredLibrary] = {}
    domains: set[str] = set()
    problems: list[str] = []
    for name, text in layers:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(f"{name}: not JSON ({error}); ignored it.")
            continue
        if not isinstance(data, dict):
            problems.append(f"{name}: not an object with a 'libraries' list; ignored it.")
            continue
        for entry in data.get("libraries") or []:
            try:
                library = _library(entry)
            except (LibraryError, KeyError, TypeError, ValueError, AttributeError) as error:
                problems.append(
                    f"{name}: entry {entry.get('id') if isinstance(entry, dict) else entry!r} skipped: {error}"
                )
                continue
            libraries[library.library_id] = library
        domains.update(d.lower() for d in data.get("allowedDomains") or [] if isinstance(d, str))
    return Registry(dict(sorted(libraries.items())), frozenset(domains), tuple(problems))


def _library(entry: Mapping[str, Any]) -> RegisteredLibrary:
    library_id = check_library_id(str(entry["id"]).strip().strip("/"))
    kind = CONTEXT7 if entry.get("source") == CONTEXT7 else LLMS_TXT
    llms = str(entry.get("llmsTxtUrl") or "")
    if kind == LLMS_TXT and not llms.startswith(("http://", "https://")):
        raise ValueError("an llms.txt library needs an http(s) llmsTxtUrl")
    names = [str(n) for n in entry.get("names") or []]
    return RegisteredLibrary(
        library_id=library_id,
        name=str(entry.get("displayName") or library_id.split("/")[1]),
        kind=kind,
        llms_txt_url=llms,
        docs_url=str(entry.get("docsUrl") or ""),
        description=str(entry.get("description") or ""),
        languages=tuple(str(lang) for lang in entry.get("languages") or []),
        aliases=tuple(names),
        ttl_hours=float(entry.get("ttlHours") or DEFAULT_TTL_HOURS),
    )
