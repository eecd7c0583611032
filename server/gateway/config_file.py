"""`docs-mcp upstream add/list/remove`: edit the ``[[upstream]]`` tables of the config file in place.

tomlkit keeps everything else of the file as written (comments, order, other sections); the
new file is checked like ``serve`` would read it, then replaces the old one atomically.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import tomlkit
from tomlkit.exceptions import TOMLKitError

from docs_mcp.server.gateway.errors import GatewayConfigError
from docs_mcp.server.gateway.gateway_config import load_gateway_config, parse_upstream
from docs_mcp.server.gateway.records import UpstreamSpec


def add_upstream(path: Path, spec: UpstreamSpec) -> None:
    """Append ``spec`` as an ``[[upstream]]`` table (the file is created if missing).

    Raises:
        GatewayConfigError: the spec is invalid, the name is taken, or the file cannot be read or written.
    """
    problems: list[str] = []
    parse_upstream(_table_dict(spec), f"upstream {spec.name!r}", problems)
    if problems:
        raise GatewayConfigError("; ".join(problems), "Fix the name, command or --url.")
    document = _read(path)
    tables = document.get("upstream")
    if tables is None:
        tables = tomlkit.aot()
        document.append("upstream", tables)
    if any(table.get("name") == spec.name for table in tables):
        raise GatewayConfigError(
            f"An upstream named {spec.name!r} already exists in {path}.",
            f"Remove it first (`docs-mcp upstream remove {spec.name}`) or choose another name.",
        )
    table = tomlkit.table()
    for key, value in _table_dict(spec).items():
        table[key] = value
    tables.append(table)
    _write(path, document)


def remove_upstream(path: Path, name: str) -> UpstreamSpec:
    """Remove the ``[[upstream]]`` table named ``name``; returns what it was.

    Raises:
        GatewayConfigError: no such upstream, or the file cannot be read or written.
    """
    config = load_gateway_config(path)
    found = next((spec for spec in config.upstreams if spec.name == name), None)
    if found is None:
        names = ", ".join(spec.name for spec in config.upstreams) or "none"
        raise GatewayConfigError(f"No upstream named {name!r} in {path}.", f"Configured upstreams: {names}.")
    document = _read(path)
    tables = document["upstream"]
    index = next(i for i, table in enumerate(tables) if table.get("name") == name)
    del tables[index]
    if not len(tables):
        del document["upstream"]
    _write(path, document)
    return found


def _table_dict(spec: UpstreamSpec) -> dict[str, object]:
    table: dict[str, object] = {"name": spec.name}
    if spec.url:
        table["url"] = spec.url
    else:
        table.update(command=spec.command, args=list(spec.args))
    if spec.env:
        table["env"] = dict(spec.env)
    if not spec.enabled:
        table["enabled"] = False
    return table


def _read(path: Path) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, UnicodeDecodeError, TOMLKitError) as error:
        raise GatewayConfigError(f"Config file {path} cannot be read: {error}", "Fix the TOML syntax first.") from None


def _write(path: Path, document: tomlkit.TOMLDocument) -> None:
    """Check the new text as `serve` would read it, then swap it in atomically (same permissions)."""
    text = tomlkit.dumps(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        load_gateway_config(Path(temp))
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o777)
        os.replace(temp, path)
    except OSError as error:
        raise GatewayConfigError(
            f"Config file {path} cannot be written: {error.strerror or error}.", "Check the folder's permissions."
        ) from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
