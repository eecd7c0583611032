"""The fetcher against a real site on 127.0.0.1: every SSRF case refused, limits, retries, conditional GETs."""

from __future__ import annotations

import pytest
from docs_site import open_fetcher

from docs_mcp.indexer.sources.errors import (
    InvalidContentError,
    RemotePageNotFoundError,
    SourceUnavailableError,
    UrlNotAllowedError,
)
from docs_mcp.indexer.sources.web.fetch import Fetcher
from docs_mcp.indexer.sources.web.safety import FetchPolicy, check_address, check_url, host_allowed, loopback_allowed

PAGE = "# Retries\n\nThe client retries failed requests with exponential backoff.\n"
LOOPBACK = FetchPolicy(allowed_domains=frozenset({"127.0.0.1", "localhost"}), allow_loopback=True, timeout=0.5)


class Sleeps:
    """An injected sleep: records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def fetcher(policy: FetchPolicy = LOOPBACK, **kwargs) -> tuple[Fetcher, Sleeps]:
    sleeps = Sleeps()
    return open_fetcher(policy, sleep=sleeps, **kwargs), sleeps


def test_a_page_is_fetched_with_its_validators(site):
    url = site.serve("/retries.md", PAGE, etag='"v1"', last_modified="Mon, 02 Nov 2026 10:00:00 GMT")
    got = fetcher()[0].get(url)
    assert (got.status, got.body.decode(), got.etag, got.last_modified) == (
        200,
        PAGE,
        '"v1"',
        "Mon, 02 Nov 2026 10:00:00 GMT",
    )


def test_a_conditional_get_sends_the_validators_and_takes_a_304(site):
    url = site.serve("/retries.md", PAGE, etag='"v1"', last_modified="Mon, 02 Nov 2026 10:00:00 GMT")
    got = fetcher()[0].get(url, etag='"v1"', last_modified="Mon, 02 Nov 2026 10:00:00 GMT")
    assert got.not_modified and got.body == b""
    sent = site.hits("/retries.md")[0].headers
    assert (sent["if-none-match"], sent["if-modified-since"]) == ('"v1"', "Mon, 02 Nov 2026 10:00:00 GMT")


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("file:///etc/passwd", "Only http and https"),
        ("ftp://127.0.0.1/docs.md", "Only http and https"),
        ("gopher://127.0.0.1:70/", "Only http and https"),
        ("http://user:secret@127.0.0.1/docs.md", "credentials"),
        ("https://evil.example.org/docs.md", "not on the allowlist"),
        ("http:///docs.md", "names no host"),
    ],
)
def test_urls_of_the_wrong_shape_or_domain_are_refused(url, words):
    with pytest.raises(UrlNotAllowedError, match=words) as caught:
        fetcher()[0].get(url)
    assert "secret" not in str(caught.value)


@pytest.mark.parametrize(
    "address",
    [
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.100.100.200",
        "0.0.0.0",
        "fe80::1",
        "fd00:ec2::254",
        "fc00::1",
        "::ffff:10.0.0.1",
        "224.0.0.1",
    ],
)
def test_private_link_local_and_metadata_addresses_are_refused_even_in_test_mode(address):
    with pytest.raises(UrlNotAllowedError, match="never fetched"):
        check_address(address, LOOPBACK, "docs.example.com")


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_loopback_is_refused_unless_the_test_mode_allows_it(address):
    check_address(address, LOOPBACK, "localhost")
    with pytest.raises(UrlNotAllowedError):
        check_address(address, FetchPolicy(allow_loopback=False), "localhost")


def test_loopback_is_refused_by_default_at_fetch_time(site):
    url = site.serve("/retries.md", PAGE)
    with pytest.raises(UrlNotAllowedError, match="127.0.0.1, a loopback address") as refused:
        fetcher(FetchPolicy(allowed_domains=frozenset({"127.0.0.1"})))[0].get(url)
    assert site.requests == []
    assert "DOCS_MCP_ALLOW_PRIVATE_FETCH=1" in refused.value.hint  # how to test against a local site


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("2002:7f00:1::1", "127.0.0.1 (6to4)"),
        ("2002:a9fe:a9fe::", "169.254.169.254 (6to4)"),
        ("2002:c0a8:101::", "192.168.1.1 (6to4)"),
        ("64:ff9b::7f00:1", "127.0.0.1 (NAT64)"),
        ("64:ff9b::a9fe:a9fe", "169.254.169.254 (NAT64)"),
        ("64:ff9b:1::a00:1", "10.0.0.1 (NAT64)"),
        ("::127.0.0.1", "127.0.0.1 (IPv4-compatible)"),
        ("::a9fe:a9fe", "169.254.169.254 (IPv4-compatible)"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1 (Teredo)"),
    ],
)
def test_ipv6_addresses_that_carry_a_private_ipv4_address_are_refused_even_in_test_mode(address, carried):
    with pytest.raises(UrlNotAllowedError, match="never fetched") as refused:
        check_address(address, LOOPBACK, "docs.example.com")
    assert f"carries the IPv4 address {carried}" in refused.value.message


@pytest.mark.parametrize(
    "address", ["2002:5db8:d822::1", "64:ff9b::5db8:d822", "2606:4700::6810:84e5", "93.184.216.34"]
)
def test_public_addresses_pass_also_through_6to4_and_nat64(address):
    check_address(address, FetchPolicy(), "docs.example.com")


def test_the_test_mode_is_off_unless_the_variable_is_exactly_1():
    assert [
        loopback_allowed(env)
        for env in ({}, {"DOCS_MCP_ALLOW_PRIVATE_FETCH": "true"}, {"DOCS_MCP_ALLOW_PRIVATE_FETCH": "1"})
    ] == [False, False, True]


def test_a_public_name_resolving_to_a_private_address_is_refused_before_connecting():
    policy = FetchPolicy(allowed_domains=frozenset({"docs.example.com"}), allow_loopback=True)
    f, _ = fetcher(policy, resolver=lambda host, port: ["93.184.216.34", "10.1.2.3"])
    with pytest.raises(UrlNotAllowedError, match="'docs.example.com' resolves to 10.1.2.3"):
        f.get("https://docs.example.com/guide.md")


def test_the_address_actually_connected_to_is_checked(site):
    """The resolver answers public for the check; the connection reaches loopback: refused."""
    url = site.serve("/retries.md", PAGE).replace("127.0.0.1", "localhost")
    policy = FetchPolicy(allowed_domains=frozenset({"localhost"}), allow_loopback=False)
    f, _ = fetcher(policy, resolver=lambda host, port: ["93.184.216.34"])
    with pytest.raises(UrlNotAllowedError, match="'localhost' resolves to 127.0.0.1"):
        f.get(url)


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.7/admin",
        "http://[fd00:ec2::254]/",
        "http://metadata.internal/",
    ],
)
def test_a_redirect_to_a_private_address_is_refused(site, target):
    url = site.serve("/moved", "", location=target)
    policy = LOOPBACK.allowing({"169.254.169.254", "10.0.0.7", "fd00:ec2::254", "metadata.internal"})
    resolver = lambda host, port: ["10.9.9.9"] if host == "metadata.internal" else [host]  # noqa: E731
    with pytest.raises(UrlNotAllowedError):
        fetcher(policy, resolver=resolver)[0].get(url)
    assert [r.path for r in site.requests] == ["/moved"]


def test_a_redirect_off_the_allowlist_is_refused_and_one_on_it_followed(site):
    site.serve("/old", "", location="https://elsewhere.example.net/page.md")
    with pytest.raises(UrlNotAllowedError, match="elsewhere.example.net"):
        fetcher()[0].get(site.url("/old"))
    site.serve("/new.md", PAGE)
    site.serve("/older", "", location="/new.md")
    got = fetcher()[0].get(site.url("/older"))
    assert (got.url, got.body.decode()) == (site.url("/new.md"), PAGE)


def test_a_redirect_loop_stops(site):
    site.serve("/a", "", location="/b")
    site.serve("/b", "", location="/a")
    with pytest.raises(SourceUnavailableError, match="more than 5 redirects"):
        fetcher()[0].get(site.url("/a"))


def test_a_body_over_the_size_limit_is_refused(site):
    url = site.serve("/huge.md", "word " * 1000)
    policy = FetchPolicy(allowed_domains=LOOPBACK.allowed_domains, allow_loopback=True, max_bytes=1000)
    with pytest.raises(InvalidContentError, match="larger than 1000 bytes"):
        fetcher(policy)[0].get(url)


def test_a_hung_source_is_cut_off_at_the_deadline_and_never_retried_past_it(site):
    url = site.serve("/slow.md", PAGE, hold=True)
    f, sleeps = fetcher(FetchPolicy(allowed_domains=LOOPBACK.allowed_domains, allow_loopback=True, timeout=0.2))
    with pytest.raises(
        SourceUnavailableError, match=r"did not answer within 0.2 s \(connecting, headers and body together, 1 attempt"
    ):
        f.get(url)
    assert sleeps.delays == []  # a retry would start past the deadline
    assert len(site.wait_for_hits("/slow.md", 1)) == 1


def test_transient_failures_are_retried_with_backoff_within_the_deadline(site):
    url = site.serve("/flaky.md", PAGE, failures=2)
    f, sleeps = fetcher(FetchPolicy(allowed_domains=LOOPBACK.allowed_domains, allow_loopback=True, timeout=10))
    assert f.get(url).body.decode() == PAGE
    assert sleeps.delays == [1.0, 3.0]


def test_no_retry_is_made_when_its_delay_would_end_past_the_deadline(site):
    url = site.serve("/down.md", PAGE, failures=5)
    f, sleeps = fetcher(FetchPolicy(allowed_domains=LOOPBACK.allowed_domains, allow_loopback=True, timeout=2))
    with pytest.raises(SourceUnavailableError, match="after 2 attempts: HTTP 503"):
        f.get(url)
    assert sleeps.delays == [1.0]  # 1 s fits in 2 s; then 1 + 3 s would not


def test_a_missing_page_is_not_retried(site):
    f, sleeps = fetcher()
    with pytest.raises(RemotePageNotFoundError, match="answered 404"):
        f.get(site.url("/nope.md"))
    assert sleeps.delays == [] and len(site.requests) == 1


def test_host_patterns():
    assert host_allowed("pydantic.readthedocs.io", {"*.readthedocs.io"})
    assert not host_allowed("readthedocs.io.evil.com", {"*.readthedocs.io"})
    assert not host_allowed("evilreadthedocs.io", {"*.readthedocs.io"})
    assert check_url(
        "https://Docs.Example.com:8443/x", FetchPolicy(allowed_domains=frozenset({"docs.example.com"}))
    ) == ("docs.example.com", 8443)


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "127.1"])
def test_numeric_spellings_of_loopback_are_refused(host):
    with pytest.raises(UrlNotAllowedError, match="resolves to 127.0.0.1"):
        fetcher(FetchPolicy(allowed_domains=frozenset({host})))[0].get(f"http://{host}/docs.md")


def test_a_name_that_resolves_to_nothing_is_unavailable():
    f, _ = fetcher(FetchPolicy(allowed_domains=frozenset({"docs.example.com"})), resolver=lambda host, port: [])
    with pytest.raises(SourceUnavailableError, match="cannot be resolved"):
        f.get("https://docs.example.com/guide.md")
