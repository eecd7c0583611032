"""`docs-mcp serve` and `docs-mcp search` as processes: stdout carries only the protocol, a bad
index is one clear line on stderr and a non-zero exit, the search command prints ranked hits."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcp_session import serve_over_stdio

DOCS_MCP = [sys.executable, "-m", "docs_mcp"]
TIMEOUT = 120  # seconds; a bound against hangs, never waited on when things work


def _run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DOCS_MCP, *args], input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def _request(request_id: int, method: str, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def test_stdout_carries_only_protocol_messages(corpus_index: Path, tmp_path: Path) -> None:
    requests = [
        _request(
            1,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
        ),
        _request(2, "tools/list", {}),
        _request(3, "tools/call", {"name": "search_docs", "arguments": {"query": "how to paginate search results"}}),
        _request(4, "tools/call", {"name": "get_doc", "arguments": {"chunk_id": "nope.md#x"}}),
    ]
    log = tmp_path / "stderr.log"
    with (
        log.open("w") as stderr,
        subprocess.Popen(
            [*DOCS_MCP, "serve", "--index", str(corpus_index)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            bufsize=1,
        ) as server,
    ):
        lines: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [lines.put(line) for line in iter(server.stdout.readline, "")])
        reader.start()
        try:
            replies = _exchange(server, lines, requests)
        finally:
            server.stdin.close()  # the client leaves: the server exits on its own
            exit_code = server.wait(timeout=TIMEOUT)
            reader.join(TIMEOUT)
    assert exit_code == 0
    assert lines.empty()  # nothing but the replies
    assert sorted(replies) == [1, 2, 3, 4] and all(reply["jsonrpc"] == "2.0" for reply in replies.values())
    assert [tool["name"] for tool in replies[2]["result"]["tools"]][:2] == ["search_docs", "get_doc"]
    assert replies[3]["result"]["isError"] is False and json.loads(replies[3]["result"]["content"][0]["text"])["hits"]
    assert replies[4]["result"]["isError"] is True
    assert "Traceback" not in log.read_text()


def _exchange(server: subprocess.Popen, lines: queue.Queue[str], requests: list[dict]) -> dict[int, dict]:
    """Send each request and read its reply; every stdout line must be one JSON-RPC message."""
    replies = {}
    for request in requests:
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        reply = json.loads(lines.get(timeout=TIMEOUT))
        replies[reply["id"]] = reply
        if request["method"] == "initialize":
            server.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    return replies


def test_a_missing_index_is_one_clear_error(tmp_path: Path) -> None:
    done = _run("serve", "--index", str(tmp_path / "nowhere"))
    assert done.returncode != 0
    assert done.stdout == ""
    assert "error:" in done.stderr and "docs-mcp index" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_corrupt_index_is_one_clear_error(tmp_path: Path, corpus_index: Path) -> None:
    generation = (corpus_index / "CURRENT").read_text().strip()
    broken = tmp_path / "index"
    (broken / generation).mkdir(parents=True)
    (broken / "CURRENT").write_text(generation + "\n")
    (broken / generation / "metadata.json").write_text((corpus_index / generation / "metadata.json").read_text())
    (broken / generation / "index.duckdb").write_bytes(b"this is not a database" * 100)
    done = _run("serve", "--index", str(broken))
    assert done.returncode != 0 and done.stdout == ""
    assert "error:" in done.stderr and "Traceback" not in done.stderr


def test_search_prints_ranked_hits_for_people(corpus_index: Path) -> None:
    done = _run("search", "how do I filter by language", "--index", str(corpus_index), "--limit", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1. ") and "\n\n2. " in done.stdout


def test_search_json_is_the_tool_result(corpus_index: Path) -> None:
    done = _run("search", "chunk ids", "--index", str(corpus_index), "--json", "--filter", "scope=global-guide")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert list(result) == ["hits", "next_cursor", "hint"]
    assert all(hit["metadata"]["scope"] == "global-guide" for hit in result["hits"])


def test_search_with_expansions_is_search_docs_expanded_and_get_reads_a_hit(corpus_index: Path) -> None:
    done = _run(
        "search",
        "the server keeps telling me to slow down",
        "--index",
        str(corpus_index),
        "--json",
        "--limit",
        "3",
        "--keywords",
        "RateLimitError 429 retry",
        "--hypothetical-answer",
        "The client retries 429 responses with backoff.",
    )
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)["hits"]
    assert hits and any("ratelimiterror" in hit["chunk_id"].lower() or "retr" in hit["chunk_id"] for hit in hits)
    read = _run("get", hits[0]["chunk_id"], "--index", str(corpus_index), "--context", "1")
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith("--- Chunk: ") and f"--- Chunk: {hits[0]['chunk_id']} " in read.stdout
    missing = _run("get", "guide/nope.md#nothing", "--index", str(corpus_index))
    assert missing.returncode == 1 and missing.stdout == ""
    assert "not found" in missing.stderr and "search_docs" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.parametrize("bad", ["language", "colour=red"])
def test_search_refuses_an_unknown_filter(corpus_index: Path, bad: str) -> None:
    done = _run("search", "x", "--index", str(corpus_index), "--filter", bad)
    assert done.returncode == 2
    assert "Use --filter KEY=VALUE" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "flags", [("--port", "3100"), ("--host", "0.0.0.0", "--redis-url", "redis://x"), ("--allow-any-host",)]
)
def test_http_only_flags_with_stdio_are_refused(corpus_index: Path, flags: tuple[str, ...]) -> None:
    done = _run("serve", "--index", str(corpus_index), *flags)
    assert done.returncode == 2 and done.stdout == ""
    named = [flag for flag in flags if flag.startswith("--")]
    verb = "apply" if len(named) > 1 else "applies"
    assert f"error: {', '.join(named)} only {verb} to the http transport" in done.stderr
    assert "hint: Add --transport http" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("where", ["environment", "config file"])
def test_stdio_serve_finds_its_index_in_the_team_settings(corpus_index: Path, tmp_path: Path, where: str) -> None:
    """Without --index, stdio reads server.index as http does (DOCS_MCP_INDEX, then the config file)."""
    if where == "environment":
        extra, env = (), {"DOCS_MCP_INDEX": str(corpus_index)}
    else:
        config = tmp_path / "docs-mcp.toml"
        config.write_text(f"[server]\nindex = {json.dumps(str(corpus_index))}\n", encoding="utf-8")
        extra, env = ("--config", str(config)), {}
    with serve_over_stdio(None, tmp_path / "serve.log", *extra, env=env) as session:
        hits = session.search(query="chunk ids")["hits"]
    assert hits and all(hit["chunk_id"].startswith(("guide/", "sdk/")) for hit in hits)
