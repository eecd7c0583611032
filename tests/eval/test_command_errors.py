"""Bad input to eval, bench and train-ranking: an `error:` line and a `hint:`, a non-zero exit, no traceback, before the work."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

SKYLINE = Path(__file__).parent / "fixtures" / "skyline"
CASES = str(SKYLINE / "cases.json")
ON_TOPIC = {"query": "fahrenheit instead of celsius", "relevant": [{"chunk_id": "guides/units.md", "grade": 2}]}
OFF_TOPIC = {"query": "sourdough starter feeding schedule", "style": "off-topic", "relevant": []}
# What the commands start once their input is checked: none of it may run when an output path is wrong.
WORK = (
    "docs_mcp.eval.runner.evaluate",
    "docs_mcp.eval.bench.run_bench",
    "docs_mcp.eval.train_ranking.train_file",
    "docs_mcp.eval.bench_index.bench_index",
)


def golden(tmp_path: Path, *queries: dict, name: str = "golden.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(query) + "\n" for query in queries), encoding="utf-8")
    return path


def messages(err: str) -> list[str]:
    """The `error:` and `hint:` lines of a command's stderr (progress lines aside)."""
    return [line for line in err.splitlines() if line.startswith(("error: ", "hint: "))]


@pytest.fixture
def no_work(monkeypatch) -> None:
    def started(*args, **kwargs):
        raise AssertionError("the work started before the command line was checked")

    for target in WORK:
        monkeypatch.setattr(target, started)


# -- 1: grades must be finite numbers, and a NaN never passes the gate -------------------------------------------------


@pytest.mark.parametrize(
    ("grade", "problem"),
    [
        ("Infinity", "`grade` must be a finite number above 0 (2 best, 1 partly relevant), got inf"),
        ("1e400", "`grade` must be a finite number above 0 (2 best, 1 partly relevant), got inf"),
        (None, "no `grade`; give 2 for the best answer, 1 for a partly relevant one"),
    ],
)
def test_a_grade_that_is_not_a_finite_number_is_refused_before_the_gate(
    run_cli, skyline_text_index, tmp_path, grade, problem
):
    entry = '{"chunk_id": "guides/units.md"' + (f', "grade": {grade}' if grade else "") + "}"
    path = tmp_path / "grades.jsonl"
    path.write_text(json.dumps(ON_TOPIC) + "\n" + '{"query": "celsius", "relevant": [' + entry + "]}\n")
    code, _, err = run_cli(
        "eval", str(path), "--index", str(skyline_text_index), "--mode", "bm25", "--min-ndcg", "0.99"
    )
    assert code == 1 and "Traceback" not in err and "gate passed" not in err
    assert messages(err)[0] == f"error: {path}, line 2: relevant entry 1: {problem}"


def test_an_ndcg_that_is_not_a_number_fails_the_gate(run_cli, skyline_text_index, tmp_path, monkeypatch):
    from docs_mcp.eval.runner import EvalResult

    measured = EvalResult.overall
    monkeypatch.setattr(EvalResult, "overall", lambda self: dataclasses.replace(measured(self), ndcg=math.nan))
    code, _, err = run_cli(
        "eval",
        str(golden(tmp_path, ON_TOPIC)),
        "--index",
        str(skyline_text_index),
        "--mode",
        "bm25",
        "--min-ndcg",
        "0.5",
    )
    assert code == 1 and "gate passed" not in err
    assert messages(err)[0] == "error: NDCG@5 is not a number (nan), so it cannot pass --min-ndcg 0.5000."


# -- 2: train-ranking says how many queries it needs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("queries", "held"),
    [
        ((ON_TOPIC,), "1 on-topic and 0 off-topic"),
        ((ON_TOPIC,) * 4 + (OFF_TOPIC,), "4 on-topic and 1 off-topic"),
        ((ON_TOPIC,) * 5, "5 on-topic and 0 off-topic"),
    ],
)
def test_train_ranking_says_how_many_queries_it_needs_before_opening_an_index(
    run_cli, skyline_text_index, tmp_path, queries, held
):
    out = tmp_path / "rankers.json"
    # A full-text index: the vectors check would fail too, so the counts are checked first.
    code, _, err = run_cli(
        "train-ranking", "--set", f"{golden(tmp_path, *queries)}={skyline_text_index}", "--out", str(out)
    )
    assert code == 1 and "Traceback" not in err and not out.exists()
    assert messages(err) == [
        f'error: Training needs at least 5 on-topic queries and 1 off-topic query ("style": "off-topic"); the --set golden files hold {held}.',
        "hint: Add graded queries, and questions the docs do not answer with style off-topic, to the golden files.",
    ]


# -- 3: output paths are checked before the work ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "error", "hint"),
    [
        (
            ("eval", CASES, "--json", "{missing}/x.json"),
            "--json {missing}/x.json: folder {missing} does not exist.",
            "Create the folder first",
        ),
        (
            ("eval", CASES, "--report", "{file}/x.html"),
            "--report {file}/x.html: {file} is a file, not a folder.",
            "Pass a path inside a folder.",
        ),
        (
            ("eval", CASES, "--json", "{folder}"),
            "--json {folder}: is a folder.",
            "Pass a file path, e.g. {folder}/out.json.",
        ),
        (
            ("train-ranking", "--set", f"{CASES}=index", "--out", "{missing}/d/r.json"),
            "--out {missing}/d/r.json: folder {missing}/d does not exist.",
            "Create the folder first",
        ),
        (
            ("bench", "--sizes", "10", "--embeddings", "none", "--queries", "10", "--json", "{missing}/x.json"),
            "--json {missing}/x.json: folder {missing} does not exist.",
            "Create the folder first",
        ),
        (
            ("bench", "--sizes", "10", "--embeddings", "none", "--work-dir", "{file}"),
            "--work-dir {file}: is a file, not a folder.",
            "Pass a folder",
        ),
        (
            ("bench", "--sizes", "10", "--embeddings", "none", "--work-dir", "{file}/sub"),
            "--work-dir {file}/sub: {file} is a file, not a folder.",
            "Pass a path inside a folder.",
        ),
        (
            ("bench-index", str(SKYLINE / "docs"), "--json", "{folder}"),
            "--json {folder}: is a folder.",
            "Pass a file path",
        ),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_work(
    run_cli, no_work, tmp_path, args, error, hint
):
    (tmp_path / "file.txt").write_text("not a folder")
    places = {"missing": tmp_path / "missing", "file": tmp_path / "file.txt", "folder": tmp_path}
    code, _, err = run_cli(*(arg.format(**places) for arg in args))
    assert code == 2 and "Traceback" not in err
    shown = messages(err)
    assert shown[0] == f"error: {error.format(**places)}"
    assert shown[1].startswith(f"hint: {hint.format(**places)}")


# -- 4: a baseline of the wrong shape -------------------------------------------------------------------------------


def test_a_baseline_with_the_right_outline_but_wrong_types_is_named(run_cli, skyline_text_index, tmp_path):
    baseline = tmp_path / "before.json"
    baseline.write_text('{"version": 1, "runs": {"hybrid": {"overall": "x"}}}')
    code, _, err = run_cli(
        "eval", CASES, "--index", str(skyline_text_index), "--mode", "bm25", "--baseline", str(baseline)
    )
    assert code == 1 and "Traceback" not in err
    assert messages(err) == [
        f"error: Baseline {baseline}: run 'hybrid': `overall` is not an object.",
        "hint: Pass a file written by an earlier `docs-mcp eval ... --json FILE`.",
    ]


# -- 5 and 6: bench's corpus folder and sizes -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["missing", "file", "empty"])
def test_bench_of_a_folder_that_is_no_corpus_prints_the_error_index_prints(run_cli, tmp_path, kind):
    corpus = tmp_path / kind
    if kind == "file":
        corpus.write_text("# not a folder\n")
    elif kind == "empty":
        corpus.mkdir()
    code, _, err = run_cli(
        "bench",
        "--corpus",
        str(corpus),
        "--embeddings",
        "none",
        "--queries",
        "10",
        "--work-dir",
        str(tmp_path / "work"),
    )
    index_code, _, index_err = run_cli("index", str(corpus), "--out", str(tmp_path / "index"), "--embeddings", "none")
    assert code == index_code == 1
    assert "Traceback" not in err and "prepare" not in err
    assert messages(err) == messages(index_err) and len(messages(err)) == 2


@pytest.mark.parametrize("sizes", ["99999999999999999999999", "1000,10000001"])
def test_bench_refuses_a_size_above_ten_million_chunks_and_takes_ten_million(run_cli, monkeypatch, sizes):
    plans = []
    monkeypatch.setattr("docs_mcp.eval.bench.run_bench", lambda plan, work_dir, progress: plans.append(plan) or [])
    code, _, err = run_cli("bench", "--sizes", sizes, "--embeddings", "none")
    assert code == 2 and "Traceback" not in err and plans == []
    assert messages(err)[0].endswith("chunks is above the largest synthetic corpus, 10,000,000 chunks.")
    assert messages(err)[1].startswith("hint: The published benchmarks go up to 1,000,000 chunks")
    code, _, _ = run_cli("bench", "--sizes", "10000000", "--embeddings", "none")
    assert code == 0 and [plan.sizes for plan in plans] == [(10_000_000,)]


# -- 7: golden and gateway files that are not what they should be ---------------------------------------------------


@pytest.mark.parametrize(
    ("content", "error", "hint"),
    [
        ("folder", "{path}: is a folder, not a golden JSONL file", "hint: Pass a golden query file"),
        (
            b"\x00\x01\xff\xfe binary",
            "{path}: is not UTF-8 text (byte 2 cannot be decoded)",
            "hint: Save the golden file as UTF-8",
        ),
        (None, "{path}: does not exist", "hint: Pass a golden query file"),
    ],
)
def test_a_golden_path_that_is_no_golden_file_says_what_it_is(run_cli, tmp_path, content, error, hint):
    path = tmp_path / "golden.jsonl"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    code, _, err = run_cli("eval", str(path), "--index", str(tmp_path))
    assert code == 1 and "Traceback" not in err and "`query`" not in err
    assert messages(err)[0] == f"error: {error.format(path=path)}"
    assert messages(err)[1].startswith(hint)


def test_a_golden_file_with_a_byte_order_mark_is_read(run_cli, skyline_text_index, tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes("\ufeff".encode() + (json.dumps(ON_TOPIC) + "\n").encode())
    code, out, err = run_cli("eval", str(path), "--index", str(skyline_text_index), "--mode", "bm25")
    assert (code, messages(err)) == (0, [])
    assert out.splitlines()[2].split()[:2] == ["uncategorized", "1"]


@pytest.mark.parametrize(
    ("args", "option"),
    [(("eval", CASES, "--gateway"), "--gateway"), (("bench-gateway", "--golden", CASES, "--tool", "a:b"), "CONFIG")],
)
def test_a_gateway_config_that_does_not_exist_is_named(run_cli, tmp_path, args, option):
    config = tmp_path / "nowhere.toml"
    command_line = [*args, str(config)] if option == "--gateway" else [args[0], str(config), *args[1:]]
    code, _, err = run_cli(*command_line)
    assert code == 1 and "Traceback" not in err
    assert messages(err) == [
        f"error: {option} {config}: does not exist.",
        "hint: Pass the config file (TOML, e.g. docs-mcp.toml) that lists the [[upstream]] servers.",
    ]
