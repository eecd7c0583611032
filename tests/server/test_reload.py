"""Hot swap: a rebuilt index is served from the next request on, without a restart, and the old
index's cursors are refused as stale."""

import json
import subprocess
import sys
from pathlib import Path, PurePath

import pytest

from docs_mcp.indexer import build_index
from docs_mcp.indexer.errors import IndexFormatError
from docs_mcp.indexer.schema import FULL_TEXT, HYBRID
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.search.engine import open_engine

SWAP_MEMORY = Path(__file__).resolve().parents[2] / "scripts" / "swap_memory.py"

V1 = {
    "guides/setup.md": "# Setup\n\n"
    + "".join(f"## Step {n}\n\nSetup step {n} configures the widget.\n\n" for n in range(1, 6)),
}
V2 = {
    **V1,
    "guides/tuning.md": "# Tuning\n\n## Turbo mode\n\nTurbo mode makes the widget faster.\n",
    "sdk/go/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"language": "go"}}),
    "sdk/go/widget.md": "# Go widget\n\n## Widget setup\n\nConfigure the widget from Go.\n",
}


@pytest.fixture
def corpus(tmp_path):
    def write(files):
        for relative, text in files.items():
            path = tmp_path / "docs" / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path / "docs"

    return write


def test_a_rebuilt_index_is_served_without_restart(tmp_path, corpus, stdio_server):
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    with stdio_server(index, tmp_path / "server.log") as session:
        first = session.search(query="setup step widget", limit=2)
        assert first["next_cursor"] is not None
        assert "language" not in session.input_schema("search_docs")["properties"]
        assert session.error("get_doc", {"chunk_id": "guides/tuning.md#tuning/turbo-mode"}).endswith(
            "not found. Use search_docs to discover valid chunk IDs."
        )

        build_index(corpus(V2), index)

        assert "notifications/tools/list_changed" not in session.notification_methods()
        assert session.text("get_doc", {"chunk_id": "guides/tuning.md#tuning/turbo-mode"}).endswith(
            "Turbo mode makes the widget faster."
        )
        # The swap added a `language` filter to search_docs: the client is told to list tools again.
        assert session.notification_methods().count("notifications/tools/list_changed") == 1
        stale = session.error("search_docs", {"query": "setup step widget", "limit": 2, "cursor": first["next_cursor"]})
        assert stale.startswith("The cursor is stale") and "search_docs again without a cursor" in stale
        assert session.input_schema("search_docs")["properties"]["language"]["enum"] == ["go"]
        again = session.search(query="setup step widget", limit=2)
        assert session.search(query="setup step widget", limit=2, cursor=again["next_cursor"])["hits"]


def test_the_index_is_reopened_only_when_current_changes(tmp_path, corpus):
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    opened = []

    def opener(index_dir):
        opened.append(index_dir)
        return open_engine(index_dir)

    live = LiveIndex(index, opener=opener)
    first = live.current()
    assert live.current() is first and len(opened) == 1
    build_index(corpus(V2), index)
    second = live.current()
    assert second is not first and second.generation != first.generation and len(opened) == 2
    assert live.current() is second


def test_following_current_builds_no_path_a_call_and_still_sees_a_swap(tmp_path, corpus, monkeypatch):
    """A tool call states CURRENT twice (settled, then acquire): its path is joined once, when the index opens."""
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    live = LiveIndex(index)
    first = live.current()
    joined = []
    join = PurePath.__truediv__

    def counted(self, other):
        joined.append(other)
        return join(self, other)

    monkeypatch.setattr(PurePath, "__truediv__", counted)
    assert live.settled() is first
    live.release(live.acquire())
    assert joined == []
    monkeypatch.undo()
    build_index(corpus(V2), index)
    assert live.settled() is None
    assert live.current().generation != first.generation


def test_a_broken_new_generation_keeps_the_old_one_served(tmp_path, corpus):
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    live = LiveIndex(index)
    served = live.current()
    (index / "CURRENT").write_text("no-such-generation\n")
    assert live.current() is served


def test_a_progressive_build_is_served_full_text_first_then_hybrid(tmp_path, corpus):
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    live = LiveIndex(index)
    before = live.current().generation
    served = {}

    def next_request_when_live(step):
        if step.stage == "live":
            served[step.label] = live.current()

    build_index(corpus(V2), index, progress=next_request_when_live)
    full_text, hybrid = served[FULL_TEXT], served[HYBRID]
    assert len({before, full_text.generation, hybrid.generation}) == 3
    assert full_text.engine.metadata["embedding"] is None  # the new docs, searchable by full text alone
    assert "language" in full_text.filters and hybrid.engine.metadata["embedding"] is not None
    assert live.current() is hybrid


def test_a_new_generation_is_warmed_before_it_is_served_and_the_old_one_serves_meanwhile(tmp_path, corpus):
    index = tmp_path / "index"
    build_index(corpus(V1), index, embeddings="none")
    seen_while_warming = []

    def opener(index_dir):
        engine = open_engine(index_dir)
        warm = engine.warm

        def spying_warm(mode="hybrid"):
            seen_while_warming.append(live.current().generation)  # another request, meanwhile
            warm()

        engine.warm = spying_warm
        return engine

    live = LiveIndex(index, opener=opener)
    old = live.current().generation
    build_index(corpus(V2), index, embeddings="none")
    new = live.current()
    assert new.generation != old and seen_while_warming == [old]


@pytest.mark.parametrize("mode, loads_model", [("bm25", False), ("hybrid", True)])
def test_a_swap_warms_the_new_generation_for_the_server_mode(tmp_path, corpus, mode, loads_model):
    index = tmp_path / "index"
    build_index(corpus(V1), index)
    live = LiveIndex(index, warm=mode)
    old = live.current()
    build_index(corpus(V2), index)
    new = live.current()
    assert new.generation != old.generation and new.engine.has_vectors
    assert (new.engine._embedder is not None) == loads_model  # bm25 serving never loads the query model
    live.close()


def test_a_replaced_generation_is_closed_once_no_request_uses_it(tmp_path, corpus):
    index = tmp_path / "index"
    build_index(corpus(V1), index, embeddings="none")
    live = LiveIndex(index)
    in_flight = live.acquire()  # a request still running on the first generation
    build_index(corpus(V2), index, embeddings="none")
    with live.lease() as served:
        assert served.generation != in_flight.generation
    assert in_flight.engine.search("setup step").hits  # still usable by the request that holds it
    live.release(in_flight)
    with pytest.raises(IndexFormatError):
        in_flight.engine.store.page_contents("guides/setup.md")  # closed with its last user
    live.close()


def test_five_swaps_leave_only_the_live_generation_open():
    """scripts/swap_memory.py swaps 5 rebuilds in while searching and reads /proc/self/fd (exit 1: a pruned file open)."""
    done = subprocess.run(
        [sys.executable, str(SWAP_MEMORY), "--chunks", "300", "--swaps", "5"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # The live generation's files stay open: its DuckDB file and its memory-mapped serving arrays.
    assert "of pruned generations: 0" in done.stdout


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_a_fleet_replica_prepares_the_next_generation_and_keeps_the_last_one_for_its_cursors(
    tmp_path, corpus, monkeypatch
):
    from docs_mcp.indexer.index_file import current_generation, publish
    from docs_mcp.server.core import live_index as reload

    index = tmp_path / "index"
    build_index(corpus(V1), index, embeddings="none")
    first = current_generation(index)
    build_index(corpus(V2), index, embeddings="none")
    second = current_generation(index)
    publish(index, first)  # a replica that has not flipped yet: both generations on disk, the first live
    clock = _Clock()
    monkeypatch.setattr(reload, "time", clock)
    live = LiveIndex(index, warm=None, retain=900)
    try:
        assert live.held() == (first,)
        live.prepare(second)
        assert live.held() == (first, second) and live.current().generation == first
        with live.lease() as served:
            assert served.generation == first
        prepared = live.acquire(second)  # a cursor issued by a replica that flipped first
        assert prepared.generation == second
        live.release(prepared)
        publish(index, second)
        assert live.current() is prepared  # the flip: no open, no warm-up, the prepared one
        old = live.acquire(first)  # a cursor issued before the flip
        assert old.generation == first and live.held() == (second, first)
        clock.now += 901
        assert live.held() == (second,)  # past the cursor lifetime: let go (closed once its request is done)
        again = live.acquire(first)
        assert again.generation == second  # a generation no longer held: the live one answers (the cursor is stale)
        live.release(again)
        live.release(old)
    finally:
        live.close()
