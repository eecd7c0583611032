"""The fetcher against a hostile site on 127.0.0.1: one deadline per fetch, whatever the site does.

Every misbehaviour here is real bytes on a real socket (tests/hostile/hostile_site.py). A
deadline covers connecting, the response headers, the body and every retry together, so a
site that keeps each read just inside a per-read timeout is still cut off.
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace

import pytest
from hostile_site import deep_html, endless_body, lying_length, silent, slow_body, slow_headers, whole

from docs_mcp.indexer.sources.errors import InvalidContentError, SourceUnavailableError, UrlNotAllowedError
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.fetch_pool import FetchPool
from docs_mcp.indexer.sources.web.safety import FetchPolicy

PAGE = b"# Retries\n\nThe client retries failed requests with exponential backoff.\n"
POLICY = FetchPolicy(
    allowed_domains=frozenset({"127.0.0.1", "localhost", "docs.hostile.test"}), allow_loopback=True, timeout=1.0
)


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def fetcher(policy: FetchPolicy = POLICY, **kwargs) -> tuple[Fetcher, Sleeps]:
    sleeps = Sleeps()
    return Fetcher(policy, sleep=sleeps, **kwargs), sleeps


def test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_deadline(hostile):
    url = hostile.route("/slow-headers.md", slow_headers(PAGE, every=0.05))  # ~100 header bytes: 5 s, each read in time
    f, sleeps = fetcher()
    with pytest.raises(
        SourceUnavailableError, match=r"did not answer within 1 s \(connecting, headers and body together, 1 attempt\)"
    ):
        f.get(url)
    assert (hostile.hits("/slow-headers.md"), sleeps.delays) == (1, [])  # no retry past the deadline
    f.close()


def test_a_body_sent_a_byte_at_a_time_is_cut_off_at_the_deadline(hostile):
    url = hostile.route("/slow-body.md", slow_body(PAGE, every=0.05))
    f, sleeps = fetcher()
    with pytest.raises(SourceUnavailableError, match="did not answer within 1 s"):
        f.get(url)
    assert (hostile.hits("/slow-body.md"), sleeps.delays) == (1, [])
    f.close()


def test_a_server_that_never_answers_is_cut_off_once(hostile):
    url = hostile.route("/silent.md", silent())
    f, sleeps = fetcher()
    with pytest.raises(SourceUnavailableError, match="did not answer within 1 s"):
        f.get(url)
    assert (hostile.hits("/silent.md"), sleeps.delays) == (1, [])
    f.close()


def test_a_content_length_that_lies_is_cut_off_at_the_deadline(hostile):
    url = hostile.route("/lying.md", lying_length(1_000_000, PAGE))
    f, _ = fetcher()
    with pytest.raises(SourceUnavailableError, match="did not answer within 1 s"):
        f.get(url)
    f.close()


def test_a_body_that_never_ends_stops_at_the_size_limit(hostile):
    url = hostile.route("/endless.md", endless_body(every=0.0))
    f, _ = fetcher(
        FetchPolicy(allowed_domains=POLICY.allowed_domains, allow_loopback=True, timeout=10, max_bytes=200_000)
    )
    with pytest.raises(InvalidContentError, match="larger than 200000 bytes"):
        f.get(url)
    f.close()


def test_a_slow_site_holds_only_its_own_slots_of_the_pool(hostile):
    """Four reads of a silent host with two slots per host: two run, two wait; another host is fetched meanwhile."""
    silent_url = hostile.route("/silent.md", silent())
    good_url = hostile.route("/good.md", whole(PAGE)).replace("127.0.0.1", "localhost")
    pool = FetchPool(capacity=8, per_host=2)
    f, _ = fetcher(FetchPolicy(allowed_domains=POLICY.allowed_domains, allow_loopback=True, timeout=3.0), pool=pool)
    errors: list[str] = []

    def read_silent(timeout: float) -> None:
        try:
            f.get(silent_url, policy=replace(f.policy, timeout=timeout))
        except SourceUnavailableError as error:
            errors.append(error.message)

    # The two that wait give up at 1 s, before the two running ones free their slots at 3 s (a waiter with the
    # same deadline, started a moment later, would get a slot for that moment on a busy machine).
    threads = [threading.Thread(target=read_silent, args=(3.0,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    assert eventually(lambda: pool.load().running == 2)
    threads += [threading.Thread(target=read_silent, args=(1.0,)) for _ in range(2)]
    for thread in threads[2:]:
        thread.start()
    assert eventually(lambda: pool.load().running == 2 and pool.load().waiting == 2)
    assert f.get(good_url).body == PAGE  # not stuck behind the slow host
    for thread in threads:
        thread.join(30)
    assert hostile.hits("/silent.md") == 2  # the two that waited never reached the site
    assert (
        sorted(e.split(" ", 1)[1][:29] for e in errors)
        == ["did not answer within 3 s (co"] * 2 + ["was not fetched: the 2 fetch "] * 2
    )
    assert pool.load().as_json() == {"running": 0, "waiting": 0, "capacity": 8, "per_host": 2}
    f.close()


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("2002:7f00:1::1", "127.0.0.1 (6to4)"),
        ("2002:a9fe:a9fe::1", "169.254.169.254 (6to4)"),
        ("64:ff9b::7f00:1", "127.0.0.1 (NAT64)"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1 (Teredo)"),
        ("::127.0.0.1", "127.0.0.1 (IPv4-compatible)"),
    ],
)
def test_a_name_resolving_to_an_ipv6_address_that_carries_loopback_is_refused_before_connecting(
    hostile, address, carried
):
    hostile.route("/page.md", whole(PAGE))
    f, _ = fetcher(resolver=lambda host, port: [address])
    with pytest.raises(UrlNotAllowedError, match=re.escape(f"carries the IPv4 address {carried}")):
        f.get(f"http://docs.hostile.test:{hostile.port}/page.md")
    assert hostile.requests == []
    f.close()


def test_deep_html_is_refused_with_what_it_is(hostile):
    from docs_mcp.indexer.sources.web.convert import to_markdown

    url = hostile.route("/deep.html", whole(deep_html(330), "text/html"))
    f, _ = fetcher()
    with pytest.raises(InvalidContentError, match="its HTML nests 333 levels deep"):
        to_markdown(f.get(url))
    f.close()


def eventually(condition, timeout: float = 20.0) -> bool:
    """Whether ``condition`` became true within ``timeout`` (checked on a short wait, not a sleep in the test's logic)."""
    done = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if condition():
            return True
        done.wait(0.01)
    return condition()
