"""Token buckets: the arithmetic, the in-process store on a fake clock, and the Redis store shared by replicas."""

from __future__ import annotations

import sys

import anyio
import pytest

from docs_mcp.server.team.errors import RateLimiterUnavailableError
from docs_mcp.server.team.ratelimit import Decision, Limit, MemoryLimiter, RedisLimiter, check_redis, refill

SIX_A_MINUTE = Limit(per_minute=6, burst=3)  # one token every 10 s


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def take_all(limiter, bucket: str, limit: Limit, count: int) -> list[Decision]:  # type: ignore[no-untyped-def]
    async def run() -> list[Decision]:
        return [await limiter.take(bucket, limit) for _ in range(count)]

    return anyio.run(run)


def test_refill_adds_tokens_for_elapsed_time_up_to_the_burst() -> None:
    assert refill(0.0, 10.0, SIX_A_MINUTE) == (True, 0.0)  # one token earned, and spent
    assert refill(0.0, 5.0, SIX_A_MINUTE) == (False, 0.5)
    assert refill(1.0, 3600.0, SIX_A_MINUTE) == (True, 2.0)  # capped at burst 3, minus this request
    assert refill(2.0, -5.0, SIX_A_MINUTE) == (True, 1.0)  # a clock going backwards earns nothing


def test_a_bucket_allows_its_burst_then_refuses_until_it_refills() -> None:
    clock = FakeClock()
    limiter = MemoryLimiter(clock)
    decisions = take_all(limiter, "alice", SIX_A_MINUTE, 4)
    assert [d.allowed for d in decisions] == [True, True, True, False]
    assert [d.remaining for d in decisions] == [2, 1, 0, 0]
    refused = decisions[-1]
    assert (refused.retry_after, refused.reset_seconds) == (10, 30)
    assert refused.headers() == [
        (b"x-ratelimit-limit", b"6"),
        (b"x-ratelimit-remaining", b"0"),
        (b"x-ratelimit-reset", b"30"),
    ]
    assert take_all(limiter, "bob", SIX_A_MINUTE, 1)[0].allowed  # buckets are per key
    clock.now += 10.0
    assert [d.allowed for d in take_all(limiter, "alice", SIX_A_MINUTE, 2)] == [True, False]


def test_retry_after_is_at_least_one_second() -> None:
    fast = Limit(per_minute=600_000, burst=1)
    assert Decision(False, fast, 0.999).retry_after == 1


def test_replicas_share_one_redis_bucket(redis_url: str) -> None:
    async def run() -> list[bool]:
        replica_a, replica_b = RedisLimiter(redis_url, "test-shared"), RedisLimiter(redis_url, "test-shared")
        other_deployment = RedisLimiter(redis_url, "test-other")
        try:
            taken = [
                await limiter.take("alice", SIX_A_MINUTE) for limiter in (replica_a, replica_b, replica_a, replica_b)
            ]
            assert [d.remaining for d in taken] == [2, 1, 0, 0]
            assert 1 <= taken[-1].retry_after <= 10
            assert (await other_deployment.take("alice", SIX_A_MINUTE)).allowed  # prefixes keep deployments apart
            return [d.allowed for d in taken]
        finally:
            for limiter in (replica_a, replica_b, other_deployment):
                await limiter.close()

    assert anyio.run(run) == [True, True, True, False]


def test_an_unreachable_redis_is_a_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"unix://{tmp_path}/no-redis.sock"
    with pytest.raises(RateLimiterUnavailableError, match="does not answer") as caught:
        check_redis(url)
    assert "redis_url" in caught.value.hint

    async def take() -> None:
        limiter = RedisLimiter(url, "x")
        try:
            await limiter.take("alice", SIX_A_MINUTE)
        finally:
            await limiter.close()

    with pytest.raises(RateLimiterUnavailableError):
        anyio.run(take)


def test_redis_limits_without_the_redis_extra_say_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "redis", None)  # as if `pip install docs-mcp` without [redis]
    with pytest.raises(RateLimiterUnavailableError) as caught:
        check_redis("redis://127.0.0.1:1/0")
    assert "not installed" in caught.value.message and "docs-mcp[redis]" in caught.value.hint
