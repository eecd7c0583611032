"""`docs-mcp add llms-txt` and `docs-mcp refresh` as real subprocesses against a site on loopback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from skyhook import SKYHOOK, serve_skyhook

TEST_MODE = {"DOCS_MCP_ALLOW_PRIVATE_FETCH": "1", "DOCS_MCP_CURATED_LIBRARIES": "0"}


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")}
    full = {**inherited, "DOCS_MCP_CUSTOM_LIBRARIES": "/nonexistent/custom-libraries.json", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, env=full, timeout=300
    )


def test_add_then_refresh(site, tmp_path: Path):
    llms = serve_skyhook(site)
    index = str(tmp_path / "index")
    added = run("add", "llms-txt", llms, "--library", SKYHOOK, "--index", index, "--language", "python", env=TEST_MODE)
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[0] == f"added {SKYHOOK} (Skyhook): 3 pages in 2 sections, from {llms}"
    assert "DOCS_MCP_ALLOW_PRIVATE_FETCH=1" in added.stderr  # the test mode is never on silently
    listed = json.loads(run("libraries", "--index", index, "--json").stdout)
    assert [(lib["library_id"], lib["source"], lib["languages"]) for lib in listed] == [(SKYHOOK, llms, ["python"])]
    refreshed = run("refresh", "--index", index, env=TEST_MODE)
    assert refreshed.returncode == 0, refreshed.stderr
    assert refreshed.stdout.splitlines() == [
        f"unchanged {SKYHOOK}  {llms}",
        "1 library: 0 updated, 1 unchanged, 0 failed",
    ]
    assert site.hits("/docs/llms.txt")[-1].headers["if-none-match"] == '"l1"'


def test_add_refuses_loopback_outside_the_test_mode_and_a_missing_llms_txt(site, tmp_path: Path):
    index = str(tmp_path / "index")
    refused = run("add", "llms-txt", site.url("/docs/llms.txt"), "--library", SKYHOOK, "--index", index)
    assert refused.returncode == 1 and "resolves to 127.0.0.1, a loopback address" in refused.stderr
    assert (
        "hint: To test against a site on this machine, set DOCS_MCP_ALLOW_PRIVATE_FETCH=1 in the environment"
        in refused.stderr
    )
    missing = run("add", "llms-txt", site.url("/nope/llms.txt"), "--library", SKYHOOK, "--index", index, env=TEST_MODE)
    assert missing.returncode == 1
    assert f"error: {site.url('/nope/llms.txt')} answered 404: the page does not exist." in missing.stderr
    assert "hint: Check the llms.txt URL of the library" in missing.stderr
    assert not (tmp_path / "index" / "CURRENT").exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://user:s3cretPW@host:99999/llms.txt",
        "https://user:s3cretPW@[::1/llms.txt",
        "https:/user:s3cretPW@docs.example.com/llms.txt",
    ],
)
def test_a_malformed_url_is_refused_without_showing_its_password(tmp_path: Path, url: str):
    refused = run("add", "llms-txt", url, "--library", SKYHOOK, "--index", str(tmp_path / "index"))
    assert refused.returncode == 1 and "error: " in refused.stderr
    assert "s3cretPW" not in refused.stdout + refused.stderr and "user:***@" in refused.stderr


def test_a_key_in_the_llms_txt_url_is_never_shown(site, tmp_path: Path):
    llms = serve_skyhook(site) + "?api_key=qSECRET"
    index = str(tmp_path / "index")
    shown = [
        run("add", "llms-txt", llms, "--library", SKYHOOK, "--index", index, env=TEST_MODE),
        run("libraries", "--index", index, "--json"),
        run("refresh", "--index", index, env=TEST_MODE),
    ]
    assert [done.returncode for done in shown] == [0, 0, 0], [done.stderr for done in shown]
    assert all("qSECRET" not in done.stdout + done.stderr for done in shown)
    assert "?api_key=***" in shown[0].stdout and "?api_key=***" in shown[2].stdout


def test_refresh_of_a_folder_without_an_index_says_so(tmp_path: Path):
    done = run("refresh", "--index", str(tmp_path / "typo"))
    assert (
        done.returncode == 1
        and f"error: No index at {tmp_path / 'typo'}." in done.stderr
        and "Traceback" not in done.stderr
    )


LISTING = """<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><html><head><title>Index of /docs</title></head><body>
<h1>Index of /docs</h1><pre><a href="?C=N;O=D">Name</a> <a href="?C=M;O=A">Last modified</a><hr>
<a href="/">Parent Directory</a>
<a href="guides/">guides/</a>                 2026-11-02 10:00    -
<a href="llms.txt">llms.txt</a>               2026-11-02 10:00  1.2K
</pre><hr></body></html>"""


def test_add_refuses_an_html_directory_listing_and_an_llms_txt_without_pages(site, tmp_path: Path):
    listing = site.serve("/docs/", LISTING, content_type="text/html;charset=UTF-8")
    done = run("add", "llms-txt", listing, "--library", SKYHOOK, "--index", str(tmp_path / "index"), env=TEST_MODE)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"error: {listing} serves an HTML page (text/html;charset=UTF-8), not an llms.txt" in done.stderr
    assert "hint: Pass the URL of the site's llms.txt itself" in done.stderr
    empty = site.serve(
        "/empty/llms.txt", "# Skyhook\n\n> An HTTP client.\n\nNo links here, only words.\n", content_type="text/plain"
    )
    done = run("add", "llms-txt", empty, "--library", SKYHOOK, "--index", str(tmp_path / "index"), env=TEST_MODE)
    assert done.returncode == 1 and f"error: {empty} lists no pages" in done.stderr
    assert not (tmp_path / "index" / "CURRENT").exists()


def test_refresh_exits_non_zero_when_every_url_failed(site, tmp_path: Path):
    llms = serve_skyhook(site)
    index = str(tmp_path / "index")
    assert run("add", "llms-txt", llms, "--library", SKYHOOK, "--index", index, env=TEST_MODE).returncode == 0
    site.close()  # the source is gone
    done = run("refresh", "--index", index, env=TEST_MODE)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "1 library: 0 updated, 0 unchanged, 1 failed"
    assert done.stdout.startswith(f"failed    {SKYHOOK}  {llms}: ") and "(kept the cached copy)" in done.stdout
