"""Scanning a docs folder: configuration precedence, taxonomy, metadata.json, and every bad input."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.indexer import scan_corpus
from docs_mcp.indexer.corpus.taxonomy import build_metadata
from docs_mcp.indexer.errors import CorpusNotFoundError, ManifestError
from docs_mcp.indexer.records import CorpusScan, ModelIdentity, Problem

MakeCorpus = Callable[[dict[str, str | bytes]], Path]
REPO = Path(__file__).resolve().parents[2]


def by_file(scan: CorpusScan) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for chunk in scan.chunks:
        out.setdefault(chunk.filepath, []).append(chunk.chunk_id)
    return out


def metadata_of(scan: CorpusScan, filepath: str) -> dict[str, str]:
    return next(dict(c.metadata) for c in scan.chunks if c.filepath == filepath)


def test_finds_markdown_and_skips_templates_hidden_paths_and_other_files(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            "a.md": "# A\n",
            "b.markdown": "# B\n",
            "c.mdx": "# C\n",
            "UPPER.MD": "# U\n",
            "prompts/help.template.md": "# Template\n",
            ".hidden/secret.md": "# Hidden\n",
            ".draft.md": "# Draft\n",
            "notes.txt": "not markdown",
        }
    )
    scan = scan_corpus(root)
    assert sorted(scan.files) == ["UPPER.MD", "a.md", "b.markdown", "c.mdx"]
    assert scan.problems == ()


def test_the_nearest_manifest_applies_on_its_own(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            ".docs-mcp.json": json.dumps({"strategy": {"chunk_by": "h3"}, "metadata": {"scope": "guide"}}),
            "top.md": "# T\n\n## S\n\n### D\n",
            "sub/.docs-mcp.json": json.dumps({"strategy": {"chunk_by": "h1"}}),
            "sub/deeper/page.md": "Lead.\n\n# One\n\n## Two\n",
        }
    )
    scan = scan_corpus(root)
    assert by_file(scan) == {
        "sub/deeper/page.md": ["sub/deeper/page.md#_preamble", "sub/deeper/page.md#one"],
        "top.md": ["top.md#_preamble", "top.md#t/s/d"],
    }
    assert metadata_of(scan, "top.md") == {"scope": "guide"}
    assert metadata_of(scan, "sub/deeper/page.md") == {}  # not merged with the root manifest


def test_front_matter_wins_over_overrides_which_win_over_the_manifest(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            ".docs-mcp.json": json.dumps(
                {
                    "strategy": {"chunk_by": "h2"},
                    "metadata": {"scope": "guide", "language": "any"},
                    "overrides": [
                        {"pattern": "sdk/**", "strategy": {"chunk_by": "file"}, "metadata": {"language": "go"}}
                    ],
                }
            ),
            "plain.md": "# P\n\n## S\n",
            "sdk/over.md": "# O\n\n## S\n",
            "sdk/front.md": "---\nmcp_chunking_hint: h2\nmetadata:\n  language: python\n---\n# F\n\n## S\n",
            "hinted.md": '<!-- mcp_chunking_hint: {"chunk_by": "file"} -->\n# H\n\n## S\n',
            "both.md": '---\nmcp_chunking_hint: h2\n---\n<!-- mcp_chunking_hint: {"chunk_by": "file"} -->\n# B\n\n## S\n',
        }
    )
    scan = scan_corpus(root)
    assert by_file(scan) == {
        "both.md": ["both.md#_preamble", "both.md#b/s"],
        "hinted.md": ["hinted.md"],
        "plain.md": ["plain.md#_preamble", "plain.md#p/s"],
        "sdk/front.md": ["sdk/front.md#_preamble", "sdk/front.md#f/s"],
        "sdk/over.md": ["sdk/over.md"],
    }
    assert metadata_of(scan, "plain.md") == {"scope": "guide", "language": "any"}
    assert metadata_of(scan, "sdk/over.md") == {"scope": "guide", "language": "go"}
    assert metadata_of(scan, "sdk/front.md") == {"scope": "guide", "language": "python"}


def test_titles_per_file(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {"h1.md": "# From H1\n", "front.md": "---\ntitle: From Front Matter\n---\ntext\n", "stem-only.md": "text\n"}
    )
    assert scan_corpus(root).files == {"front.md": "From Front Matter", "h1.md": "From H1", "stem-only.md": "stem-only"}


def test_taxonomy_values_are_discovered_sorted_distinct_with_casing_kept(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            "py.md": "---\nmetadata: {language: Python, scope: sdk}\n---\n# P\n\n## A\n\n## B\n",
            "go.md": "---\nmetadata: {language: go}\n---\n# G\n",
            "ts.md": "---\nmetadata: {language: TypeScript}\n---\n# T\n",
            "py2.md": "---\nmetadata: {language: Python}\n---\n# P2\n",
        }
    )
    scan = scan_corpus(root)
    assert [(k.name, k.values) for k in scan.taxonomy] == [
        ("language", ("Python", "TypeScript", "go")),
        ("scope", ("sdk",)),
    ]


def test_taxonomy_descriptions_come_from_metadata_json_then_manifests(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            "metadata.json": json.dumps(
                {"corpus_description": "the Acme SDK docs", "taxonomy": {"language": {"description": "SDK language"}}}
            ),
            ".docs-mcp.json": json.dumps(
                {
                    "metadata": {"language": "go", "scope": "guide"},
                    "taxonomy": {
                        "language": {"description": "ignored: metadata.json describes it", "vector_collapse": True},
                        "scope": {"description": "kind of page"},
                    },
                }
            ),
            "a.md": "# A\n",
        }
    )
    scan = scan_corpus(root)
    assert scan.corpus_description == "the Acme SDK docs"
    assert [(k.name, k.description, k.vector_collapse) for k in scan.taxonomy] == [
        ("language", "SDK language", True),
        ("scope", "kind of page", False),
    ]


def test_metadata_json_is_looked_for_in_the_root_then_its_parent(make_corpus: MakeCorpus, tmp_path: Path) -> None:
    root = make_corpus({"a.md": "# A\n"})
    assert (
        scan_corpus(root).corpus_description == f"{tmp_path.name} documentation"
    )  # a folder named docs names no library
    (tmp_path / "metadata.json").write_text('{"corpus_description": "from the parent"}', encoding="utf-8")
    assert scan_corpus(root).corpus_description == "from the parent"
    (root / "metadata.json").write_text('{"corpus_description": "from the root"}', encoding="utf-8")
    assert scan_corpus(root).corpus_description == "from the root"
    given = tmp_path / "other.json"
    given.write_text('{"corpus_description": "given"}', encoding="utf-8")
    assert scan_corpus(root, metadata_file=given).corpus_description == "given"


def test_a_given_metadata_file_that_does_not_exist_is_an_error(make_corpus: MakeCorpus, tmp_path: Path) -> None:
    root = make_corpus({"a.md": "# A\n"})
    with pytest.raises(ManifestError) as info:
        scan_corpus(root, metadata_file=tmp_path / "nope.json")
    assert "does not exist" in info.value.message and info.value.hint


def test_invalid_metadata_json_is_a_problem_not_a_failure(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"metadata.json": "{oops", "a.md": "# A\n"})
    scan = scan_corpus(root)
    assert scan.files == {"a.md": "A"}
    assert [p.severity for p in scan.problems] == ["error"]
    assert "metadata.json: invalid JSON at line 1" in str(scan.problems[0])


def test_build_metadata(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            "metadata.json": json.dumps(
                {
                    "taxonomy": {
                        "language": {
                            "description": "SDK",
                            "vector_collapse": True,
                            "filter_keeps": {"scope": "global*"},
                        }
                    }
                }
            ),
            "a.md": "---\nmetadata: {language: go}\n---\n# Alpha\n\n## One\n",
        }
    )
    scan = scan_corpus(root)
    model = ModelIdentity("fastembed", "minilm", 384, "abc")
    assert build_metadata(scan, indexed_at="2025-01-01T00:00:00Z", embedding=model) == {
        "metadata_version": "1",
        "corpus_description": f"{root.parent.name} documentation",
        "taxonomy": {
            "language": {
                "description": "SDK",
                "values": ["go"],
                "vector_collapse": True,
                "filter_keeps": {"scope": "global*"},
            }
        },
        "stats": {"chunks": 2, "files": 1, "indexed_at": "2025-01-01T00:00:00Z"},
        "embedding": {"provider": "fastembed", "model": "minilm", "dimensions": 384},
        "files": {"a.md": "Alpha"},
    }
    assert build_metadata(scan, indexed_at="t", embedding=None)["embedding"] is None


# --- bad input: each is one clear line naming the file, and never stops the scan ------------------


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(CorpusNotFoundError) as info:
        scan_corpus(tmp_path / "nope")
    assert "does not exist" in info.value.message and info.value.hint


def test_a_file_instead_of_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    with pytest.raises(CorpusNotFoundError, match="is not a folder"):
        scan_corpus(tmp_path / "a.md")


def test_folder_without_documentation_names_what_it_found(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"readme.txt": "hi", "prompts/x.template.md": "# T\n", "node_modules/pkg/README.md": "# P\n"})
    with pytest.raises(CorpusNotFoundError) as info:
        scan_corpus(root)
    assert info.value.message.endswith(
        "under " + str(root) + "; skipped 2 files: 1 in dependency folders (node_modules, virtualenvs), "
        "1 prompt templates (*.template.md); 1 file is not documentation (.txt 1)."
    )
    assert (
        "no documentation pages (*.md, *.markdown, *.mdx, *.rst, *.rest, *.html, *.htm, *.ipynb)" in info.value.message
    )


def test_invalid_manifest_json_is_reported_and_the_next_manifest_up_applies(make_corpus: MakeCorpus) -> None:
    root = make_corpus(
        {
            ".docs-mcp.json": json.dumps({"metadata": {"scope": "guide"}}),
            "sub/.docs-mcp.json": '{"strategy": {"chunk_by": "h1",}}',
            "sub/page.md": "# P\n\n## S\n",
        }
    )
    scan = scan_corpus(root)
    assert [str(p) for p in scan.problems] == [
        "sub/.docs-mcp.json: invalid JSON at line 1 column 32: Expecting property name enclosed in double quotes. "
        "Ignored this manifest. Fix the JSON (a validator or `python -m json.tool` shows where)."
    ]
    assert by_file(scan) == {"sub/page.md": ["sub/page.md#_preamble", "sub/page.md#p/s"]}
    assert metadata_of(scan, "sub/page.md") == {"scope": "guide"}


def test_invalid_front_matter_is_a_warning_and_the_page_is_indexed(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"bad.md": "---\ntitle: Broken\naliases:\n  - %\n---\nBody text.\n\n## Section\n"})
    scan = scan_corpus(root)
    assert scan.files == {"bad.md": "Broken"}
    assert [(p.path, p.severity) for p in scan.problems] == [("bad.md", "warning")]
    assert by_file(scan) == {"bad.md": ["bad.md#_preamble", "bad.md#section"]}


def test_non_utf8_file_is_skipped_with_a_problem(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"good.md": "# G\n", "latin1.md": "# Caf\xe9\n".encode("latin-1")})
    scan = scan_corpus(root)
    assert list(scan.files) == ["good.md"]
    assert [str(p) for p in scan.problems] == [
        "latin1.md: not UTF-8 text (byte 0xe9 at offset 5); skipped it. Re-save it as UTF-8."
    ]


def test_a_path_with_a_hash_is_skipped_because_its_chunk_ids_could_not_be_parsed(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"sdk/c#.md": "# C#\n\nText.\n", "sdk/go.md": "# Go\n\nText.\n"})
    scan = scan_corpus(root)
    assert {c.filepath for c in scan.chunks} == {"sdk/go.md"}
    assert [(p.path, p.severity) for p in scan.problems] == [("sdk/c#.md", "error")]
    assert "Rename the file" in scan.problems[0].message


def test_utf8_bom_and_crlf_are_accepted(make_corpus: MakeCorpus) -> None:
    root = make_corpus({"win.md": "\ufeff# Title\r\n\r\n## Sec\r\n\r\nText.\r\n".encode("utf-8")})
    scan = scan_corpus(root)
    assert [(c.chunk_id, c.content) for c in scan.chunks] == [
        ("win.md#_preamble", "# Title"),
        ("win.md#title/sec", "## Sec\n\nText."),
    ]


def test_empty_files_are_skipped_with_a_warning_and_front_matter_only_pages_without(make_corpus: MakeCorpus) -> None:
    root = make_corpus({
        "empty.md": "", "blank.md": "\n  \n", "ok.md": "# OK\n",
        "redirect.md": "---\ntitle: API reference\nredirect: https://pkg.go.dev/example\n---\n",  # a site generator's stub
    })  # fmt: skip
    scan = scan_corpus(root)
    assert list(scan.files) == ["ok.md"]
    assert scan.skipped == ("blank.md", "empty.md", "redirect.md")
    assert [(p.path, p.severity) for p in scan.problems] == [("blank.md", "warning"), ("empty.md", "warning")]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symlinks are not available on this platform")
def test_symlinks_leaving_the_root_are_refused_and_inside_ones_followed(
    make_corpus: MakeCorpus, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n", encoding="utf-8")
    root = make_corpus({"real.md": "# Real\n", "folder/inner.md": "# Inner\n"})
    (root / "escape.md").symlink_to(outside / "secret.md")
    (root / "escape-dir").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "real.md")
    (root / "alias-dir").symlink_to(root / "folder", target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "missing.md")
    scan = scan_corpus(root)
    assert sorted(scan.files) == ["alias.md", "folder/inner.md", "real.md"]
    assert [(p.path, p.message.split(";")[0]) for p in scan.problems] == [
        ("dangling.md", "broken symlink"),
        ("escape-dir", f"symlink leaves the docs root (points to {outside.resolve()})"),
        ("escape.md", f"symlink leaves the docs root (points to {(outside / 'secret.md').resolve()})"),
    ]
    assert all(isinstance(p, Problem) and p.severity == "error" for p in scan.problems)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.text(max_size=200))
def test_any_file_content_gives_chunks_or_problems_never_an_exception(data: bytes, text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "bytes.md").write_bytes(data)
        (root / "text.md").write_text("---\n" + text, encoding="utf-8", errors="surrogatepass")
        (root / ".docs-mcp.json").write_bytes(data)
        scan = scan_corpus(root)
    for name in ("bytes.md", "text.md"):  # each page is indexed, skipped, or reported
        assert name in scan.files or name in scan.skipped or any(p.path == name for p in scan.problems)
    assert all(c.filepath in scan.files for c in scan.chunks)


# --- the bundled corpus ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled() -> CorpusScan:
    if not (REPO / "corpus").is_dir():
        pytest.skip("the bundled corpus/ folder is absent")
    return scan_corpus(REPO / "corpus")


# The bundled corpus is also the user guide: these pin what matters of its chunking (the
# manifests' strategies and taxonomy, the ID grammar), so editing the guide's prose does not
# fail the suite. tests/eval/test_golden_corpus.py checks that every golden entry still resolves.


def test_the_bundled_corpus_indexes_without_problems(bundled: CorpusScan) -> None:
    assert bundled.problems == ()
    assert set(bundled.files) == {c.filepath for c in bundled.chunks}
    assert len({c.chunk_id for c in bundled.chunks}) == len(bundled.chunks)


def test_the_bundled_corpus_holds_the_guide_and_three_sdks(bundled: CorpusScan) -> None:
    top = {
        path.split("/")[0] if not path.startswith("sdk/") else "/".join(path.split("/")[:2]) for path in bundled.files
    }
    assert top >= {"guide", "sdk/go", "sdk/python", "sdk/typescript"}
    assert not any(path.endswith(".template.md") for path in bundled.files)  # prompt templates are not searched


def test_the_bundled_manifests_set_the_taxonomy(bundled: CorpusScan) -> None:
    for chunk in bundled.chunks:
        parts = chunk.filepath.split("/")
        if parts[0] == "sdk" and len(parts) > 2:
            assert dict(chunk.metadata) == {"language": parts[1], "scope": "sdk-specific"}, chunk.chunk_id
        else:
            assert dict(chunk.metadata) == {"scope": "global-guide"}, chunk.chunk_id
    assert [(key.name, key.values) for key in bundled.taxonomy] == [
        ("language", ("go", "python", "typescript")),
        ("scope", ("global-guide", "sdk-specific")),
    ]


def test_the_bundled_strategies_split_at_h2_and_troubleshooting_at_h3(bundled: CorpusScan) -> None:
    for chunk in bundled.chunks:
        deepest = 3 if chunk.filepath == "guide/troubleshooting.md" else 2
        assert 0 <= chunk.heading_level <= deepest, chunk.chunk_id
    assert any(c.heading_level == 3 for c in bundled.chunks if c.filepath == "guide/troubleshooting.md")


def test_bundled_chunk_ids_follow_the_grammar(bundled: CorpusScan) -> None:
    for chunk in bundled.chunks:
        filepath, _, path = chunk.chunk_id.partition("#")
        assert filepath == chunk.filepath and chunk.breadcrumb.startswith(filepath)
        if chunk.heading_level == 0:
            assert path in ("", "_preamble"), chunk.chunk_id
        else:
            assert path and all(re.fullmatch(r"[a-z0-9_]+(?:-[a-z0-9_]+)*", slug) for slug in path.split("/")), (
                chunk.chunk_id
            )
            assert chunk.breadcrumb.endswith(" > " + chunk.heading), chunk.chunk_id
