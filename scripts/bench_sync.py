"""Benchmark `docs-mcp sync` against the real registries: a sample project with 6 PyPI and 6 npm dependencies pinned
to versions that are not the newest.

    python scripts/bench_sync.py [--work DIR] [--report FILE]

Writes the project (requirements.txt pinned with ==; package.json + package-lock.json v3), runs
`docs-mcp sync --json` twice (the second run must fetch nothing), then syncs a second project with the same
locks into an index of its own: with the library cache (a fresh one under the work folder, so the first
project builds everything) it must download nothing and embed nothing. Then it asks every library through
the real tool registry: `get_docs(libraries=[BASE_ID], topic=...)` must answer from the pinned
version (its ``libraries`` and every chunk's provenance name it) and `resolve_library` must list it
as the version it would use. Prints a markdown table of time, documents, chunks and source per
library. Needs the network (PyPI and the npm registry; a proxy whose addresses are private needs
DOCS_MCP_REGISTRY_NETWORKS, e.g. 203.0.113.0/24).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (package, pinned version, a topic its README answers): none of these is the newest release.
PYPI = [
    ("requests", "2.31.0", "session retries"),
    ("click", "8.1.3", "command options"),
    ("attrs", "23.1.0", "define classes"),
    ("httpx", "0.26.0", "async client"),
    ("tomli", "2.0.1", "parse TOML file"),
    ("packaging", "23.2", "version specifiers"),
]
NPM = [
    ("express", "4.18.2", "routing middleware"),
    ("lodash", "4.17.20", "installation"),
    ("chalk", "4.1.2", "colors styles"),
    ("commander", "11.1.0", "options"),
    ("axios", "1.6.0", "interceptors"),
    ("zod", "3.22.0", "schema validation"),
]


def write_project(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "requirements.txt").write_text("".join(f"{name}=={version}\n" for name, version, _ in PYPI))
    (root / "package.json").write_text(
        json.dumps({"name": "bench", "private": True, "dependencies": {n: v for n, v, _ in NPM}}, indent=2)
    )
    packages = {"": {"name": "bench"}, **{f"node_modules/{n}": {"version": v} for n, v, _ in NPM}}
    (root / "package-lock.json").write_text(
        json.dumps({"name": "bench", "lockfileVersion": 3, "packages": packages}, indent=2)
    )


def sync(project: Path, index: Path, cache: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    env = {**os.environ, "DOCS_MCP_LIBRARY_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "docs_mcp", "sync", str(project), "--index", str(index), "--json"],
                          capture_output=True, text=True, check=False, env=env)  # fmt: skip
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"sync failed ({done.returncode}):\n{done.stderr}")
    return seconds, json.loads(done.stdout)


def check_answers(index: Path) -> dict[str, dict]:
    """Per library: what get_docs answered from, and what resolve_library says it would use."""
    from docs_mcp.indexer.sources.packages.refs import package_ref
    from docs_mcp.indexer.sources.service import SourceService
    from docs_mcp.indexer.sources.source_settings import source_settings
    from docs_mcp.server.app import tool_registry
    from docs_mcp.server.core.live_index import LiveIndex
    from docs_mcp.server.core.tool_registry import ToolCall
    from docs_mcp.server.libraries.remote import Sources

    live = LiveIndex(index, warm=None)
    registry = tool_registry("hybrid", Sources(SourceService(source_settings(index)), live))
    checked = {}
    try:
        with live.lease() as served:
            for ecosystem, rows in (("pypi", PYPI), ("npm", NPM)):
                for name, version, topic in rows:
                    ref = package_ref(ecosystem, name, version)
                    answer = registry.get("get_docs").answer(
                        ToolCall(served, {"libraries": [ref.base_id], "topic": topic, "max_tokens": 1500})
                    )
                    data = json.loads(answer.text)
                    versions = (
                        sorted({c["provenance"]["version"] for c in data.get("chunks", [])})
                        if not answer.is_error
                        else []
                    )
                    resolved = json.loads(
                        registry.get("resolve_library").answer(ToolCall(served, {"query": name})).text
                    )
                    chosen = next(
                        (
                            r.get("default_version") or r.get("version")
                            for r in resolved["results"]
                            if r.get("base_id", r["library_id"]) == ref.base_id
                        ),
                        None,
                    )
                    checked[ref.library_id] = {
                        "answered_from": data.get("libraries", [None])[0] if not answer.is_error else data.get("code"),
                        "chunk_versions": versions, "resolve_uses": chosen,
                        "names_pinned": not answer.is_error and data["libraries"] == [ref.library_id] and versions == [version] and chosen == version,
                    }  # fmt: skip
    finally:
        live.close()
    return checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--work", type=Path, default=None, help="Folder for the project and the index [default: a temporary one]."
    )
    parser.add_argument("--report", type=Path, default=None, help="Also write the results as JSON here.")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="docs-mcp-bench-sync-"))
    project, index, cache = work / "project", work / "index", work / "library-cache"
    other_project, other_index = work / "second-project", work / "second-index"
    for folder in (index, cache, other_index):
        shutil.rmtree(folder, ignore_errors=True)
    write_project(project)
    write_project(other_project)
    load = os.getloadavg()[0]
    first_seconds, first = sync(project, index, cache)
    second_seconds, second = sync(project, index, cache)
    load_before_other = os.getloadavg()[0]
    other_seconds, other = sync(other_project, other_index, cache)
    checked = check_answers(index)
    checked_other = check_answers(other_index)
    catalog = json.loads((index / "metadata.json").read_text())["libraries"]
    rows = []
    for dep in first["dependencies"]:
        entry = catalog.get(dep["library_id"] or "", {})
        source = (entry.get("sources") or [{}])[0]
        rows.append({
            "library_id": dep["library_id"], "status": dep["status"], "pinned": dep["version"], "newest": (entry.get("package") or {}).get("latest"),
            "documents": dep["documents"], "chunks": dep["chunks"], "seconds": dep["seconds"], "download_seconds": dep.get("download_seconds"),
            "source": f"{source.get('kind', '')}: {str(source.get('url', '')).rsplit('/', 1)[-1]}",
            "documents_list": [t["path"].removeprefix(entry.get("mount", "")) for t in entry.get("toc", [])][:6],
            **checked.get(dep["library_id"] or "", {}),
        })  # fmt: skip
    rerun = {row["status"] for row in second["dependencies"]}
    summary = {
        "load_average_at_start": round(load, 1), "first_sync_seconds": round(first_seconds, 1), "second_sync_seconds": round(second_seconds, 1),
        "second_sync_statuses": sorted(rerun), "libraries": len(rows), "all_answers_name_the_pinned_version": all(r.get("names_pinned") for r in rows),
        "total_chunks": sum(r["chunks"] or 0 for r in rows),
        "first_sync_embedded_largest_batch": max((d.get("embedded") or 0 for d in first["dependencies"]), default=0),
        "second_project_seconds": round(other_seconds, 1), "load_average_before_second_project": round(load_before_other, 1),
        "second_project_from_cache": sum(bool(d.get("from_cache")) for d in other["dependencies"]),
        "second_project_embedded": max((d.get("embedded") or 0 for d in other["dependencies"]), default=0),
        "second_project_answers_name_the_pinned_version": all(c.get("names_pinned") for c in checked_other.values()),
    }  # fmt: skip
    print(
        f"first sync {summary['first_sync_seconds']} s, second {summary['second_sync_seconds']} s ({', '.join(sorted(rerun))}); load {summary['load_average_at_start']}"
    )
    print(
        f"second project, same locks: {summary['second_project_seconds']} s, {summary['second_project_from_cache']} of {len(rows)} "
        f"from the library cache, {summary['second_project_embedded']} windows embedded; load {summary['load_average_before_second_project']}"
    )
    print("| library | pinned | newest | docs | chunks | s (download) | source | answers name the pin |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | --- |")
    for r in rows:
        print(
            f"| {r['library_id']} | {r['pinned']} | {r['newest']} | {r['documents']} | {r['chunks']} | {r['seconds']} ({r['download_seconds']}) | {r['source']} | {r.get('names_pinned')} |"
        )
    if args.report:
        args.report.write_text(json.dumps({"summary": summary, "libraries": rows}, indent=2))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
