"""`docs-mcp add github:OWNER/REPO[@REF]` as a real subprocess against a loopback GitHub-API lookalike serving a real `git archive`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from corpus_files import write_corpus
from mcp_session import serve_over_stdio
from site_server import serve_site
from test_archive import git, repository  # noqa: F401 - the repository fixture
from test_github import TOKEN, github_lookalike
from test_source_commands import TEST_MODE, run

from docs_mcp.indexer.duckdb_store import open_store


@contextmanager
def github_serving(repo: Path, tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Any]]:
    """The repository's HEAD archived as GitHub serves it, on a loopback lookalike: (commit, `add`'s environment, request log)."""
    sha = git(repo, "rev-parse", "HEAD").decode().strip()
    archive = git(repo, "archive", "--format=tar.gz", f"--prefix=acme-widget-{sha[:7]}/", "HEAD")
    with serve_site(tmp_path, github_lookalike(archive, sha)) as (base, log):
        yield (
            sha,
            {**TEST_MODE, "DOCS_MCP_GITHUB_API": base, "GITHUB_TOKEN": TOKEN, "DOCS_MCP_FETCH_ALLOW": "localhost"},
            log,
        )


def test_a_repository_is_indexed_at_a_commit_and_refreshed_by_its_ref(repository: Path, tmp_path: Path) -> None:  # noqa: F811
    index = tmp_path / "index"
    with github_serving(repository, tmp_path) as (sha, env, log):
        added = run("add", "github:acme/widget", "--index", str(index), "--model", "none", env=env)
        again = run("add", "github:acme/widget", "--index", str(index), env=env)
        refreshed = run("refresh", "acme/widget", "--index", str(index), env=env)
        archives = [path for path, _ in log.requests if path.startswith("/codeload/")]
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[0] == f"added acme/widget: github:acme/widget@main at commit {sha[:12]}"
    assert TOKEN not in added.stdout + added.stderr + again.stdout + refreshed.stdout
    assert (
        "unchanged (every page as indexed)" in again.stdout and len(archives) == 1
    )  # the same commit is not downloaded again
    assert refreshed.stdout.splitlines()[0] == f"unchanged acme/widget  github:acme/widget@main: commit {sha[:12]}"
    metadata = json.loads((index / "metadata.json").read_text(encoding="utf-8"))
    entry = metadata["libraries"]["acme/widget"]
    assert (entry["origin"], entry["repository"], entry["ref"], entry["commit"]) == (
        "github",
        "acme/widget",
        "main",
        sha,
    )
    # node_modules and the committed file .gitignore names are not indexed
    assert sorted(item["path"] for item in entry["toc"]) == [
        "acme/widget/README.md",
        "acme/widget/docs/api/index.md",
        "acme/widget/docs/guide.rst",
    ]
    assert TOKEN not in (index / "metadata.json").read_text(encoding="utf-8")
    with serve_over_stdio(index, tmp_path / "server.log") as session:
        hit = session.search(query="install widget")["hits"][0]
        page = session.call("get_doc", {"chunk_id": hit["chunk_id"]}).content[0].text
        missing = session.call("get_doc", {"chunk_id": "acme/widget/docs/drafts/wip.md#work-in-progress"})
    assert hit["chunk_id"] == "acme/widget/docs/guide.rst#guide/installing"  # the .rst page's heading path
    assert page.splitlines()[0] == "--- Chunk: acme/widget/docs/guide.rst#guide/installing (Chunk 2 of 2) (Target) ---"
    assert "pip install widget" in page
    assert missing.is_error and "wip" in missing.content[0].text


def test_a_missing_repository_is_one_clear_line(tmp_path: Path) -> None:
    with serve_site(tmp_path, lambda base: {}) as (base, _):
        missing = run(
            "add",
            "github:acme/nothing@v1",
            "--index",
            str(tmp_path / "index"),
            env={**TEST_MODE, "DOCS_MCP_GITHUB_API": base},
        )
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    assert (
        "error: GitHub has no repository or ref acme/nothing (a private repository needs a token: set GITHUB_TOKEN)."
        in missing.stderr
    )


def test_a_hostile_repository_reads_nothing_outside_its_archive_and_each_bad_page_is_its_own_problem(
    tmp_path: Path,
) -> None:
    """A repository's `.rst` page included a fragment with `:parser: rst`, in which `csv-table :file: /proc/self/environ`
    put the environment (the GITHUB_TOKEN `add` runs with) into the index; a malformed notebook aborted the `add`."""
    repo = write_corpus(tmp_path / "repo", {
        "README.md": "# Widget\n\nA widget library.\n",
        "docs/page.rst": "Page\n====\n\nOwn words.\n\n.. include:: inner.rst\n   :parser: rst\n",
        "docs/inner.rst": "Inner\n-----\n\n.. csv-table:: Environment\n   :file: /proc/self/environ\n\n.. include:: /proc/self/environ\n   :literal:\n",
        "docs/heading.ipynb": json.dumps({"cells": [{"cell_type": "heading", "level": "abc", "source": "Heading words"}]}),
        "docs/deep.ipynb": '{"cells": [], "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}",
    })  # fmt: skip
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "docs")
    index = tmp_path / "index"
    with github_serving(repo, tmp_path) as (_, env, _):
        added = run("add", "github:acme/widget", "--index", str(index), "--model", "none", env=env)
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr and TOKEN not in added.stdout + added.stderr
    assert (
        "error: docs/deep.ipynb: its JSON nests too many levels deep (at most 100 are converted); skipped it."
        in added.stderr
    )
    assert "problems:     3 (listed above)" in added.stdout  # and listed they are (add printed none before)
    store = open_store(index)
    try:
        pages = {
            page: "\n".join(store.page_contents(f"acme/widget/docs/{page}"))
            for page in ("page.rst", "inner.rst", "heading.ipynb")
        }
    finally:
        store.close()
    assert "Own words." in pages["page.rst"] and pages["heading.ipynb"].startswith("# Heading words")
    assert not any(TOKEN in text or "PATH=" in text for text in pages.values())


def test_add_github_shows_the_build_s_progress_unless_quiet(repository: Path, tmp_path: Path) -> None:  # noqa: F811
    # stderr is a pipe here: plain lines. The build after the download used to print nothing.
    with github_serving(repository, tmp_path) as (_, env, _):
        added = run("add", "github:acme/widget", "--index", str(tmp_path / "index"), "--model", "none", env=env)
        quiet = run("add", "github:acme/widget", "--index", str(tmp_path / "other"), "--model", "none", "-q", env=env)
    assert added.returncode == 0 and quiet.returncode == 0, added.stderr + quiet.stderr
    lines = added.stderr.splitlines()
    assert lines.index("reading the docs folder") < lines.index("writing the full-text index")
    assert any(line.startswith("full-text search is live (") for line in lines)
    assert "reading the docs folder" not in quiet.stderr and "search is live" not in quiet.stderr
