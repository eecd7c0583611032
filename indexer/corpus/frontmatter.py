"""Front matter: split it off a page and read ``title``, taxonomy metadata and chunking hints.

YAML (``---``) and Hugo's TOML (``+++``) blocks are read. Real corpora carry front matter
that strict YAML rejects; such a page is still indexed, with whatever ``key: value`` lines
can be recovered, and one warning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from docs_mcp.indexer.records import CHUNK_STRATEGIES, Strategy

_YAML_BLOCK = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_TOML_BLOCK = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)
_LOOSE_PAIR = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")
# <!-- mcp_chunking_hint: {"chunk_by": "h3"} --> anywhere in the page (reference behaviour).
_COMMENT_HINT = re.compile(r"<!--\s*mcp_chunking_hint:\s*(\{[^}]+\})\s*-->")


@cache
def _yaml() -> tuple[Any, Any]:
    """PyYAML and its safe loader, imported on the first YAML block: a server's start reads none (20 ms)."""
    import yaml

    try:  # the C loader is ~10x faster on large corpora; fall back when libyaml is absent
        return yaml, yaml.CSafeLoader
    except AttributeError:  # pragma: no cover - depends on the PyYAML build
        return yaml, yaml.SafeLoader


@dataclass(frozen=True)
class FrontMatter:
    """What a page's front matter says, and the body that follows it."""

    body: str
    title: str = ""
    metadata: Mapping[str, str] = field(default_factory=dict)
    strategy: Strategy | None = None
    chunk_by_hint: str | None = None  # from an HTML comment: changes chunk_by only
    warnings: tuple[str, ...] = ()


def read_front_matter(text: str) -> FrontMatter:
    """Split ``text`` (``\\n`` line ends) into front matter fields and body; never raises."""
    data, body, found = _split(text)
    warnings = list(found)
    title = data.get("title")
    metadata: dict[str, str] = {}
    for key in ("metadata", "mcp_metadata"):  # mcp_metadata wins, as in the reference
        metadata.update(_string_map(data.get(key), key, warnings))
    strategy = _strategy(data, warnings)
    hint = _comment_hint(body, warnings)
    return FrontMatter(
        body=body,
        title=title.strip() if isinstance(title, str) else "",
        metadata=metadata,
        strategy=strategy,
        chunk_by_hint=hint,
        warnings=tuple(warnings),
    )


def _split(text: str) -> tuple[dict[str, Any], str, tuple[str, ...]]:
    m = _YAML_BLOCK.match(text)
    if m:
        block, body = m.group(1) or "", text[m.end() :]
        yaml, loader = _yaml()
        try:
            data = yaml.load(block, Loader=loader)  # noqa: S506 - a safe loader
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            # ValueError: a well-formed scalar with an impossible value, e.g. date 2020-13-45.
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 2})" if mark else f" ({exc})" if isinstance(exc, ValueError) else ""
            return (
                _loose_pairs(block),
                body,
                (
                    f"front matter is not valid YAML{where}; indexed its text and the fields that could be read. "
                    "Fix the YAML (quote values that contain ': ' or start with special characters).",
                ),
            )
        if not isinstance(data, (dict, type(None))):
            return {}, body, ("front matter is not a YAML mapping; ignored it. Write `key: value` lines.",)
        return _as_dict(data), body, ()
    m = _TOML_BLOCK.match(text)
    if m:
        import tomllib  # a page with TOML front matter is rare: a server's start does not load the parser

        try:
            return tomllib.loads(m.group(1) or ""), text[m.end() :], ()
        except tomllib.TOMLDecodeError as exc:
            return {}, text[m.end() :], (f"front matter is not valid TOML ({exc}); ignored it. Fix the TOML.",)
    return {}, text, ()


def _as_dict(data: Any) -> dict[str, Any]:
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def _loose_pairs(block: str) -> dict[str, Any]:
    """Top-level ``key: value`` lines of a block that strict YAML rejected, values unquoted."""
    pairs: dict[str, Any] = {}
    for line in block.split("\n"):
        m = _LOOSE_PAIR.match(line)
        if m and m.group(2):
            pairs.setdefault(m.group(1), m.group(2).strip("'\""))
    return pairs


def _string_map(value: Any, key: str, warnings: list[str]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        warnings.append(f"front matter `{key}` must be a mapping of names to values; ignored it.")
        return {}
    out = {}
    for name, raw in value.items():
        if isinstance(raw, (str, int, float)) and not isinstance(raw, bool) and str(raw).strip():
            out[str(name).strip()] = str(raw).strip()
        else:
            warnings.append(f"front matter `{key}.{name}` must be a non-empty text value; ignored it.")
    return out


def _strategy(data: Mapping[str, Any], warnings: list[str]) -> Strategy | None:
    raw = data.get("mcp_strategy")
    if raw is not None:
        if not isinstance(raw, dict):
            warnings.append("front matter `mcp_strategy` must be a mapping with `chunk_by`; ignored it.")
            return None
        return strategy_from(raw, "front matter `mcp_strategy`", warnings)
    hint = data.get("mcp_chunking_hint")
    if hint is not None:
        # A bare hint replaces the whole strategy, so max_chunk_size returns to its default.
        return strategy_from({"chunk_by": hint}, "front matter `mcp_chunking_hint`", warnings)
    return None


def strategy_from(raw: Mapping[str, Any], where: str, warnings: list[str]) -> Strategy | None:
    """A :class:`Strategy` from ``{"chunk_by", "max_chunk_size"}``, or None with a warning naming ``where``."""
    chunk_by = raw.get("chunk_by")
    if chunk_by not in CHUNK_STRATEGIES:
        given = "it is missing" if chunk_by is None else f"not {chunk_by!r}"
        warnings.append(f"{where}: chunk_by must be one of {', '.join(CHUNK_STRATEGIES)} ({given}); ignored it.")
        return None
    size = raw.get("max_chunk_size")
    if size is None:
        return Strategy(chunk_by=chunk_by)
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        warnings.append(f"{where}: max_chunk_size must be a positive whole number, not {size!r}; ignored it.")
        return None
    return Strategy(chunk_by=chunk_by, max_chunk_size=size)


def _comment_hint(body: str, warnings: list[str]) -> str | None:
    m = _COMMENT_HINT.search(body)
    if not m:
        return None
    try:
        chunk_by = json.loads(m.group(1)).get("chunk_by")
    except (ValueError, AttributeError):
        warnings.append("the mcp_chunking_hint comment is not a JSON object; ignored it.")
        return None
    if chunk_by not in CHUNK_STRATEGIES:
        warnings.append(
            f"the mcp_chunking_hint comment: chunk_by must be one of {', '.join(CHUNK_STRATEGIES)}; ignored it."
        )
        return None
    return str(chunk_by)
