"""The gateway's part of the config file: ``[gateway]``, ``[[upstream]]`` and ``[tool_permissions.PROJECT]``.

Team mode reads the same file (``--config`` / $DOCS_MCP_CONFIG / ./docs-mcp.toml) and leaves
these sections to us (``GATEWAY_SECTIONS``). Every problem is reported at once, before
anything starts, like the rest of the configuration.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.server.gateway.errors import GatewayConfigError
from docs_mcp.server.gateway.permissions import ProjectRules
from docs_mcp.server.gateway.records import UpstreamSpec
from docs_mcp.server.search.modes import MODES, Mode

GATEWAY_SECTIONS = ("gateway", "upstream", "tool_permissions")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_UPSTREAM_KEYS = {"name", "command", "args", "env", "url", "enabled"}


DEFAULT_MAX_TOOLS = 1_000
DEFAULT_MAX_DESCRIPTION_CHARS = 4_000
DEFAULT_MAX_SCHEMA_BYTES = 65_536
DEFAULT_MAX_SCHEMA_DEPTH = 32
DEFAULT_MAX_RESULT_BYTES = 1_048_576


@dataclass(frozen=True)
class CatalogBounds:
    """What an upstream may hand the gateway (``[gateway]`` max_* keys): applied and stated by catalog_bounds.py."""

    max_tools: int = DEFAULT_MAX_TOOLS
    max_description_chars: int = DEFAULT_MAX_DESCRIPTION_CHARS
    max_schema_bytes: int = DEFAULT_MAX_SCHEMA_BYTES
    max_schema_depth: int = DEFAULT_MAX_SCHEMA_DEPTH
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES


@dataclass(frozen=True)
class GatewaySettings:
    """``[gateway]``: how often tool lists are refreshed, call limits, the search provider, audit."""

    list_ttl: float = 10.0  # seconds a collected tool list is reused
    call_timeout: float = 60.0  # seconds an upstream tools/call may take
    # seconds an upstream may take to answer tools/list: discovery waits for the slowest one
    list_timeout: float = 10.0
    start_timeout: float = 30.0  # seconds an upstream may take to start and initialize
    search_url: str = ""  # remote provider base URL (POST {search_url}/catalog/search); empty: local only
    search_timeout: float = 5.0
    mode: Mode = Mode.hybrid  # local ranking (server/search/modes.py)
    audit_arguments: bool = False  # log tool_execute arguments in the audit line
    max_argument_bytes: int = 65_536  # tool_execute arguments larger than this are refused (ARGS_TOO_LARGE)
    tool_docs: str = "tool-docs"  # folder of tool docs, relative to the config file
    # What an upstream may send (catalog_bounds.py, stdio_transport.py): each cut is stated where it happens.
    max_tools_per_upstream: int = DEFAULT_MAX_TOOLS
    max_description_chars: int = DEFAULT_MAX_DESCRIPTION_CHARS
    max_schema_bytes: int = DEFAULT_MAX_SCHEMA_BYTES
    max_schema_depth: int = DEFAULT_MAX_SCHEMA_DEPTH
    max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES
    max_message_bytes: int = 16 * 1024 * 1024  # one message from a stdio upstream; a longer one is dropped

    @property
    def bounds(self) -> CatalogBounds:
        return CatalogBounds(
            self.max_tools_per_upstream,
            self.max_description_chars,
            self.max_schema_bytes,
            self.max_schema_depth,
            self.max_result_bytes,
        )


_SETTING_KINDS: dict[str, tuple[type, ...]] = {
    "list_ttl": (int, float), "call_timeout": (int, float), "list_timeout": (int, float), "start_timeout": (int, float), "search_url": (str,),
    "search_timeout": (int, float), "mode": (str,), "audit_arguments": (bool,), "max_argument_bytes": (int,),
    "tool_docs": (str,), "max_tools_per_upstream": (int,), "max_description_chars": (int,), "max_schema_bytes": (int,),
    "max_schema_depth": (int,), "max_result_bytes": (int,), "max_message_bytes": (int,),
}  # fmt: skip


@dataclass(frozen=True)
class GatewayConfig:
    """Everything the gateway reads from the config file; ``base_dir`` is the file's folder."""

    upstreams: tuple[UpstreamSpec, ...] = ()
    permissions: Mapping[str, ProjectRules] = field(default_factory=dict)
    settings: GatewaySettings = field(default_factory=GatewaySettings)
    base_dir: Path = Path(".")

    @property
    def enabled(self) -> tuple[UpstreamSpec, ...]:
        return tuple(spec for spec in self.upstreams if spec.enabled)

    @property
    def docs_dir(self) -> Path:
        return self.base_dir / self.settings.tool_docs


def read_document(path: Path) -> dict[str, Any]:
    """The parsed TOML of ``path`` ({} when the file does not exist).

    Raises:
        GatewayConfigError: the file cannot be read or is not TOML.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise GatewayConfigError(f"Config file {path} cannot be read: {error}", "Fix the TOML syntax.") from None


def load_gateway_config(path: Path | None) -> GatewayConfig:
    """The gateway configuration in ``path``; an empty one (no upstreams) when there is no file.

    Raises:
        GatewayConfigError: any invalid upstream, permission rule or setting (all listed at once).
    """
    if path is None:
        return GatewayConfig()
    document = read_document(path)
    problems: list[str] = []
    upstreams = _upstreams(document.get("upstream", []), problems)
    permissions = _permissions(document.get("tool_permissions", {}), problems)
    settings = _settings(document.get("gateway", {}), problems)
    if problems:
        raise GatewayConfigError(
            f"Invalid gateway configuration in {path}:\n  " + "\n  ".join(problems),
            "Fix these entries; the README's 'Tool gateway' section shows a complete example.",
        )
    return GatewayConfig(upstreams, permissions, settings, path.parent)


def check_table(raw: Any, valid: set[str], where: str, problems: list[str]) -> bool:
    """Whether ``raw`` is a mapping; its keys outside ``valid`` are appended to ``problems``."""
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected a table with the keys {', '.join(sorted(valid))}")
        return False
    unknown = sorted(set(raw) - valid)
    if unknown:
        problems.append(f"{where}: unknown keys {', '.join(unknown)} (valid: {', '.join(sorted(valid))})")
    return True


def parse_upstream(raw: Any, where: str, problems: list[str]) -> UpstreamSpec | None:
    """One ``[[upstream]]`` table as an UpstreamSpec; problems are appended, None if unusable."""
    if not check_table(raw, _UPSTREAM_KEYS, where, problems):
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        problems.append(f"{where}: name {name!r} must be 1-64 letters, digits, '_', '.' or '-' (no ':')")
        return None
    command, url, args, env = raw.get("command", ""), raw.get("url", ""), raw.get("args", []), raw.get("env", {})
    if not isinstance(command, str) or not isinstance(url, str) or bool(command) == bool(url):
        problems.append(f"{where} ({name}): give exactly one of command (stdio) or url (streamable HTTP)")
        return None
    if url and not url.startswith(("http://", "https://")):
        problems.append(f"{where} ({name}): url must start with http:// or https://")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        problems.append(f"{where} ({name}): args must be a list of strings")
        args = []
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        problems.append(f"{where} ({name}): env must be a table of strings")
        env = {}
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        problems.append(f"{where} ({name}): enabled must be true or false")
        enabled = True
    return UpstreamSpec(name, command, tuple(args), dict(env), url, enabled)


def _upstreams(raw: Any, problems: list[str]) -> tuple[UpstreamSpec, ...]:
    if not isinstance(raw, list):
        problems.append("upstream: write each server as an [[upstream]] table")
        return ()
    specs = [spec for n, item in enumerate(raw, 1) if (spec := parse_upstream(item, f"upstream #{n}", problems))]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            problems.append(f"upstream {spec.name!r} is defined twice")
        seen.add(spec.name)
    return tuple(specs)


def _permissions(raw: Any, problems: list[str]) -> dict[str, ProjectRules]:
    if not isinstance(raw, dict):
        problems.append("tool_permissions: expected [tool_permissions.PROJECT] tables with allow/deny lists")
        return {}
    rules: dict[str, ProjectRules] = {}
    for project, table in raw.items():
        lists: dict[str, tuple[str, ...]] = {}
        for kind in ("allow", "deny"):
            value = table.get(kind, []) if isinstance(table, dict) else None
            if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
                problems.append(f"tool_permissions.{project}.{kind}: expected a list of 'server:tool' patterns")
                value = []
            lists[kind] = tuple(value)
        if isinstance(table, dict) and set(table) - {"allow", "deny"}:
            problems.append(f"tool_permissions.{project}: only allow and deny are valid keys")
        rules[project] = ProjectRules(lists["allow"], lists["deny"])
    return rules


def _settings(raw: Any, problems: list[str]) -> GatewaySettings:
    if not isinstance(raw, dict):
        problems.append("gateway: expected a [gateway] table")
        return GatewaySettings()
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kinds = _SETTING_KINDS.get(key)
        if kinds is None:
            problems.append(f"gateway.{key}: unknown key (valid: {', '.join(_SETTING_KINDS)})")
        elif isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            problems.append(f"gateway.{key} = {value!r}: expected {' or '.join(k.__name__ for k in kinds)}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            problems.append(f"gateway.{key} = {value!r}: must be positive")
        else:
            values[key] = value
    if "mode" in values:
        if values["mode"] in MODES:
            values["mode"] = Mode(values["mode"])
        else:
            problems.append(f"gateway.mode = {values['mode']!r}: expected {', '.join(MODES[:-1])} or {MODES[-1]}")
            values.pop("mode")
    return GatewaySettings(**values)
