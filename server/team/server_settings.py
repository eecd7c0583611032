"""Team-mode configuration: docs-mcp.toml, DOCS_MCP_* variables and flags, merged into one record.

Precedence is flags > environment > file > defaults.  Every key lives in
``OPTIONS`` with its type, default, variable and documentation, so parsing,
``docs-mcp config example`` and the docs cannot drift apart.  Every invalid
value is reported at once, in one ConfigError, before anything starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.environment import environment
from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.redact import MASK, redact
from docs_mcp.server.search.blas import usable_cores
from docs_mcp.server.team.errors import ConfigError

CONFIG_FILE = "docs-mcp.toml"
CONFIG_ENV = "DOCS_MCP_CONFIG"
KEY_STORE_FILE = "keys.sqlite"


@dataclass(frozen=True)
class Kind:
    """How one option's raw value (TOML value or environment string) is checked and converted."""

    expected: str  # said in the error message
    parse: Callable[[Any], Any]  # raises ValueError or TypeError for an invalid value


def _integer(low: int, high: int) -> Kind:
    def parse(raw: Any) -> int:
        if isinstance(raw, bool) or isinstance(raw, float):
            raise ValueError(raw)
        value = int(raw)  # accepts 3100 and "3100"
        if not low <= value <= high:
            raise ValueError(raw)
        return value

    return Kind(f"an integer from {low} to {high}", parse)


def _choice(*values: str) -> Kind:
    def parse(raw: Any) -> str:
        if not isinstance(raw, str) or raw.lower() not in values:
            raise ValueError(raw)
        return raw.lower()

    return Kind("one of " + ", ".join(values), parse)


def _parse_text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise TypeError(raw)
    return raw.strip()


def _parse_text_list(raw: Any) -> tuple[str, ...]:
    # Environment variables spell lists as comma-separated strings.
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(item, str) for item in items):
        raise TypeError(raw)
    return tuple(item.strip() for item in items if item.strip())


def _parse_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in ("true", "1", "yes", "false", "0", "no"):
        return raw.strip().lower() in ("true", "1", "yes")
    raise ValueError(raw)


def _parse_workers(raw: Any) -> str | int:
    if isinstance(raw, str) and raw.strip().lower() == "auto":
        return "auto"
    return _integer(0, 64).parse(raw)


def _parse_redis_url(raw: Any) -> str:
    url = _parse_text(raw)
    if url and not url.startswith(REDIS_SCHEMES):
        raise ValueError("not a Redis URL")
    return url


def _parse_postgres_url(raw: Any) -> str:
    url = _parse_text(raw)
    if url and not url.startswith(POSTGRES_SCHEMES):
        raise ValueError("not a PostgreSQL URL")
    return url


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_TEXT = Kind("a string", _parse_text)
_REDIS_URL = Kind("empty, or a URL that starts with " + ", ".join(REDIS_SCHEMES), _parse_redis_url)
_POSTGRES_URL = Kind("empty, or a URL that starts with " + ", ".join(POSTGRES_SCHEMES), _parse_postgres_url)
_WORKERS = Kind("auto or an integer from 0 to 64", _parse_workers)
_BOOL = Kind("true or false", _parse_bool)
_TEXT_LIST = Kind("a list of strings (comma-separated in an environment variable)", _parse_text_list)


@dataclass(frozen=True)
class Option:
    """One configuration key: where it lives, how it is parsed, its default and what it means."""

    key: str  # "section.name" in docs-mcp.toml
    kind: Kind
    default: Any
    env: str
    doc: str
    secret: bool = False  # never shown: `config show` prints *** (set) or (not set)

    def shown(self, value: Any) -> str:
        """``value`` as `config show` prints it: secrets masked, URL credentials redacted.

        A URL option whose value is no URL (a password pasted in its place) is masked whole.
        """
        schemes = {id(_REDIS_URL): REDIS_SCHEMES, id(_POSTGRES_URL): POSTGRES_SCHEMES}.get(id(self.kind))
        if self.secret or (schemes and value and not str(value).strip().startswith(schemes)):
            return f"{MASK} (set)" if value else "(not set)"
        return redact(repr(value))


MAX_RATE = 1_000_000  # requests per minute or at once: far above any team's need, and fits the key store

OPTIONS: tuple[Option, ...] = (
    Option(
        "server.index",
        _TEXT,
        DEFAULT_INDEX_DIR,
        "DOCS_MCP_INDEX",
        "Index directory built by `docs-mcp index`; the server only reads it.",
    ),
    Option(
        "server.transport",
        _choice("stdio", "http"),
        "stdio",
        "DOCS_MCP_TRANSPORT",
        "stdio for one client that spawns the server, http for a shared team server.",
    ),
    Option(
        "server.host",
        _TEXT,
        "127.0.0.1",
        "DOCS_MCP_HOST",
        "Address to bind in http mode. Loopback by default; use 0.0.0.0 behind a reverse proxy.",
    ),
    Option(
        "server.port",
        _integer(0, 65535),
        3100,
        "DOCS_MCP_PORT",
        "TCP port in http mode (0 picks a free port and logs it).",
    ),
    Option(
        "server.shutdown_timeout",
        _integer(0, 3600),
        30,
        "DOCS_MCP_SHUTDOWN_TIMEOUT",
        "Seconds to let in-flight requests finish after SIGTERM before they are cancelled.",
    ),
    Option(
        "server.search_workers",
        _WORKERS,
        "auto",
        "DOCS_MCP_SEARCH_WORKERS",
        "Processes that run searches in parallel (auto: one per core; 0: in the server process).",
    ),
    Option(
        "server.slow_threads",
        _integer(1, 256),
        24,
        "DOCS_MCP_SLOW_THREADS",
        "Threads for the tools that wait on documentation sites or upstream servers (read_page by URL, get_docs, "
        "tool_execute...), apart from the threads of the tools that only read the index.",
    ),
    Option(
        "server.slow_calls_per_key",
        _integer(1, 256),
        6,
        "DOCS_MCP_SLOW_CALLS_PER_KEY",
        "Calls of those tools one API key may run at once; one more is refused at once (TOO_BUSY).",
    ),
    Option(
        "server.cursor_secret",
        _TEXT,
        "",
        "DOCS_MCP_CURSOR_SECRET",
        "Secret that signs search cursors; give every replica the same one. Empty: derived from the index.",
        secret=True,
    ),
    Option(
        "http.allowed_hosts",
        _TEXT_LIST,
        (),
        "DOCS_MCP_ALLOWED_HOSTS",
        "Host header values accepted (DNS-rebinding protection); 'name:*' allows any port. "
        "Empty: loopback names when bound to loopback; a public address then needs allow_any_host.",
    ),
    Option(
        "http.allow_any_host",
        _BOOL,
        False,
        "DOCS_MCP_ALLOW_ANY_HOST",
        "Serve a public address with allowed_hosts empty, accepting any Host header (--allow-any-host). "
        "Off: such a server refuses to start, as it would be open to DNS rebinding.",
    ),
    Option(
        "http.allowed_origins",
        _TEXT_LIST,
        (),
        "DOCS_MCP_ALLOWED_ORIGINS",
        "Origin header values accepted from browsers, besides loopback origins and cors_origins; "
        "requests without Origin are always accepted.",
    ),
    Option(
        "http.cors_origins",
        _TEXT_LIST,
        (),
        "DOCS_MCP_CORS_ORIGINS",
        "Origins allowed to call /mcp from a browser (CORS). Empty: no CORS headers; '*': any origin.",
    ),
    Option(
        "http.max_connections",
        _integer(16, 1_000_000),
        1000,
        "DOCS_MCP_MAX_CONNECTIONS",
        "Connections open at once; lowered to fit under the process's file limit (RLIMIT_NOFILE). Past it a new "
        "connection closes the oldest one without a running request, or is answered 503 when all are busy.",
    ),
    Option(
        "http.read_timeout",
        _integer(1, 3600),
        15,
        "DOCS_MCP_READ_TIMEOUT",
        "Seconds a client has to send a whole request (headers and body) after connecting or after the previous "
        "answer; a connection that takes longer is closed.",
    ),
    Option(
        "keys.store",
        _TEXT,
        "",
        "DOCS_MCP_KEY_STORE",
        f"API key store: a SQLite file, or a postgresql:// URL. Empty: fleet.database_url when set, "
        f"else {KEY_STORE_FILE} in the index directory.",
    ),
    Option(
        "rate_limit.requests_per_minute",
        _integer(1, MAX_RATE),
        60,
        "DOCS_MCP_RATE_LIMIT",
        "Sustained requests per minute per key, unless the key has its own (--rate).",
    ),
    Option(
        "rate_limit.burst",
        _integer(1, MAX_RATE),
        10,
        "DOCS_MCP_RATE_BURST",
        "Requests a key may make at once before the per-minute rate applies (--burst).",
    ),
    Option(
        "rate_limit.redis_url",
        _REDIS_URL,
        "",
        "DOCS_MCP_REDIS_URL",
        "redis://host:port/db to share buckets between replicas. Empty: in-process buckets.",
    ),
    Option(
        "rate_limit.redis_prefix",
        _TEXT,
        "docs-mcp",
        "DOCS_MCP_REDIS_PREFIX",
        "Prefix of the Redis keys, so several deployments can share one Redis.",
    ),
    Option(
        "fleet.database_url",
        _POSTGRES_URL,
        "",
        "DOCS_MCP_DATABASE_URL",
        "PostgreSQL control plane of a fleet (postgresql://db1,db2/docs): API keys, the generations registry, "
        "heartbeats. Empty: one machine (keys.sqlite, the index folder's CURRENT).",
    ),
    Option(
        "fleet.storage",
        _TEXT,
        "",
        "DOCS_MCP_FLEET_STORAGE",
        "Shared storage folder that `docs-mcp publish` copies generations to and replicas pull from "
        "(needed with fleet.database_url). server.index is then this replica's own local copy.",
    ),
    Option("fleet.replica", _TEXT, "", "DOCS_MCP_REPLICA", "This replica's name in the registry. Empty: host:port."),
    Option(
        "fleet.heartbeat",
        _integer(1, 600),
        5,
        "DOCS_MCP_FLEET_HEARTBEAT",
        "Seconds between two heartbeats; a replica silent for three is not waited for at a flip.",
    ),
    Option(
        "fleet.warm_timeout",
        _integer(1, 86400),
        300,
        "DOCS_MCP_WARM_TIMEOUT",
        "Seconds a flip waits for every healthy replica to warm a new generation; laggards are then dropped.",
    ),
    Option(
        "fleet.cursor_lifetime",
        _integer(0, 86400),
        900,
        "DOCS_MCP_CURSOR_LIFETIME",
        "Seconds a replaced generation stays open (and on disk) so the cursors it issued keep working.",
    ),
    Option(
        "logging.level",
        _choice("debug", "info", "warning", "error"),
        "info",
        "DOCS_MCP_LOG_LEVEL",
        "Least severe log level written to stderr.",
    ),
    Option(
        "logging.format",
        _choice("json", "pretty"),
        "json",
        "DOCS_MCP_LOG_FORMAT",
        "json: one object per line for log collectors; pretty: for people.",
    ),
)
_BY_KEY = {option.key: option for option in OPTIONS}


@dataclass(frozen=True)
class TeamSettings:
    """The effective configuration, and where each value came from (flag, env, file or default)."""

    values: Mapping[str, Any]
    sources: Mapping[str, str] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def shown(self) -> list[tuple[str, str, str]]:
        """(key, value as it may be displayed, source) for every option: secrets masked, URLs redacted."""
        return [(key, _BY_KEY[key].shown(value), self.sources[key]) for key, value in self.values.items()]

    @property
    def secrets(self) -> tuple[str, ...]:
        """The secret values in force (the cursor secret, a Redis URL's password), for masking in logs."""
        return tuple(str(self.values[o.key]) for o in OPTIONS if o.secret and self.values[o.key])

    @property
    def index(self) -> Path:
        return Path(self.values["server.index"]).expanduser()

    @property
    def cursor_secret(self) -> bytes:
        return self.values["server.cursor_secret"].encode("utf-8")

    @property
    def search_workers(self) -> int:
        """server.search_workers as a number: auto is one per core this process may run on."""
        value = self.values["server.search_workers"]
        if value != "auto":
            return value
        return usable_cores()

    @property
    def key_store_url(self) -> str | None:
        """The PostgreSQL URL of the key store: ``keys.store`` if it is one, else ``fleet.database_url``; None: SQLite."""
        store = self.values["keys.store"]
        if store.startswith(POSTGRES_SCHEMES):
            return store
        if store:
            return None
        return self.values["fleet.database_url"] or None

    @property
    def key_store(self) -> Path:
        """The key store file: ``keys.store``, or keys.sqlite next to the index."""
        store = self.values["keys.store"]
        return Path(store).expanduser() if store else self.index / KEY_STORE_FILE


def load_settings(
    flags: Mapping[str, Any] | None = None,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> TeamSettings:
    """Merge defaults, the config file, DOCS_MCP_* variables and ``flags`` (None means "not given").

    The file is ``config_file``, else $DOCS_MCP_CONFIG, else ./docs-mcp.toml when it exists.

    Raises:
        ConfigError: a file that cannot be read, an unknown key, or any invalid value (all listed).
    """
    environ = environment() if environ is None else environ
    layers: list[tuple[str, Mapping[str, Any]]] = [("default", {o.key: o.default for o in OPTIONS})]
    path = config_path(config_file, environ)
    if path is not None:
        layers.append((f"file {path}", _read_file(path)))
    layers.append(("env", {o.key: environ[o.env] for o in OPTIONS if environ.get(o.env, "") != ""}))
    layers.append(("flag", {key: value for key, value in (flags or {}).items() if value is not None}))

    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    problems: list[str] = []
    for source, layer in layers:
        for key, raw in layer.items():
            option = _BY_KEY[key]
            try:
                values[key] = option.kind.parse(raw)
                sources[key] = source
            except (ValueError, TypeError):
                where = f"${option.env}" if source == "env" else key
                problems.append(f"{where} = {option.shown(raw)} ({source}): expected {option.kind.expected}")
    if problems:
        raise ConfigError(
            "Invalid configuration:\n  " + "\n  ".join(problems),
            "Fix these values; `docs-mcp config example` lists every key with its default.",
        )
    return TeamSettings(values, sources)


def config_path(config_file: Path | None, environ: Mapping[str, str]) -> Path | None:
    """The config file in effect: ``config_file``, else $DOCS_MCP_CONFIG, else ./docs-mcp.toml if it exists."""
    if config_file is not None:
        return config_file
    if environ.get(CONFIG_ENV):
        return Path(environ[CONFIG_ENV])
    local = Path(CONFIG_FILE)
    return local if local.is_file() else None


def _read_file(path: Path) -> dict[str, Any]:
    """The file's keys, flattened to "section.name"; unknown keys are errors (typos must not pass silently)."""
    # Imported here: a server started without a config file (most stdio servers) needs neither.
    import tomllib

    from docs_mcp.server.gateway.gateway_config import GATEWAY_SECTIONS

    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"Config file {path} does not exist.", "Create it (`docs-mcp config example`) or fix the path."
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"Config file {path} cannot be read: {error}", "Fix the TOML syntax.") from None
    flat: dict[str, Any] = {}
    unknown: list[str] = []
    for section, table in document.items():
        if section in GATEWAY_SECTIONS:
            continue  # [gateway], [[upstream]], [tool_permissions.*]: read by the gateway
        if not isinstance(table, dict):
            unknown.append(section)
            continue
        for name, value in table.items():
            key = f"{section}.{name}"
            if key in _BY_KEY:
                flat[key] = value
            else:
                unknown.append(key)
    if unknown:
        raise ConfigError(
            f"Config file {path} has unknown keys: {', '.join(sorted(unknown))}.",
            "Valid keys: " + ", ".join(_BY_KEY) + ".",
        )
    return flat


def example_toml() -> str:
    """A docs-mcp.toml that documents every key, with its default and its environment variable."""
    lines = [
        "# docs-mcp.toml: every key is optional; values shown are the defaults.",
        "# Precedence: command-line flags > DOCS_MCP_* environment variables > this file > defaults.",
    ]
    section = ""
    for option in OPTIONS:
        head, name = option.key.split(".")
        if head != section:
            section = head
            lines += ["", f"[{section}]"]
        lines.append(f"# {option.doc} (env: {option.env})")
        lines.append(f"{name} = {_toml_value(option.default)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
