"""What a "session" is, and a bounded store for per-session state (resolved libraries, announced tools).

- stdio: one client per server process, so one session (``local``).
- HTTP (team mode): the server is stateless and refuses MCP session IDs, so
  nothing ties two requests together but the API key that sent them.  A
  session is therefore the caller's key (set by the transport in the request's
  scope under ``SESSION_SCOPE``), plus the ``Mcp-Session-Id`` header when a
  transport has one.  Two keys never see each other's state; each replica keeps
  its own (state is a convenience, never needed for a correct answer).

State is bounded: at most ``MAX_SESSIONS`` sessions, the least recently used
dropped first, and a session idle for ``SESSION_TTL`` seconds is forgotten.

With Redis configured (team mode's ``rate_limit.redis_url``), sessions live there instead
(``RedisSessionStore``), shared by every replica behind the balancer: one key per session and
kind, expiring after ``SESSION_TTL`` idle seconds (each read or write renews it), so Redis
bounds them as the memory store does.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

SESSION_SCOPE = "docs_mcp.session"  # ASGI scope entry naming the authenticated caller
SESSION_HEADER = "mcp-session-id"
LOCAL_SESSION = "local"
MAX_SESSIONS = 1000
SESSION_TTL = 3600.0  # seconds of inactivity

T = TypeVar("T")
logger = logging.getLogger(__name__)
REDIS_TIMEOUT = 1.0  # seconds: a session lookup never holds a request longer than this


class SessionValues(Protocol[T]):
    """What a per-session store offers: SessionStore (this process) or RedisSessionStore (every replica)."""

    def get(self, session: str) -> T | None: ...

    def put(self, session: str, value: T) -> None: ...


def request_session(request: Any) -> str:
    """The session of a request (the SDK's ``ctx.request``: a Starlette request over HTTP, None over stdio)."""
    scope = getattr(request, "scope", None) or {}
    headers = getattr(request, "headers", None)
    parts = (scope.get(SESSION_SCOPE), headers.get(SESSION_HEADER) if headers is not None else None)
    return "/".join(part for part in parts if part) or LOCAL_SESSION


class SessionStore(Generic[T]):
    """Per-session values, least recently used first out, idle ones expiring; safe across threads."""

    def __init__(
        self, *, max_sessions: int = MAX_SESSIONS, ttl: float = SESSION_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._values: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self._max, self._ttl, self._clock = max_sessions, ttl, clock
        self._lock = threading.Lock()

    def get(self, session: str) -> T | None:
        """The session's value (it counts as activity), or None if it has none or it expired."""
        with self._lock:
            self._expire()
            entry = self._values.pop(session, None)
            if entry is None:
                return None
            self._values[session] = (self._clock(), entry[1])
            return entry[1]

    def put(self, session: str, value: T) -> None:
        """Set the session's value, dropping the least recently used sessions beyond the bound."""
        with self._lock:
            self._expire()
            self._insert(session, value)

    def setdefault(self, session: str, make: Callable[[], T]) -> T:
        """The session's value, created with ``make()`` first if it has none."""
        with self._lock:
            self._expire()
            entry = self._values.get(session)
            value = make() if entry is None else entry[1]
            self._insert(session, value)
            return value

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._values)

    def _insert(self, session: str, value: T) -> None:
        self._values.pop(session, None)
        self._values[session] = (self._clock(), value)
        while len(self._values) > self._max:
            self._values.popitem(last=False)

    def _expire(self) -> None:
        # Oldest activity first: stop at the first session still fresh.
        deadline = self._clock() - self._ttl
        while self._values and next(iter(self._values.values()))[0] < deadline:
            self._values.popitem(last=False)


class RedisSessionStore(Generic[T]):
    """Per-session values in Redis, shared by every replica; a session idle for ``ttl`` seconds expires.

    Values cross as bytes (``encode``/``decode``). Redis failing is logged and read as "no
    state" (state is a convenience; a Redis outage already refuses requests at the rate limiter).
    """

    def __init__(
        self,
        client: Any,
        errors: tuple[type[BaseException], ...],
        prefix: str,
        kind: str,
        encode: Callable[[T], bytes],
        decode: Callable[[bytes], T],
        *,
        ttl: float = SESSION_TTL,
    ) -> None:
        self._client, self._errors = client, errors
        self._prefix = f"{prefix}:session:{kind}:"
        self._encode, self._decode, self._ttl = encode, decode, int(ttl)

    def get(self, session: str) -> T | None:
        try:
            raw = self._client.getex(self._prefix + session, ex=self._ttl)  # a read is activity: renew
        except self._errors as error:
            logger.warning("session store unavailable: %s", type(error).__name__)
            return None
        return None if raw is None else self._decode(raw)

    def put(self, session: str, value: T) -> None:
        try:
            self._client.set(self._prefix + session, self._encode(value), ex=self._ttl)
        except self._errors as error:
            logger.warning("session store unavailable: %s", type(error).__name__)


def redis_sessions(
    url: str, prefix: str, kind: str, encode: Callable[[T], bytes], decode: Callable[[bytes], T]
) -> RedisSessionStore[T]:
    """A RedisSessionStore on the Redis at ``url`` (the redis package: the ``redis`` extra)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT)
    return RedisSessionStore(client, (redis.RedisError, OSError), prefix, kind, encode, decode)
