"""The query model loads once per process: a start-up prefetch and an engine asking meanwhile share one load."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import docs_mcp.indexer
from docs_mcp.indexer import build_index
from docs_mcp.server.search import query_model as module
from docs_mcp.server.search.engine import open_engine

DOCS = {"guide.md": "# Guide\n\n## Retries\n\nRetry with backoff.\n"}


def _corpus(root: Path) -> Path:
    for relative, text in DOCS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


class SpyLock:
    """A lock that says when a second caller had to wait for it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.contended = threading.Event()

    def __enter__(self) -> SpyLock:
        if not self._lock.acquire(blocking=False):
            self.contended.set()
            self._lock.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._lock.release()


def test_a_prefetch_and_an_engine_never_load_the_model_at_the_same_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(_corpus(tmp_path / "docs"), tmp_path / "index")
    real = docs_mcp.indexer.load_model
    started, release = threading.Event(), threading.Event()
    active, overlap, calls = [0], [0], []

    def slow_load(identity, *, threads=None):
        active[0] += 1
        overlap[0] = max(overlap[0], active[0])
        calls.append(threads)
        started.set()
        release.wait(timeout=60)
        try:
            return real(identity, threads=threads)
        finally:
            active[0] -= 1

    monkeypatch.setattr(docs_mcp.indexer, "load_model", slow_load)
    lock = SpyLock()
    monkeypatch.setattr(module, "_loading", lock)
    prefetch = module.prefetch_query_model(tmp_path / "index")
    assert started.wait(timeout=60)  # the prefetch is loading
    engine = open_engine(tmp_path / "index")
    warming = threading.Thread(target=engine.warm)
    warming.start()
    assert lock.contended.wait(timeout=60)  # the engine waits for the load in flight
    release.set()
    warming.join(timeout=60)
    prefetch.join(timeout=60)
    assert overlap == [1] and calls == [module.QUERY_THREADS, module.QUERY_THREADS]
    assert engine.search("retries", mode="hybrid").hits and engine._embedder is not None
    engine.close()


def test_a_prefetch_of_a_missing_or_full_text_index_does_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_index(_corpus(tmp_path / "docs"), tmp_path / "index", embeddings="none")
    loads = []
    monkeypatch.setattr(docs_mcp.indexer, "load_model", lambda identity, **_: loads.append(identity))
    for index in (tmp_path / "index", tmp_path / "missing"):
        module.prefetch_query_model(index).join(timeout=60)
    assert loads == []
