"""A stdio server that exits right after a remote read lets its background index write finish first.

read_page by URL answers at once and indexes the page in a background thread (DuckDB, the
embedding model). A client that quits right then used to end the interpreter under that
thread: the write was lost, and once "terminate called without an active exception" was
printed (SIGABRT). Now the server waits for the running write, then exits 0.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from corpus_files import write_corpus
from skyhook import SKYHOOK, serve_skyhook

from docs_mcp.indexer import build_index
from docs_mcp.indexer.libraries.spec import requested_spec

HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "exit-test", "version": "0"},
    },
}


def test_quitting_right_after_a_remote_read_waits_for_its_index_write_and_exits_0(site, tmp_path: Path):
    llms = serve_skyhook(site)
    docs = write_corpus(tmp_path / "acme", {"index.md": "# Acme CLI\n\nAcme deploys builds.\n"})
    index = tmp_path / "index"
    build_index(docs, index, library=requested_spec(docs, "acme/cli", name="Acme CLI"))
    custom = tmp_path / "custom-libraries.json"
    custom.write_text(json.dumps({"libraries": [{"id": SKYHOOK, "displayName": "Skyhook", "llmsTxtUrl": llms}]}))
    env = {
        "PATH": "/usr/bin:/bin",
        "DOCS_MCP_ALLOW_PRIVATE_FETCH": "1",
        "DOCS_MCP_CURATED_LIBRARIES": "0",
        "DOCS_MCP_CUSTOM_LIBRARIES": str(custom),
    }
    page = site.url("/docs/guides/retries.md")
    messages = [
        HELLO,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "get_library_info", "arguments": {"library_id": SKYHOOK}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_page", "arguments": {"url": page}},
        },
    ]
    with subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as server:
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        reply: dict = {"result": {}}
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
            while "id" in message and (reply := json.loads(server.stdout.readline())).get("id") != message["id"]:
                pass  # a notification (resources/list_changed) between the replies
            assert "error" not in reply and not reply["result"].get("isError"), reply
        server.stdin.close()  # quit now: the page's index write has just been queued
        status, stderr = server.wait(timeout=300), server.stderr.read()
    assert status == 0, stderr[-3000:]
    assert "terminate called" not in stderr
    pages = json.loads((index / "metadata.json").read_text())["libraries"][SKYHOOK]["pages"]
    assert page in pages  # the write finished before the exit
