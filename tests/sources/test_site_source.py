"""`docs-mcp add site` and `refresh` as real subprocesses against real built sites on loopback:
a real MkDocs site (tests/sources/fixtures/mkdocs-site) and real Python documentation pages; then served over MCP."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp_session import serve_over_stdio
from site_server import serve_site
from test_source_commands import TEST_MODE, run

MKDOCS = Path(__file__).parent / "fixtures" / "mkdocs-site"
BUILT_FOR = "http://127.0.0.1:8000/"  # the site_url the fixture was built with


def mkdocs_routes(base: str) -> dict[str, tuple[int, str, bytes]]:
    """The site's own sitemap, its URLs moved to where the test serves it."""
    sitemap = (MKDOCS / "site" / "sitemap.xml").read_text(encoding="utf-8").replace(BUILT_FOR, base + "/")
    return {"/sitemap.xml": (200, "application/xml", sitemap.encode())}


@pytest.fixture
def mkdocs_site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(MKDOCS / "site", root)
    return root


def test_a_mkdocs_site_is_crawled_indexed_and_served(mkdocs_site: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    with serve_site(mkdocs_site, mkdocs_routes) as (base, log):
        added = run(
            "add",
            "site",
            base + "/",
            "--library",
            "fastapi/sample",
            "--index",
            str(index),
            "--model",
            "none",
            "--quiet",
            env=TEST_MODE,
        )
        assert added.returncode == 0, added.stderr
        assert added.stdout.splitlines()[0].startswith(f"added fastapi/sample: 7 pages from {base}/ in ")
        # The sample links pages it does not hold (and a template placeholder): three 404s, as on real sites.
        assert "(7 downloaded, 0 not modified, 0 duplicates, 0 skipped, 3 failed)" in added.stdout
        again = run(
            "add", "site", base + "/", "--library", "fastapi/sample", "--index", str(index), "--quiet", env=TEST_MODE
        )
        refreshed = run("refresh", "--index", str(index), env=TEST_MODE)
        statuses = log.statuses("/")  # folder URLs of the site: every page request
    assert (
        again.returncode == 0
        and "(0 downloaded, 7 not modified" in again.stdout
        and "unchanged (every page as indexed)" in again.stdout
    )
    assert refreshed.stdout.splitlines()[-2:] == [
        f"unchanged fastapi/sample  {base}/: 7 pages, 0 downloaded, 7 not modified", "1 library: 0 updated, 1 unchanged, 0 failed",
    ]  # fmt: skip
    assert statuses.count(200) == 7 and statuses.count(304) == 14  # the second crawl and the refresh download nothing
    entry = json.loads((index / "metadata.json").read_text(encoding="utf-8"))["libraries"]["fastapi/sample"]
    assert (entry["origin"], entry["source"], entry["scope"]) == ("site", base + "/", base + "/")
    paths = {item["path"]: item for item in entry["toc"]}
    background = paths["fastapi/sample/tutorial/background-tasks/index.html"]
    assert background["url"] == base + "/tutorial/background-tasks/" and background["title"] == "Background Tasks"
    assert background["section"] == "Tutorial - User Guide"  # the site's navigation names the section
    with serve_over_stdio(index, tmp_path / "server.log") as session:
        hit = session.search(query="BackgroundTasks add_task")["hits"][0]
        assert hit["filepath"] == "fastapi/sample/tutorial/background-tasks/index.html"
        by_url = json.loads(session.call("read_page", {"url": base + "/tutorial/background-tasks/"}).content[0].text)
        by_path = json.loads(
            session.call("read_page", {"path": "fastapi/sample/tutorial/background-tasks/index.html"}).content[0].text
        )
        info = json.loads(session.call("get_library_info", {"library_id": "fastapi/sample"}).content[0].text)
    assert by_url["content"] == by_path["content"] and "add_task" in by_url["content"]
    assert "Tutorial - User Guide" in info["available_sections"]


def test_a_site_that_is_not_html_documentation_is_refused(tmp_path: Path) -> None:
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.html").write_bytes(b"\x89PNG not html")

    def png(base: str) -> dict[str, tuple[int, str, bytes]]:
        return {"/index.html": (200, "image/png", b"\x89PNG")}

    with serve_site(tmp_path / "www", png) as (base, _):
        refused = run(
            "add",
            "site",
            base + "/index.html",
            "--library",
            "x/y",
            "--index",
            str(tmp_path / "index"),
            "--quiet",
            env=TEST_MODE,
        )
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "error: No HTML documentation page was found under" in refused.stderr


def test_without_the_test_switch_loopback_is_refused(mkdocs_site: Path, tmp_path: Path) -> None:
    with serve_site(mkdocs_site, mkdocs_routes) as (base, log):
        refused = run("add", "site", base + "/", "--library", "x/y", "--index", str(tmp_path / "index"), "--quiet")
    assert refused.returncode == 1 and "error:" in refused.stderr and log.requests == []


PYTHON_DOCS = Path("/usr/share/doc/python3/html")  # Debian's python3-doc (.ci/run installs it)


@pytest.mark.skipif(not (PYTHON_DOCS / "tutorial" / "index.html").is_file(), reason="python3-doc is not installed")
def test_the_python_tutorial_of_python3_doc_is_crawled_and_then_revalidated(tmp_path: Path) -> None:
    index = tmp_path / "index"
    with serve_site(PYTHON_DOCS.resolve()) as (base, log):
        first = run("add", "site", base + "/tutorial/index.html", "--library", "python/tutorial", "--index", str(index), "--model", "none",
                    "--quiet", env=TEST_MODE)  # fmt: skip
        second = run(
            "add",
            "site",
            base + "/tutorial/index.html",
            "--library",
            "python/tutorial",
            "--index",
            str(index),
            "--quiet",
            env=TEST_MODE,
        )
        pages = [status for path, status in log.requests if path.startswith("/tutorial/")]
    assert first.returncode == 0, first.stderr
    crawled = int(first.stdout.split(": ", 1)[1].split(" pages", 1)[0])
    assert (
        crawled >= 15 and f"({crawled} downloaded, 0 not modified" in first.stdout
    )  # the tutorial's chapters, nothing outside it
    assert f"(0 downloaded, {crawled} not modified" in second.stdout and pages.count(304) == crawled
    toc = json.loads((index / "metadata.json").read_text(encoding="utf-8"))["libraries"]["python/tutorial"]["toc"]
    assert {"python/tutorial/controlflow.html", "python/tutorial/venv.html"} <= {entry["path"] for entry in toc}


def html_page(title: str, *links: str) -> bytes:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return f"<html><body><h1>{title}</h1><p>{title}: how Skyhook retries failed requests.</p><ul>{anchors}</ul></body></html>".encode()


def test_pages_whose_paths_clash_as_file_and_folder_get_distinct_names(tmp_path: Path) -> None:
    # /docs/coll is written as coll.html, /docs/coll.html/ as coll.html/index.html: a file where a folder must go
    # (and Guide.html next to guide.html, one file where case is ignored). The add failed with FileExistsError.
    (tmp_path / "www").mkdir()

    def clashing(base: str) -> dict[str, tuple[int, str, bytes]]:
        html = "text/html; charset=utf-8"
        return {
            "/docs/": (200, html, html_page("Start", "coll", "coll.html/", "coll.html/deeper", "Guide.html", "guide.html")),
            "/docs/coll": (200, html, html_page("Collections")), "/docs/coll.html/": (200, html, html_page("Collection folder")),
            "/docs/coll.html/deeper": (200, html, html_page("Deeper")),
            "/docs/Guide.html": (200, html, html_page("Guide upper")), "/docs/guide.html": (200, html, html_page("Guide lower")),
        }  # fmt: skip

    index = tmp_path / "index"
    with serve_site(tmp_path / "www", clashing) as (base, _):
        added = run(
            "add",
            "site",
            base + "/docs/",
            "--library",
            "x/clash",
            "--index",
            str(index),
            "--model",
            "none",
            "--quiet",
            env=TEST_MODE,
        )
    assert added.returncode == 0, added.stderr
    assert "(6 downloaded, 0 not modified, 0 duplicates, 0 skipped" in added.stdout
    toc = json.loads((index / "metadata.json").read_text(encoding="utf-8"))["libraries"]["x/clash"]["toc"]
    urls = {entry["url"].removeprefix(base + "/docs/"): entry["path"].removeprefix("x/clash/") for entry in toc}
    assert len(set(urls.values())) == 6 and len({path.casefold() for path in urls.values()}) == 6
    assert (
        urls["coll"] == "coll.html"
        and urls["coll.html/"] == "coll.html-2/index.html"
        and urls["coll.html/deeper"] == "coll.html-2/deeper.html"
    )


def test_pages_in_another_charset_are_indexed_and_every_problem_counted_is_listed(tmp_path: Path) -> None:
    # The charset of a crawled page was its HTTP header's or its <meta>'s, lost when the page was written for the
    # build: both pages were "not UTF-8" problems, and `add` said "problems: 2 (listed above)" with none listed.
    (tmp_path / "www").mkdir()
    deep = b"<html><body>" + b"<div>" * 300 + b"<p>Too deep to convert.</p>" + b"</div>" * 300 + b"</body></html>"

    def charsets(base: str) -> dict[str, tuple[int, str, bytes]]:
        return {
            "/docs/": (200, "text/html", html_page("Start", "latin.html", "windows.html", "deep.html")),
            "/docs/latin.html": (
                200,
                "text/html; charset=iso-8859-1",
                html_page("Café crème").decode().encode("latin-1"),
            ),
            "/docs/windows.html": (
                200,
                "text/html",
                b'<meta charset="windows-1252">' + html_page("“Smart” quotes").decode().encode("cp1252"),
            ),
            "/docs/deep.html": (200, "text/html", deep),
        }

    index = tmp_path / "index"
    with serve_site(tmp_path / "www", charsets) as (base, _):
        added = run(
            "add",
            "site",
            base + "/docs/",
            "--library",
            "x/charsets",
            "--index",
            str(index),
            "--model",
            "none",
            "--quiet",
            env=TEST_MODE,
        )
    assert added.returncode == 0, added.stderr
    titles = {
        entry["title"]
        for entry in json.loads((index / "metadata.json").read_text(encoding="utf-8"))["libraries"]["x/charsets"]["toc"]
    }
    assert {"Café crème", "“Smart” quotes"} <= titles
    assert "  problems:     1 (listed above)" in added.stdout
    assert added.stderr.startswith("error: deep.html: its HTML nests")


def add_sample(base: str, index: str, *options: str) -> subprocess.CompletedProcess[str]:
    """`docs-mcp add site` of the sample served at ``base`` into ``index``."""
    return run("add", "site", base + "/", "--library", "fastapi/sample", "--index", index, *options, env=TEST_MODE)


def test_add_site_shows_the_crawl_and_then_the_build_s_progress(mkdocs_site: Path, tmp_path: Path) -> None:
    # stderr is a pipe here: plain lines. The build after the crawl (embedding every page) used to print nothing.
    with serve_site(mkdocs_site, mkdocs_routes) as (base, _):
        added = add_sample(base, str(tmp_path / "index"))
    assert added.returncode == 0, added.stderr
    lines = added.stderr.splitlines()
    crawled = [line for line in lines if line.startswith("crawling: ")]
    assert len(crawled) == 1 and crawled[0].startswith("crawling: 10/10 URLs (")  # the last count, under LOG_EVERY
    embedding = [line for line in lines if line.startswith("embedding ")]
    total = embedding[0].split()[1].split("/")[1]
    assert embedding[0] == f"embedding 0/{total} windows" and int(total) > 0
    assert embedding[-1].startswith(f"embedding {total}/{total} windows (") and "windows/s" in embedding[-1]
    assert lines.index(crawled[0]) < lines.index("reading the docs folder") < lines.index(embedding[0])
    assert any(line.startswith("hybrid search is live (") for line in lines[lines.index(embedding[-1]) :])


def test_refresh_shows_the_crawl_and_the_build_of_a_site_that_changed(mkdocs_site: Path, tmp_path: Path) -> None:
    index = str(tmp_path / "index")
    with serve_site(mkdocs_site, mkdocs_routes) as (base, _):
        added = add_sample(base, index, "--model", "none", "-q")
        page = mkdocs_site / "tutorial" / "background-tasks" / "index.html"
        page.write_text(
            page.read_text(encoding="utf-8").replace("Background Tasks", "Tasks After the Response"), encoding="utf-8"
        )
        refreshed = run("refresh", "--index", index, env=TEST_MODE)
    assert added.returncode == 0 and refreshed.returncode == 0, added.stderr + refreshed.stderr
    assert refreshed.stdout.splitlines()[-1] == "1 library: 1 updated, 0 unchanged, 0 failed"
    lines = refreshed.stderr.splitlines()
    crawled = [line for line in lines if line.startswith("crawling: 10/10 URLs (")]
    assert len(crawled) == 1 and lines.index(crawled[0]) < lines.index("reading the docs folder")
    assert any(line.startswith("full-text search is live (") for line in lines)
