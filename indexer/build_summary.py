"""The closing lines of a build: what `docs-mcp index` and the `add` commands print about the index they wrote."""

from __future__ import annotations

from docs_mcp.indexer.ranker import describe_ranking
from docs_mcp.indexer.records import IndexReport, Problem


def summary(report: IndexReport, embeddings: str) -> str:
    """The closing lines of `docs-mcp index`."""
    from docs_mcp.indexer.corpus.skip_report import (
        describe_skipped,  # not on every CLI start: it loads the folder rules
    )

    keys = ", ".join(report.taxonomy_keys) or "none"
    vectors = (
        "none (full-text only)"
        if embeddings == "none"
        else f"{report.embedded} embedded, {report.reused_embeddings} reused"
    )
    if report.windows_per_second:
        vectors += f" ({report.windows_per_second:.1f} windows/s)"
    live = ", ".join(f"{label} after {seconds:.1f} s" for label, seconds in report.live_after.items())
    lines = [
        f"indexed {report.files} files into {report.chunks} chunks in {report.seconds:.1f} s",
        f"  index:        {report.index_dir} ({human_size(report.index_bytes)})",
        f"  taxonomy:     {keys}",
        f"  embeddings:   {vectors}",
        f"  live:         {live}",
    ]
    if report.model:
        weights = report.model.files[0] if report.model.files else None
        origin = f" from {weights.source}" if weights else ""
        lines.append(
            f"  model:        {report.model.name} ({report.model.dimensions} dimensions, weights sha256 {report.model.checksum[:12]}{origin})"
        )
        lines.append(f"                every file's digest: docs-mcp info --index {report.index_dir}")
        lines.append(f"  ranking:      {describe_ranking(report.ranker, has_vectors=True)}")
    stubs = front_matter_only(report.skipped, report.problems)
    if stubs:
        lines.append(f"  skipped:      {stubs} page(s) with front matter only (redirects, section stubs)")
    left_out = describe_skipped(report.skipped_files, report.other_files)
    if left_out:
        lines.append(f"  not read:     {left_out}")
    if report.problems:
        lines.append(f"  problems:     {len(report.problems)} (listed above)")
    return "\n".join(lines)


def problem_lines(problems: tuple[Problem, ...], *, library: str = "") -> list[str]:
    """One line a problem (``error: guide/x.md: ...``), as a build prints them on stderr above its summary; under
    ``library`` (``error: pypi/x/v1.0: docs/x.md: ...``) where one command wrote several libraries (sync)."""
    under = f"{library}: " if library else ""
    return [f"{problem.severity}: {under}{problem}" for problem in problems]


def front_matter_only(skipped: tuple[str, ...], problems: tuple[Problem, ...]) -> int:
    """How many skipped pages were skipped for having no text past their front matter (the others have a problem)."""
    explained = {problem.indexed_path for problem in problems}  # ``skipped`` names a library's pages under its mount
    return sum(path not in explained for path in skipped)


def human_size(count: int) -> str:
    """``count`` bytes in B, KiB, MiB or GiB, for tables and summaries."""
    size: float = count
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"
