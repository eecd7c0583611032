"""A quick search (full text) is answered on the event loop, without the hop to a worker thread and back,
but only while no other call holds one of the shared tool threads; the answer is the same either way.

Each check runs a real server over a real index through the MCP SDK's in-memory client, in a fresh
interpreter, and notes which thread the engine's search ran on.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from corpus_files import write_corpus

from docs_mcp.indexer import build_index

TIMEOUT = 300  # seconds; a bound against hangs, never waited on when things work

SESSION = """
import json
import sys
import threading

import anyio
from mcp import Client

from docs_mcp.indexer import build_index
from docs_mcp.server.app import ServerSettings, build_server
from docs_mcp.server.search.engine import Engine
from docs_mcp.server.search.modes import Mode

settings = ServerSettings(mode=Mode(sys.argv[2]), warm=False)
searched_on = []
search = Engine.search


def recorded_search(*args, **kwargs):
    searched_on.append(threading.current_thread().name)  # the real search runs; only its thread is noted
    return search(*args, **kwargs)


Engine.search = recorded_search


async def main() -> None:
    seen = {}
    async with Client(build_server(sys.argv[1], settings), mode="legacy") as client:
        idle = await client.call_tool("search_docs", {"query": "alpha setup"})
        seen["idle"] = {"thread": searched_on[-1], "text": idle.content[0].text}
        if len(sys.argv) > 3:  # rebuild the index from these docs: the next search has a generation to open first
            build_index(sys.argv[3], sys.argv[1], embeddings="none")
            rebuilt = await client.call_tool("search_docs", {"query": "alpha setup"})
            seen["after_rebuild"] = {"thread": searched_on[-1], "text": rebuilt.content[0].text}
        release = threading.Event()
        async with anyio.create_task_group() as tasks:
            # Another call holding one of the shared threads, as a slow get_doc would.
            tasks.start_soon(anyio.to_thread.run_sync, release.wait)
            while anyio.to_thread.current_default_thread_limiter().borrowed_tokens == 0:
                await anyio.sleep(0)
            busy = await client.call_tool("search_docs", {"query": "alpha setup"})
            seen["beside_another_call"] = {"thread": searched_on[-1], "text": busy.content[0].text}
            release.set()
    print(json.dumps(seen))


anyio.run(main)
"""


def _session(index: Path, mode: str, rebuild_from: Path | None = None) -> dict:
    rebuild = [str(rebuild_from)] if rebuild_from else []
    done = subprocess.run(
        [sys.executable, "-c", SESSION, str(index), mode, *rebuild], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_full_text_search_on_an_idle_server_is_answered_without_a_worker_thread(text_only_index: Path) -> None:
    seen = _session(text_only_index, "bm25")
    assert seen["idle"]["thread"] == "MainThread"  # the event loop's
    assert "Alpha" in seen["idle"]["text"]


def test_a_search_beside_a_call_on_the_shared_threads_still_goes_to_a_thread_with_the_same_answer(
    text_only_index: Path,
) -> None:
    seen = _session(text_only_index, "bm25")
    assert seen["beside_another_call"]["thread"] == "AnyIO worker thread"
    assert seen["beside_another_call"]["text"] == seen["idle"]["text"]


def test_a_hybrid_search_with_the_default_model_keeps_its_worker_thread(tiny_index: Path) -> None:
    # Its query embedding alone takes milliseconds: on the loop it would hold up every other request.
    seen = _session(tiny_index, "hybrid")
    assert seen["idle"]["thread"] == "AnyIO worker thread"


def test_a_search_after_a_rebuild_opens_the_new_generation_on_a_worker_thread(tmp_path: Path) -> None:
    # Opening a generation reads its arrays (and would warm a model): never on the loop, where it would stall the server.
    first = write_corpus(tmp_path / "first", {"a.md": "# Alpha\n\n## Setup\n\nThe alpha guide explains the setup.\n"})
    second = write_corpus(tmp_path / "second", {"a.md": "# Alpha\n\n## Setup\n\nThe rebuilt alpha setup.\n"})
    build_index(first, tmp_path / "index", embeddings="none")
    seen = _session(tmp_path / "index", "bm25", rebuild_from=second)
    assert seen["idle"]["thread"] == "MainThread"
    assert seen["after_rebuild"]["thread"] == "AnyIO worker thread"
    assert "rebuilt alpha setup" in seen["after_rebuild"]["text"]
