"""`docs-mcp eval` and `docs-mcp bench`: options in, one library call, tables out.

Heavy imports (the MCP SDK, duckdb, the engine) happen inside the commands so that
`docs-mcp --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from docs_mcp.indexer.commands import human_size
from docs_mcp.indexer.schema import DEFAULT_INDEX_DIR
from docs_mcp.server.search.modes import Mode

if TYPE_CHECKING:  # the runner imports the MCP SDK: inside the commands only
    from docs_mcp.eval.runner import EvalResult


class ExpansionUse(StrEnum):
    none = "none"
    typed = "typed"
    concatenated = "concatenated"


class Embeddings(StrEnum):
    auto = "auto"
    default = "default"
    none = "none"
    synthetic = "synthetic"


def register(app: typer.Typer) -> None:
    """Add this area's commands to the root `docs-mcp` app."""
    app.command("eval")(eval_command)
    app.command("bench")(bench_command)
    app.command("bench-index")(bench_index_command)
    app.command("bench-serve")(bench_serve_command)
    app.command("bench-gateway")(bench_gateway_command)
    app.command("train-ranking")(train_ranking_command)


@contextmanager
def progress_bar(label: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr; yields a ``(done, total)`` callback."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = Console(stderr=True)
    # Only on a terminal: in CI logs and pipes a progress bar is noise.
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def eval_command(
    golden: Path = typer.Argument(
        ..., help="Golden queries: JSON or JSONL (ours, ../shared/golden's, or the reference server's cases)."
    ),
    index: Path = typer.Option(Path(DEFAULT_INDEX_DIR), "--index", help="Index directory built by `docs-mcp index`."),
    k: int = typer.Option(5, "--k", min=1, max=50, help="Cutoff of every metric (NDCG@k, MRR@k, hit@k, recall@k)."),
    mode: Mode = typer.Option(
        Mode.hybrid,
        "--mode",
        help="Ranking: hybrid (the fusion, identifiers first, calibrated scores, off-topic gate), fusion (BM25 + vectors alone), bm25 or vector only.",
    ),
    compare: bool = typer.Option(
        False, "--compare", help="Run hybrid, fusion, bm25 and vector and print them side by side."
    ),
    via_mcp: bool = typer.Option(
        False, "--via-mcp", help="Spawn `docs-mcp serve` and query it over stdio instead of in-process."
    ),
    json_file: Path | None = typer.Option(
        None, "--json", help="Write every figure and each query's ranked chunk IDs to this file."
    ),
    baseline: Path | None = typer.Option(None, "--baseline", help="An earlier --json file: print deltas against it."),
    min_ndcg: float | None = typer.Option(
        None, "--min-ndcg", min=0.0, max=1.0, help="Exit with status 1 if NDCG@k of --mode is below this (CI gate)."
    ),
    report: Path | None = typer.Option(
        None, "--report", help="Write a self-contained HTML report (charts, per-query list) to this file."
    ),
    gateway: Path | None = typer.Option(
        None,
        "--gateway",
        help="Evaluate tool_discovery instead: rank the tools of this config file's [[upstream]] servers.",
    ),
    expansions: ExpansionUse = typer.Option(
        ExpansionUse.none,
        "--expansions",
        help="Queries' agent-written expansions: none (ask the query alone), typed (search_docs_expanded's parts) "
        "or concatenated (appended to the query in search_docs).",
    ),
) -> None:
    """Measure search quality on golden queries: NDCG@k, MRR@k, hit@k, recall@k and latency, per category."""
    from docs_mcp.eval.errors import EvalRunError
    from docs_mcp.eval.golden import load_golden
    from docs_mcp.eval.path_checks import check_output_file
    from docs_mcp.eval.report import baseline_run, load_baseline, render_compare, render_run, report_dict, write_json

    check_output_file(json_file, "--json")
    check_output_file(report, "--report")
    old = load_baseline(baseline) if baseline else None
    queries = load_golden(golden)
    modes = [mode, *(m for m in Mode if m != mode)] if compare else [mode]
    results = []
    with _runner(queries, index, gateway, k, via_mcp, expansions.value) as run:
        for name in modes:
            try:
                with progress_bar(f"eval {name}") as advance:
                    results.append(run(name, advance))
            except EvalRunError as error:
                if not compare or name == mode:
                    raise
                typer.echo(f"skipping mode {name}: {error.message}", err=True)
    primary = results[0]
    if compare and len(results) > 1:
        typer.echo(render_compare(results).rstrip("\n"))
    if not compare or old:
        typer.echo(render_run(primary, baseline_run(old, primary.mode) if old else None).rstrip("\n"))
    if json_file:
        write_json(report_dict(results, str(golden)), json_file)
        typer.echo(f"wrote {json_file}", err=True)
    if report:
        from docs_mcp.eval.html_report import render_html

        report.write_text(render_html(results, str(golden)), encoding="utf-8")
        typer.echo(f"wrote {report}", err=True)
    if min_ndcg is not None:
        _quality_gate(primary.overall().ndcg, min_ndcg, k)


def _quality_gate(ndcg: float, minimum: float, k: int) -> None:
    """Pass when ``ndcg`` reaches ``minimum`` (a NaN never does).

    Raises:
        QualityGateError: it does not.
    """
    from docs_mcp.eval.errors import QualityGateError

    if not ndcg >= minimum:
        raise QualityGateError(ndcg, minimum, k)
    typer.echo(f"NDCG@{k} {ndcg:.4f} >= --min-ndcg {minimum:.4f}: gate passed", err=True)


@contextmanager
def _runner(
    queries, index: Path, gateway: Path | None, k: int, via_mcp: bool, expansions: str = "none"
) -> Iterator[Callable[..., EvalResult]]:
    """``run(mode, progress)`` against the index, or against a gateway's tool catalog (started once, closed after)."""
    from docs_mcp.eval.runner import evaluate

    if gateway is None:
        yield lambda mode, advance: evaluate(
            queries, index, k=k, mode=mode, via_mcp=via_mcp, progress=advance, expansions=expansions
        )
        return
    from docs_mcp.eval.gateway_eval import evaluate_gateway, gateway_for_eval

    service = gateway_for_eval(gateway)
    try:
        yield lambda mode, advance: evaluate_gateway(queries, service, k=k, mode=mode, progress=advance)
    finally:
        service.close()


def bench_command(
    sizes: str = typer.Option(
        "1000,10000,100000", "--sizes", help="Synthetic corpus sizes in chunks, comma-separated."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the synthetic corpora (same seed, same corpora)."),
    corpus: Path | None = typer.Option(
        None, "--corpus", help="Benchmark this docs folder instead of synthetic corpora."
    ),
    embeddings: Embeddings = typer.Option(
        Embeddings.auto,
        "--embeddings",
        help="default: the real model; none: full-text only; synthetic: random unit vectors (latency only); "
        "auto: the real model up to --max-embed chunks, synthetic vectors above.",
    ),
    max_embed: int = typer.Option(
        10_000, "--max-embed", min=0, help="With --embeddings auto: largest size embedded with the real model."
    ),
    queries: int = typer.Option(200, "--queries", min=10, help="Warm queries timed per mode."),
    search_workers: int | None = typer.Option(
        None,
        "--search-workers",
        min=1,
        max=64,
        help="Search workers for the serving-path throughput (default: one per core, as serve over http).",
    ),
    work_dir: Path | None = typer.Option(
        None, "--work-dir", help="Keep corpora and indexes here (default: a temporary folder)."
    ),
    json_file: Path | None = typer.Option(None, "--json", help="Write the figures to this file."),
) -> None:
    """Benchmark indexing and search: time, index size, peak memory, latency p50/p95/p99 warm and cold."""
    from docs_mcp.eval.bench import BenchPlan, render_bench, run_bench, write_bench_json
    from docs_mcp.eval.path_checks import check_output_file, check_output_folder

    size_list = _parse_sizes(sizes)
    check_output_file(json_file, "--json")
    check_output_folder(work_dir, "--work-dir")
    plan = BenchPlan(
        sizes=size_list,
        seed=seed,
        corpus=corpus,
        embeddings=embeddings.value,
        max_embed=max_embed,
        queries=queries,
        **({"workers": search_workers} if search_workers else {}),
    )
    with progress_bar("bench") as advance:
        results = run_bench(plan, work_dir, progress=advance)
    typer.echo(render_bench(results).rstrip("\n"))
    if json_file:
        write_bench_json(plan, results, json_file)
        typer.echo(f"wrote {json_file}", err=True)


def _parse_sizes(sizes: str) -> tuple[int, ...]:
    """The chunk counts of ``--sizes``.

    Raises:
        UsageError: not a list of positive integers, or a size above MAX_SYNTHETIC_CHUNKS.
    """
    from docs_mcp.errors import UsageError
    from docs_mcp.eval.bench import MAX_SYNTHETIC_CHUNKS

    try:
        size_list = tuple(int(s) for s in sizes.split(",") if s.strip())
    except ValueError:
        size_list = ()
    if not size_list or min(size_list) < 1:
        raise UsageError(
            f"--sizes {sizes!r} is not a comma-separated list of positive integers.", "Example: --sizes 1000,10000"
        )
    if max(size_list) > MAX_SYNTHETIC_CHUNKS:
        raise UsageError(
            f"--sizes {max(size_list):,} chunks is above the largest synthetic corpus, {MAX_SYNTHETIC_CHUNKS:,} chunks.",
            "The published benchmarks go up to 1,000,000 chunks; pass sizes within the limit, e.g. --sizes 100000,1000000.",
        )
    return size_list


def bench_index_command(
    docs_dir: Path = typer.Argument(
        ..., help="Folder of documentation to benchmark (markdown, reStructuredText, HTML, notebooks, MDX)."
    ),
    json_file: Path | None = typer.Option(None, "--json", help="Also write the figures to this JSON file."),
) -> None:
    """Time three builds of DOCS_DIR in temporary folders (full text only, with embeddings, unchanged re-index)."""
    import orjson

    from docs_mcp.eval.bench_index import bench_index as run_bench
    from docs_mcp.eval.path_checks import check_output_file

    check_output_file(json_file, "--json")
    typer.echo(f"benchmarking {docs_dir} (three builds in child processes)...", err=True)
    result = run_bench(docs_dir)
    typer.echo(
        f"{'run':<22}{'files':>7}{'chunks':>8}{'embedded':>10}{'reused':>8}{'seconds':>9}{'chunks/s':>10}{'windows/s':>11}"
        f"{'peak RSS':>10}{'size':>10}"
    )
    for run in result.runs:
        rate = "-" if run.windows_per_second is None else f"{run.windows_per_second:.1f}"
        typer.echo(
            f"{run.label:<22}{run.files:>7}{run.chunks:>8}{run.embedded:>10}{run.reused:>8}{run.seconds:>9.1f}"
            f"{run.chunks_per_second:>10.1f}{rate:>11}{human_size(run.peak_rss_bytes):>10}{human_size(run.index_bytes):>10}"
        )
    for run in result.runs:
        stages = ", ".join(f"{stage} {seconds:.1f}" for stage, seconds in run.stage_seconds.items() if seconds >= 0.05)
        live = ", ".join(f"{label} after {seconds:.1f} s" for label, seconds in run.live_after.items())
        load = (
            "" if run.load_average is None else f"; load average {run.load_average[0]:.2f} -> {run.load_average[1]:.2f}"
        )
        typer.echo(f"  {run.label}: live: {live}; seconds per stage: {stages}; CPU {run.cpu_seconds:.1f} s{load}")
    if json_file:
        json_file.write_bytes(orjson.dumps(result.as_json(), option=orjson.OPT_INDENT_2))


def bench_serve_command(
    docs_dir: Path = typer.Argument(
        ..., help="Folder of documentation to serve, in any format docs-mcp index reads (queries are sampled from it)."
    ),
    index: Path | None = typer.Option(
        None, "--index", help="Our index of DOCS_DIR (default: build one, timed, into the work folder)."
    ),
    reference: Path | None = typer.Option(
        None,
        "--reference",
        help="A built checkout of the reference server (speakeasy-api/docs-mcp) to compare with, in its full-text mode.",
    ),
    reference_index: Path | None = typer.Option(
        None, "--reference-index", help="The reference's index of DOCS_DIR (default: build one, timed, with its CLI)."
    ),
    golden: Path | None = typer.Option(
        None, "--golden", help="Take the queries from this golden file first (then from the corpus)."
    ),
    queries: int = typer.Option(200, "--queries", min=10, max=10_000, help="Distinct warm queries timed per server."),
    starts: int = typer.Option(
        5, "--starts", min=1, max=100, help="Cold starts (spawn to the first answered search) per server."
    ),
    load: int = typer.Option(
        0, "--load", min=0, max=64, help="Spin this many processes during the measurements (a named CPU load)."
    ),
    node: str = typer.Option("node", "--node", help="Node.js executable that runs the reference server."),
    work_dir: Path | None = typer.Option(
        None, "--work-dir", help="Keep built indexes and server logs here (default: a temporary folder)."
    ),
    json_file: Path | None = typer.Option(None, "--json", help="Also write the figures to this JSON file."),
) -> None:
    """Time the server as an agent meets it, over MCP stdio: spawn to first search, search latency, peak memory, builds."""
    import orjson

    from docs_mcp.eval.bench_serve import ServePlan, render_serve_bench, run_serve_bench
    from docs_mcp.eval.path_checks import check_output_file, check_output_folder

    check_output_file(json_file, "--json")
    check_output_folder(work_dir, "--work-dir")
    plan = ServePlan(
        docs=docs_dir,
        index=index,
        reference=reference,
        reference_index=reference_index,
        golden=golden,
        queries=queries,
        starts=starts,
        load=load,
        node=node,
    )
    result = run_serve_bench(plan, work_dir, progress=lambda phase: typer.echo(f"bench-serve: {phase}...", err=True))
    typer.echo(render_serve_bench(result).rstrip("\n"))
    if json_file:
        json_file.write_bytes(orjson.dumps(result.as_json(), option=orjson.OPT_INDENT_2))


def bench_gateway_command(
    config: Path = typer.Argument(..., help="Config file whose [[upstream]] servers to benchmark."),
    golden: Path = typer.Option(
        ..., "--golden", help="Golden queries (e.g. eval/golden/gateway.jsonl): the discovery queries."
    ),
    tool: str = typer.Option(..., "--tool", help="SERVER:TOOL to call for the execute overhead."),
    arguments: str = typer.Option("{}", "--arguments", help="The tool's arguments as JSON."),
    rounds: int = typer.Option(100, "--rounds", min=5, max=10_000, help="Timed calls per figure."),
    json_file: Path | None = typer.Option(None, "--json", help="Also write the figures to this JSON file."),
) -> None:
    """Time tool_discovery (p50/p95) and tool_execute's overhead over a direct tools/call."""
    import orjson

    from docs_mcp.errors import UsageError
    from docs_mcp.eval.bench_gateway import bench_gateway, load_bench_config, render_gateway_bench
    from docs_mcp.eval.golden import load_golden
    from docs_mcp.eval.path_checks import check_output_file

    check_output_file(json_file, "--json")
    try:
        parsed = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise UsageError(
            f"--arguments {arguments!r} is not a JSON object.", 'Example: --arguments \'{"path": "a.txt"}\''
        )
    queries = [query.query for query in load_golden(golden)]
    result = bench_gateway(load_bench_config(config), queries, tool, parsed, rounds)
    typer.echo(render_gateway_bench(result))
    if json_file:
        json_file.write_bytes(orjson.dumps(result.as_json(), option=orjson.OPT_INDENT_2))


def train_ranking_command(
    sets: list[str] = typer.Option(
        ...,
        "--set",
        help="GOLDEN=INDEX: a golden file and the index it runs on (repeatable; sets on one index are one corpus).",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Rankers file to write: INDEX/rankers.json makes every later build of that index record it."
    ),
    loco: bool = typer.Option(
        False,
        "--loco",
        help="Print the leave-one-corpus-out validation: each corpus held out, the fusion against hybrid search.",
    ),
    json_file: Path | None = typer.Option(None, "--json", help="Write every figure of the validation to this file."),
    tools: str | None = typer.Option(
        None,
        "--tools",
        help="CONFIG=GOLDEN: also fit tool discovery's relevance on this gateway config's tools, leaving one server out at a time.",
    ),
) -> None:
    """Train the learned parts of hybrid search on golden sets, each chosen by leave-one-corpus-out validation."""
    import orjson

    from docs_mcp.errors import UsageError
    from docs_mcp.eval.path_checks import check_output_file
    from docs_mcp.eval.train_ranking import train_file

    if out is None and not loco:
        raise UsageError(
            "Nothing to do: pass --out FILE to write the rankers file, --loco to print the validation, or both.",
            "Example: docs-mcp train-ranking --set eval/devsets/fastapi-tune.jsonl=.docs-mcp --loco",
        )
    check_output_file(out, "--out")
    check_output_file(json_file, "--json")
    pairs = []
    for item in sets:
        golden, sep, index = item.partition("=")
        if not sep or not golden or not index:
            raise UsageError(
                f"--set {item!r} is not GOLDEN=INDEX.", "Example: --set eval/devsets/fastapi-tune.jsonl=.docs-mcp"
            )
        pairs.append((Path(golden), Path(index)))
    tool_sets = None
    if tools is not None:
        config, sep, tool_golden = tools.partition("=")
        if not sep or not config or not tool_golden:
            raise UsageError(
                f"--tools {tools!r} is not CONFIG=GOLDEN.",
                "Example: --tools tests/gateway/upstreams.toml=eval/golden/gateway.jsonl",
            )
        tool_sets = (Path(config), Path(tool_golden))
    with progress_bar("train") as advance:
        data, report, tools_report = train_file(pairs, progress=advance, tools=tool_sets)
    if loco:
        from docs_mcp.eval.loco_report import render_loco

        if report is None:
            raise UsageError(
                "--loco needs at least two corpora (--set pairs on two indexes): one is held out at a time.",
                "Add --set GOLDEN=INDEX pairs for other corpora.",
            )
        typer.echo(render_loco(report))
        if tools_report is not None:
            typer.echo("\ntool discovery, one upstream server held out at a time:")
            typer.echo(render_loco(tools_report))
    if json_file and report is not None:
        from docs_mcp.eval.loco_report import loco_dict

        figures = {"documentation": loco_dict(report), "tools": loco_dict(tools_report) if tools_report else None}
        json_file.write_bytes(orjson.dumps(figures, option=orjson.OPT_INDENT_2) + b"\n")
        typer.echo(f"wrote {json_file}", err=True)
    if out:
        out.write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
        record = data["rankers"][0]
        typer.echo(
            f"wrote {out}: floor {record['floor']}, ordering {'learned' if record['ordering'] else 'the fusion'}",
            err=True,
        )
