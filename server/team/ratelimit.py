"""Token-bucket rate limits per API key: in process memory, or in Redis shared by every replica.

A bucket holds at most ``burst`` tokens and refills at ``per_minute`` tokens a
minute; each request to /mcp takes one.  Both stores run the same arithmetic:
``refill`` in Python, and the Lua script in Redis, which runs atomically and
uses Redis's clock so replicas with skewed clocks still agree.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docs_mcp.redact import redact
from docs_mcp.server.team.asgi_body import replay_body
from docs_mcp.server.team.auth import API_KEY_SCOPE
from docs_mcp.server.team.errors import HttpProblem, RateLimiterUnavailableError

logger = logging.getLogger(__name__)
# What a caller is told during an outage: where Redis runs is the operator's business (it is in the log).
REDIS_DOWN = HttpProblem(
    503,
    "SERVICE_UNAVAILABLE",
    "The rate-limit store of this server does not answer.",
    "Try again shortly; if it persists, tell the server's operator.",
    retry_after=5,
)


@dataclass(frozen=True)
class Limit:
    """A key's allowance: sustained requests per minute, and how many may come at once."""

    per_minute: int
    burst: int

    @property
    def per_second(self) -> float:
        return self.per_minute / 60.0


@dataclass(frozen=True)
class Decision:
    """The outcome of taking one token, and what the X-RateLimit-* headers say about it."""

    allowed: bool
    limit: Limit
    tokens: float  # left in the bucket after this request

    @property
    def remaining(self) -> int:
        return math.floor(self.tokens)

    @property
    def reset_seconds(self) -> int:
        """Seconds until the bucket is full again."""
        return math.ceil((self.limit.burst - self.tokens) / self.limit.per_second)

    @property
    def retry_after(self) -> int:
        """Seconds until the next token (at least 1, as Retry-After counts whole seconds)."""
        return max(1, math.ceil((1 - self.tokens) / self.limit.per_second))

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (b"x-ratelimit-limit", str(self.limit.per_minute).encode()),
            (b"x-ratelimit-remaining", str(self.remaining).encode()),
            (b"x-ratelimit-reset", str(self.reset_seconds).encode()),
        ]


def refill(tokens: float, elapsed: float, limit: Limit) -> tuple[bool, float]:
    """Refill a bucket for ``elapsed`` seconds, then try to take one token: (allowed, tokens left)."""
    tokens = min(float(limit.burst), tokens + max(0.0, elapsed) * limit.per_second)
    if tokens >= 1.0:
        return True, tokens - 1.0
    return False, tokens


class Limiter(Protocol):
    async def take(self, bucket: str, limit: Limit) -> Decision: ...

    async def ping(self) -> None: ...

    async def close(self) -> None: ...


class MemoryLimiter:
    """Buckets in this process's memory: right for one server, not shared between replicas."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # bucket -> (tokens, last refill time)

    async def take(self, bucket: str, limit: Limit) -> Decision:
        now = self._clock()
        tokens, last = self._buckets.get(bucket, (float(limit.burst), now))
        allowed, tokens = refill(tokens, now - last, limit)
        self._buckets[bucket] = (tokens, now)
        return Decision(allowed, limit, tokens)

    async def ping(self) -> None:
        """Memory always answers."""

    async def close(self) -> None:
        self._buckets.clear()


# KEYS[1] = bucket; ARGV = burst, tokens per millisecond.  Mirrors refill().
# Tokens go back as a string: Redis truncates Lua numbers to integers.
TOKEN_BUCKET_LUA = """
local burst = tonumber(ARGV[1])
local per_ms = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = clock[1] * 1000 + math.floor(clock[2] / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1]) or burst
local ts = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * per_ms)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / per_ms) + 1000)
return {allowed, tostring(tokens)}
"""


class RedisLimiter:
    """Buckets in Redis, updated by one atomic script, so every replica draws from the same bucket."""

    def __init__(self, url: str, prefix: str) -> None:
        redis = redis_client()  # only servers configured with a Redis URL need the client loaded

        self._redis_errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        self._client: Any = redis.asyncio.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
        self._script = self._client.register_script(TOKEN_BUCKET_LUA)
        self._prefix = prefix
        self._url = url

    async def ping(self) -> None:
        """Check that Redis answers.

        Raises:
            RateLimiterUnavailableError: it does not.
        """
        try:
            await self._client.ping()
        except self._redis_errors as error:
            raise _unavailable(self._url, error) from None

    async def take(self, bucket: str, limit: Limit) -> Decision:
        """Take one token from ``bucket`` in Redis.

        Raises:
            RateLimiterUnavailableError: Redis does not answer.
        """
        try:
            allowed, tokens = await self._script(
                keys=[f"{self._prefix}:bucket:{bucket}"], args=[limit.burst, repr(limit.per_minute / 60000.0)]
            )
        except self._redis_errors as error:
            raise _unavailable(self._url, error) from None
        return Decision(bool(allowed), limit, float(tokens))

    async def close(self) -> None:
        await self._client.aclose()


def _unavailable(url: str, error: BaseException) -> RateLimiterUnavailableError:
    return RateLimiterUnavailableError(
        redact(f"Redis at {url} does not answer: {error}."),
        "Start Redis, fix rate_limit.redis_url / --redis-url, or leave it empty for in-process limits.",
    )


def open_limiter(redis_url: str, prefix: str) -> Limiter:
    """A RedisLimiter when ``redis_url`` is set, else a MemoryLimiter."""
    return RedisLimiter(redis_url, prefix) if redis_url else MemoryLimiter()


class RateLimitMiddleware:
    """Charges each authenticated request to its key's bucket; 429 when empty, headers always.

    Runs inside AuthMiddleware, which leaves the caller's ApiKey in the scope.
    A Redis outage refuses requests (503) rather than letting them through unlimited.
    """

    def __init__(self, app: ASGIApp, limiter: Limiter, default: Limit) -> None:
        self.app = app
        self.limiter = limiter
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") == "POST":
            body = await _read_body(receive)
            receive = replay_body(body, receive)
            if _only_notifications(body):
                # A notification asks for no work and gets no answer: it must not spend a request's token.
                await self.app(scope, receive, send)
                return
        key = scope[API_KEY_SCOPE]
        limit = Limit(key.rate or self.default.per_minute, key.burst or self.default.burst)
        try:
            decision = await self.limiter.take(key.name, limit)
        except RateLimiterUnavailableError as error:
            logger.error("%s", error.message)
            await REDIS_DOWN.send(send)
            return
        if not decision.allowed:
            problem = HttpProblem(
                429,
                "RATE_LIMITED",
                f"Key '{key.name}' used its {limit.per_minute} requests per minute (burst {limit.burst}).",
                f"Try again after {decision.retry_after} seconds.",
                retry_after=decision.retry_after,
            )
            await problem.send(send, decision.headers())
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *decision.headers()]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if message["type"] != "http.request" or not message.get("more_body"):
            return b"".join(chunks)


def _only_notifications(body: bytes) -> bool:
    """Whether a POST body is a JSON-RPC notification (a method without an id); anything else is charged."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return False
    return isinstance(message, dict) and isinstance(message.get("method"), str) and "id" not in message


def redis_client() -> Any:
    """The redis package (with redis.asyncio), an optional dependency: ``pip install 'docs-mcp[redis]'``.

    Raises:
        RateLimiterUnavailableError: it is not installed.
    """
    try:
        import redis
        import redis.asyncio  # noqa: F401 - loads the asyncio client as redis.asyncio
    except ImportError:
        raise RateLimiterUnavailableError(
            "Shared rate limits in Redis need the redis client, which is not installed.",
            "Install it: pip install 'docs-mcp[redis]' (or drop --redis-url to keep limits in memory).",
        ) from None
    return redis


def check_redis(url: str) -> None:
    """Fail fast at start when the configured Redis does not answer.

    Raises:
        RateLimiterUnavailableError: it does not.
    """
    redis = redis_client()
    try:
        with redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5) as client:
            client.ping()
    except (redis.RedisError, OSError) as error:
        raise _unavailable(url, error) from None
