"""``.docs-mcp.json`` manifests: parse and validate one, and resolve it for a file.

The nearest manifest above a file applies on its own (manifests are not merged with
their parents); its ``overrides`` are globs relative to the manifest's folder, matched in
order, and the last match wins.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from docs_mcp.indexer.corpus.frontmatter import strategy_from
from docs_mcp.indexer.errors import ManifestError
from docs_mcp.indexer.records import KeyConfig, Strategy

MANIFEST_NAME = ".docs-mcp.json"
MANIFEST_VERSION = "1"


@dataclass(frozen=True)
class Override:
    """Settings for the files under a manifest that match ``pattern``."""

    pattern: str
    strategy: Strategy | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Manifest:
    """One parsed manifest; ``folder`` is its directory relative to the docs root ('' for the root)."""

    folder: str = ""
    strategy: Strategy | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    taxonomy: Mapping[str, KeyConfig] = field(default_factory=dict)
    overrides: tuple[Override, ...] = ()
    # Globs relative to the manifest's folder: which of its files are indexed (indexer/corpus/file_rules.py).
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def load_manifest(path: Path, folder: str) -> Manifest:
    """Read and validate the manifest at ``path`` (its folder is ``folder`` relative to the root).

    Raises:
        ManifestError: the file is unreadable, not JSON, or does not follow the manifest format.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"cannot read the manifest: {exc}.", "Fix its permissions or re-save it as UTF-8.") from exc
    except json.JSONDecodeError as exc:
        raise ManifestError(
            f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}.",
            "Fix the JSON (a validator or `python -m json.tool` shows where).",
        ) from exc
    return parse_manifest(data, folder)


def parse_manifest(data: Any, folder: str = "") -> Manifest:
    """Validate manifest JSON data.

    Raises:
        ManifestError: a field has the wrong type or value; the message names the field.
    """
    if not isinstance(data, dict):
        raise ManifestError("the manifest must be a JSON object.", 'Start from {"version": "1"}.')
    version = data.get("version", MANIFEST_VERSION)
    if version != MANIFEST_VERSION:
        raise ManifestError(f"unsupported manifest version {version!r}.", f'Set "version": "{MANIFEST_VERSION}".')
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list):
        raise ManifestError("`overrides` must be a list.", 'Write "overrides": [{"pattern": "...", ...}].')
    return Manifest(
        folder=folder,
        strategy=_strategy(data.get("strategy"), "strategy"),
        metadata=_metadata(data.get("metadata"), "metadata"),
        taxonomy=taxonomy_configs(data.get("taxonomy"), "taxonomy"),
        overrides=tuple(_override(o, i) for i, o in enumerate(overrides)),
        include=_globs(data.get("include"), "include"),
        exclude=_globs(data.get("exclude"), "exclude"),
    )


def resolve(manifest: Manifest | None, filepath: str) -> tuple[Strategy, dict[str, str]]:
    """The strategy and metadata ``manifest`` gives the file at ``filepath`` (relative to the root)."""
    if manifest is None:
        return Strategy(), {}
    strategy = manifest.strategy or Strategy()
    metadata = dict(manifest.metadata)
    relative = filepath[len(manifest.folder) + 1 :] if manifest.folder else filepath
    for override in manifest.overrides:
        if glob_regex(override.pattern).fullmatch(relative):
            metadata.update(override.metadata)
            strategy = override.strategy or strategy
    return strategy, metadata


def taxonomy_configs(raw: Any, where: str) -> dict[str, KeyConfig]:
    """Parse ``{key: {"description", "vector_collapse", "filter_keeps_unset", "filter_keeps"}}``.

    Raises:
        ManifestError: it is not a mapping of mappings, or a field has the wrong type.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise ManifestError(f"`{where}` must map each key to an object.", 'Write {"language": {"description": "..."}}.')
    return {str(key): key_config(conf, f"{where}.{key}") for key, conf in raw.items()}


def key_config(conf: Mapping[str, Any], where: str) -> KeyConfig:
    """One key's config from its JSON object.

    Raises:
        ManifestError: a field has the wrong type.
    """
    description, collapse = conf.get("description", ""), conf.get("vector_collapse", False)
    keeps_unset, keeps = conf.get("filter_keeps_unset", False), conf.get("filter_keeps", {})
    if not isinstance(description, str) or not isinstance(collapse, bool) or not isinstance(keeps_unset, bool):
        raise ManifestError(
            f"`{where}`: description must be text; vector_collapse and filter_keeps_unset true or false.",
            "Fix the values.",
        )
    if not isinstance(keeps, dict) or not all(isinstance(v, str) and v for v in keeps.values()):
        raise ManifestError(
            f"`{where}.filter_keeps` must map a taxonomy key to a glob of its values.",
            'Write "filter_keeps": {"scope": "global*"}.',
        )
    return KeyConfig(description.strip(), collapse, keeps_unset, tuple(sorted((str(k), v) for k, v in keeps.items())))


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a glob: ``**`` spans folders, ``*`` and ``?`` stay inside one, ``{a,b}`` and ``[..]`` as usual."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i)
            out.append("(?:" + "|".join(re.escape(p) for p in pattern[i + 1 : end].split(",")) + ")")
            i = end
        elif c == "[" and "]" in pattern[i + 1 :]:
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out))


def _override(raw: Any, index: int) -> Override:
    where = f"overrides[{index}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("pattern"), str) or not raw["pattern"].strip():
        raise ManifestError(f"`{where}` needs a non-empty `pattern`.", 'Write {"pattern": "guides/**", ...}.')
    return Override(
        pattern=raw["pattern"].strip().removeprefix("./"),
        strategy=_strategy(raw.get("strategy"), f"{where}.strategy"),
        metadata=_metadata(raw.get("metadata"), f"{where}.metadata"),
    )


def _globs(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(glob, str) and glob.strip() for glob in raw):
        raise ManifestError(f"`{where}` must be a list of glob patterns.", f'Write "{where}": ["guides/**", "*.rst"].')
    return tuple(glob.strip().removeprefix("./") for glob in raw)


def _strategy(raw: Any, where: str) -> Strategy | None:
    if raw is None:
        return None
    problems: list[str] = []
    strategy = strategy_from(raw, f"`{where}`", problems) if isinstance(raw, dict) else None
    if strategy is None:
        reason = problems[0].removesuffix(" ignored it.") if problems else f"`{where}` must be an object."
        raise ManifestError(reason, 'Write {"chunk_by": "h2", "max_chunk_size": 20000}.')
    return strategy


def _metadata(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ManifestError(f"`{where}` must be an object.", 'Write {"language": "python"}.')
    out = {}
    for key, value in raw.items():
        if not isinstance(value, str) or not value.strip() or not str(key).strip():
            raise ManifestError(f"`{where}.{key}` must be a non-empty string.", "Quote the value.")
        out[str(key).strip()] = value.strip()
    return out
