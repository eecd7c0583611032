"""What `docs-mcp add site` says when it cannot crawl, as real subprocesses against a real site on loopback: a start
URL that answers 404 is named with its status, a loopback site without the test switch is refused with the switch to
set for the command, and a private address with the way forward (a mirror on disk, indexed as a folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from site_server import serve_site
from test_source_commands import TEST_MODE, run

from docs_mcp.indexer.sources.errors import UrlNotAllowedError
from docs_mcp.indexer.sources.web.safety import FetchPolicy, check_address

PRIVATE_HINT = (
    "hint: Only public documentation sites are fetched. For a site on a private network, mirror it (e.g. wget --mirror "
    "--no-parent URL) and index the folder: docs-mcp index FOLDER --library ORG/NAME."
)


def _site(tmp_path: Path) -> Path:
    (tmp_path / "www" / "docs").mkdir(parents=True)
    (tmp_path / "www" / "docs" / "index.html").write_text("<html><head><title>Guide</title></head><body><main><h1>Guide</h1>"
                                                         "<p>Install it.</p></main></body></html>", encoding="utf-8")  # fmt: skip
    return tmp_path / "www"


def test_a_start_url_that_answers_404_is_named_with_its_status(tmp_path: Path) -> None:
    with serve_site(_site(tmp_path)) as (base, _):
        refused = run(
            "add",
            "site",
            f"{base}/docs/start.html",
            "--library",
            "x/y",
            "--index",
            str(tmp_path / "index"),
            "--quiet",
            env=TEST_MODE,
        )
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.splitlines()[:2] == [
        f"error: No HTML documentation page was found under {base}/docs/ (0 skipped, 1 failed): {base}/docs/start.html answered 404: "
        "the page does not exist.",
        "hint: Check the URL (the crawl stays under its folder), or the site's robots.txt.",
    ]  # fmt: skip


def test_a_loopback_site_without_the_test_switch_is_refused_with_the_switch_for_the_command(tmp_path: Path) -> None:
    with serve_site(_site(tmp_path)) as (base, log):
        refused = run("add", "site", f"{base}/docs/", "--library", "x/y", "--index", str(tmp_path / "index"), "--quiet")
    assert refused.returncode == 1 and log.requests == []
    assert "hint: To test against a site on this machine, set DOCS_MCP_ALLOW_PRIVATE_FETCH=1 in the environment of the docs-mcp " \
           "command or server that fetches it (local testing only, never in production); public documentation sites need no setting." \
           in refused.stderr  # fmt: skip


@pytest.mark.parametrize(("address", "message"), [
    ("10.1.2.3", "'wiki.corp' resolves to 10.1.2.3, a private, link-local, reserved or metadata address; it is never fetched."),
    ("2002:a01:203::1", "'wiki.corp' resolves to 2002:a01:203::1, which carries the IPv4 address 10.1.2.3 (6to4); a private, loopback, "
                        "link-local or metadata address is never fetched."),
])  # fmt: skip
def test_a_private_address_is_refused_with_the_way_to_read_its_site_from_disk(address: str, message: str) -> None:
    # The check alone: an address is judged before any connection, and a test never sends anything off loopback.
    with pytest.raises(UrlNotAllowedError) as refused:
        check_address(address, FetchPolicy(frozenset({"wiki.corp"})), "wiki.corp")
    assert (refused.value.message, f"hint: {refused.value.hint}") == (message, PRIVATE_HINT)
