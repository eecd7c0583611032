"""Manifests: validation with errors that say what to fix, resolution, and override globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.indexer.corpus.manifest import KeyConfig, glob_regex, load_manifest, parse_manifest, resolve
from docs_mcp.indexer.errors import ManifestError
from docs_mcp.indexer.records import Strategy


def test_parse_a_full_manifest() -> None:
    manifest = parse_manifest(
        {
            "version": "1",
            "strategy": {"chunk_by": "h3", "max_chunk_size": 900},
            "metadata": {"language": " go "},
            "taxonomy": {
                "language": {
                    "description": "SDK language",
                    "vector_collapse": True,
                    "filter_keeps_unset": True,
                    "filter_keeps": {"scope": "global*"},
                }
            },
            "overrides": [{"pattern": "./models/**", "strategy": {"chunk_by": "file"}, "metadata": {"scope": "ref"}}],
            "mcpServerInstructions": "ignored, not ours",
        },
        "sdk",
    )
    assert manifest.folder == "sdk"
    assert manifest.strategy == Strategy("h3", 900)
    assert dict(manifest.metadata) == {"language": "go"}
    assert dict(manifest.taxonomy) == {"language": KeyConfig("SDK language", True, True, (("scope", "global*"),))}
    assert manifest.overrides[0].pattern == "models/**"


def test_overrides_match_relative_to_the_manifest_folder_and_the_last_match_wins() -> None:
    manifest = parse_manifest(
        {
            "strategy": {"chunk_by": "h2"},
            "metadata": {"scope": "guide", "language": "go"},
            "overrides": [
                {"pattern": "models/**", "strategy": {"chunk_by": "file"}, "metadata": {"scope": "reference"}},
                {"pattern": "models/*.md", "strategy": {"chunk_by": "h3"}},
            ],
        },
        "sdk",
    )
    assert resolve(manifest, "sdk/models/link.md") == (Strategy("h3"), {"scope": "reference", "language": "go"})
    assert resolve(manifest, "sdk/models/deep/link.md") == (Strategy("file"), {"scope": "reference", "language": "go"})
    assert resolve(manifest, "sdk/guide.md") == (Strategy("h2"), {"scope": "guide", "language": "go"})


def test_no_manifest_gives_the_defaults() -> None:
    assert resolve(None, "a.md") == (Strategy("h2", 20_000), {})


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("big/**", "big/big.md", True),
        ("big/**", "big/a/b.md", True),
        ("big/**", "bigger/a.md", False),
        ("*.md", "a.md", True),
        ("*.md", "sub/a.md", False),
        ("**/*.md", "a.md", True),
        ("**/*.md", "x/y/a.md", True),
        ("guides/?.md", "guides/a.md", True),
        ("{api,ref}/*.md", "ref/x.md", True),
        ("[ab].md", "b.md", True),
        ("[!ab].md", "b.md", False),
        ("a+b.md", "a+b.md", True),
    ],
)
def test_glob_patterns(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).fullmatch(path)) is matches


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / ".docs-mcp.json"
    path.write_text('{"version": "1",\n "strategy": }', encoding="utf-8")
    with pytest.raises(ManifestError) as info:
        load_manifest(path, "")
    assert info.value.message.startswith("invalid JSON at line 2")
    assert "Fix the JSON" in info.value.hint


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([], "must be a JSON object"),
        ({"version": "2"}, "unsupported manifest version '2'"),
        ({"strategy": {"chunk_by": "h4"}}, "chunk_by must be one of h1, h2, h3, file (not 'h4')"),
        ({"strategy": {"max_chunk_size": 0}}, "chunk_by must be one of h1, h2, h3, file (it is missing)"),
        ({"strategy": {"chunk_by": "h2", "max_chunk_size": 0}}, "max_chunk_size must be a positive whole number"),
        ({"strategy": "h2"}, "`strategy` must be an object"),
        ({"metadata": {"language": 3}}, "`metadata.language` must be a non-empty string"),
        ({"overrides": {}}, "`overrides` must be a list"),
        ({"overrides": [{"metadata": {}}]}, "`overrides[0]` needs a non-empty `pattern`"),
        ({"taxonomy": {"language": "x"}}, "`taxonomy` must map each key to an object"),
        (
            {"taxonomy": {"language": {"vector_collapse": "yes"}}},
            "vector_collapse and filter_keeps_unset true or false",
        ),
        ({"taxonomy": {"language": {"filter_keeps_unset": 1}}}, "vector_collapse and filter_keeps_unset true or false"),
        (
            {"taxonomy": {"language": {"filter_keeps": ["scope"]}}},
            "`taxonomy.language.filter_keeps` must map a taxonomy key to a glob",
        ),
        (
            {"taxonomy": {"language": {"filter_keeps": {"scope": ""}}}},
            "`taxonomy.language.filter_keeps` must map a taxonomy key to a glob",
        ),
    ],
)
def test_invalid_manifests_say_which_field_is_wrong(data: object, says: str) -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest(data)
    assert says in info.value.message
    assert info.value.hint
