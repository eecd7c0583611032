"""What a docs folder walk reads and skips: .gitignore (nested, negated, above the root), dependency folders,
virtualenvs, build outputs, include/exclude globs from the command line and manifests, and the counts it reports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from corpus_files import write_corpus as tree

from docs_mcp.indexer.corpus.discover import discover
from docs_mcp.indexer.corpus.file_rules import COUNT_CAP, FileRules, count_files
from docs_mcp.indexer.corpus.scan import scan_corpus

PAGE = "# Page\n\nSome text.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project the way teams have them: a git work tree, docs beside code, dependencies and builds around."""
    root = tree(
        tmp_path / "project",
        {
            ".gitignore": "*.secret.md\ngenerated/\n",
            "README.md": PAGE,
            "docs/index.md": PAGE,
            "docs/guide.rst": "Guide\n=====\n\nText.\n",
            "docs/notes.secret.md": PAGE,
            "docs/generated/api.md": PAGE,
            "docs/drafts/.gitignore": "*.md\n!keep.md\n",
            "docs/drafts/wip.md": PAGE,
            "docs/drafts/keep.md": PAGE,
            "docs/_build/html/index.html": "<html><body><h1>Built</h1><p>A built page.</p></body></html>",
            "site/index.html": "<html><body><h1>Site</h1><p>A built site.</p></body></html>",
            "node_modules/pkg/README.md": PAGE,
            "node_modules/pkg/docs/api.md": PAGE,
            "env/pyvenv.cfg": "home = /usr/bin\n",
            "env/lib/python3.11/site-packages/pkg/README.md": PAGE,
            "src/app.py": "print('hi')\n",
            "docs/logo.png": "png",
            ".github/workflows/ci.md": PAGE,
        },
    )
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_a_project_reads_its_docs_and_counts_the_rest(project: Path) -> None:
    found = discover(project)
    assert sorted(found.pages) == ["README.md", "docs/drafts/keep.md", "docs/guide.rst", "docs/index.md"]
    # node_modules' 2 files, the virtualenv's 2 (pyvenv.cfg too); .github's file is hidden, .git's are not counted.
    assert found.skipped == {"build": 2, "dependencies": 4, "gitignored": 3, "hidden": 1}
    assert found.other_files == {".png": 1, ".py": 1}


def test_gitignore_files_above_the_docs_root_apply(project: Path) -> None:
    found = discover(project / "docs")
    assert sorted(found.pages) == ["drafts/keep.md", "guide.rst", "index.md"]
    assert found.skipped == {"build": 1, "gitignored": 3}


def test_a_root_that_git_ignores_is_still_read(project: Path) -> None:
    assert sorted(discover(project / "docs" / "generated").pages) == ["api.md"]


def test_the_folder_given_is_never_skipped_itself(project: Path) -> None:
    assert sorted(discover(project / "node_modules").pages) == ["pkg/README.md", "pkg/docs/api.md"]
    assert sorted(discover(project / "site").pages) == ["index.html"]


def test_switches_turn_the_default_skips_off(project: Path) -> None:
    everything = discover(project, FileRules(gitignore=False, skip_defaults=False))
    assert {
        "docs/notes.secret.md",
        "docs/_build/html/index.html",
        "node_modules/pkg/README.md",
        "site/index.html",
    } <= set(everything.pages)
    assert ".github/workflows/ci.md" not in everything.pages  # hidden folders stay hidden


def test_include_globs_select_files_and_open_a_skipped_folder(project: Path) -> None:
    found = discover(project, FileRules(include=("site/**", "docs/*.rst")))
    assert sorted(found.pages) == ["docs/guide.rst", "site/index.html"]
    assert (
        found.skipped["not-included"] == 5
    )  # README.md, docs/index.md, docs/drafts/keep.md, docs/logo.png, src/app.py
    assert "build" in found.skipped  # docs/_build is still a build output


def test_exclude_globs_drop_files_and_folders(project: Path) -> None:
    found = discover(project, FileRules(exclude=("docs/drafts/**", "*.rst")))
    assert sorted(found.pages) == ["README.md", "docs/index.md"]
    assert found.skipped["excluded"] == 4  # the drafts folder's 3 files (its .gitignore too) are not walked; guide.rst


def test_manifest_globs_apply_to_their_folder(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "docs",
        {
            ".docs-mcp.json": json.dumps({"version": "1", "exclude": ["internal/**"]}),
            "a.md": PAGE,
            "internal/secret.md": PAGE,
            "api/.docs-mcp.json": json.dumps({"version": "1", "include": ["v2/**"]}),
            "api/v1/old.md": PAGE,
            "api/v2/new.md": PAGE,
        },
    )
    scan = scan_corpus(root)
    assert sorted(scan.files) == ["a.md", "api/v2/new.md"]
    assert scan.skipped_files == {"excluded": 1, "not-included": 1}


def test_a_manifest_glob_of_the_wrong_type_is_named(tmp_path: Path) -> None:
    root = tree(
        tmp_path / "docs",
        {".docs-mcp.json": json.dumps({"version": "1", "exclude": "drafts/**", "include": [3]}), "a.md": PAGE},
    )
    (problem,) = scan_corpus(root).problems
    assert problem.path == ".docs-mcp.json" and "`include` must be a list of glob patterns." in problem.message


def test_the_cli_reports_what_it_skipped(project: Path, cli) -> None:
    code, out, err = cli("validate", str(project))
    assert code == 0, err
    assert out.splitlines()[1] == (
        "skipped 10 files: 4 in dependency folders (node_modules, virtualenvs), 3 ignored by .gitignore, "
        "2 in build outputs (_build, site, dist, build, ...), 1 hidden; 2 files are not documentation (.png 1, .py 1)"
    )
    code, out, err = cli("index", str(project), "--out", str(project.parent / "index"), "--embeddings", "none", "--quiet",
                         "--exclude", "README.md", "--no-gitignore")  # fmt: skip
    assert code == 0, err
    assert (
        "  not read:     skipped 8 files: 4 in dependency folders (node_modules, virtualenvs), 2 in build outputs"
        in out
    )
    assert "indexed 6 files" in out  # the gitignored pages are read now, README.md is not


def test_counting_a_huge_folder_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import docs_mcp.indexer.corpus.file_rules as file_rules

    for n in range(5):
        (tmp_path / f"f{n}").write_text("x")
    assert count_files(tmp_path) == 5
    monkeypatch.setattr(file_rules, "COUNT_CAP", 3)
    assert file_rules.count_files(tmp_path) == 3 < COUNT_CAP
