"""Embedding fanned out to a real Dask LocalCluster of two worker processes, and the vector cache that outlives a killed build."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.indexer import build_index
from docs_mcp.indexer.fleet.dask_embedding import BATCH, FanOut
from docs_mcp.indexer.fleet.vector_cache import VectorCache
from docs_mcp.indexer.index_file import open_index

distributed = pytest.importorskip("distributed", reason="distributed is not installed (pip install 'docs-mcp[dask]')")


def write_docs(root: Path) -> Path:
    """40 pages of three sections: 120+ windows, several batches of work."""
    for number in range(40):
        page = root / "docs" / f"topic-{number}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(
            f"# Topic {number}\n\nAbout topic {number} and its uses.\n\n## Install {number}\n\n"
            f"Install package {number} with pip, then import module_{number}.\n\n"
            f"## Configure {number}\n\nSet option_{number} to true before calling run_{number}().\n",
            encoding="utf-8",
        )
    return root / "docs"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A LocalCluster of two single-threaded worker processes on loopback; its scheduler's address."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None, silence_logs=40
    ) as local:
        yield local.scheduler_address


def vectors_by_key(index: Path) -> dict[str, np.ndarray]:
    with open_index(index) as reader:
        rows = reader.conn.execute("SELECT key, vec FROM vectors").fetchall()
    return {key: np.asarray(vec, dtype=np.float32) for key, vec in rows}


def test_the_workers_embed_what_one_machine_would(cluster: str, tmp_path: Path) -> None:
    docs = write_docs(tmp_path)
    fan_out = FanOut(cluster, tmp_path / "cache")
    try:
        fanned = build_index(docs, tmp_path / "fanned", embed_via=fan_out.wrap)
    finally:
        fan_out.close()
    local = build_index(docs, tmp_path / "local")
    assert fan_out.embedder is not None
    stats = fan_out.embedder.stats
    assert stats.embedded == local.embedded == fanned.embedded and stats.cached == 0 and stats.tasks >= 2
    remote, here = vectors_by_key(tmp_path / "fanned"), vectors_by_key(tmp_path / "local")
    assert remote.keys() == here.keys()
    assert max(float(np.abs(remote[key] - here[key]).max()) for key in here) < 1e-5
    assert len(VectorCache(tmp_path / "cache", 384)) == stats.embedded


def test_a_killed_build_keeps_the_batches_it_finished(cluster: str, tmp_path: Path) -> None:
    docs, out = write_docs(tmp_path), tmp_path / "index"
    command = [sys.executable, "-m", "docs_mcp", "index", str(docs), "--out", str(out), "--dask", cluster, "--quiet"]
    killed = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        env={**_env(), "DOCS_MCP_TEST_FAULT": "vector-cache-put:sigkill"},
    )
    assert killed.returncode == -9, killed.stderr
    kept = len(
        VectorCache(out / "vector-cache", 384)
    )  # the first batch to finish (a full one, or the shorter last one)
    assert 0 < kept <= BATCH
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=_env())
    assert again.returncode == 0, again.stderr
    line = next(line for line in again.stderr.splitlines() if "dask:" in line)
    assert f"{kept} from the vector cache" in line, line
    embedded = int(line.split("dask:")[1].split()[0])
    assert embedded + kept == len({key for key in vectors_by_key(out)})


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("DOCS_MCP_")}
