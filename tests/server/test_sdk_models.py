"""The MCP SDK's pydantic models are built on first use (server/core/sdk_models.py), and nothing else changes.

A server's start used to build all of the SDK's ~550 protocol models as their modules loaded (issue 40);
now a model is built when a message first needs it. Each check runs in a fresh interpreter (what a
server's start does is what is tested), and a real `docs-mcp serve` over stdio answers every method a
client uses with the same bytes as a server that builds every model at import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TIMEOUT = 300  # seconds; a bound against hangs, never waited on when things work

FRESH_START = """
import json
import sys

import docs_mcp.server.app
import mcp_types
import mcp_types._v2026_07_28 as v2026
from mcp_types import methods
from pydantic import BaseModel

ours = type("Ours", (BaseModel,), {"__module__": "__main__", "__annotations__": {"name": str}})
before = {
    "a 2026-07-28 request": v2026.DiscoverRequest.__pydantic_complete__,
    "the client request union": mcp_types.client_request_adapter.pydantic_complete,
    "a tools/call request": mcp_types.CallToolRequest.__pydantic_complete__,
    "a model not of the SDK": ours.__pydantic_complete__,
}
params = {"name": "search_docs", "arguments": {"q": 1}}
parsed = methods.parse_client_request("tools/call", "2025-06-18", params)
union = mcp_types.client_request_adapter.validate_python({"method": "ping", "params": {}})
print(json.dumps({
    "before": before,
    "parsed": [type(parsed).__name__, parsed.params.name, parsed.params.arguments],
    "union": type(union).__name__,
    "after": mcp_types.CallToolRequest.__pydantic_complete__ and mcp_types.client_request_adapter.pydantic_complete,
}))
"""


def test_a_servers_start_leaves_the_sdks_models_unbuilt_until_a_message_needs_them() -> None:
    done = subprocess.run([sys.executable, "-c", FRESH_START], capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"] == {
        "a 2026-07-28 request": False,
        "the client request union": False,
        "a tools/call request": False,
        "a model not of the SDK": True,
    }
    assert seen["parsed"] == ["CallToolRequest", "search_docs", {"q": 1}]
    assert seen["union"] == "PingRequest"
    assert seen["after"] is True


# The same server with the SDK's models built as they load, as before: the watch is taken out before the SDK's import.
BUILT_AT_IMPORT = """
import sys

import docs_mcp.server
from docs_mcp.server.core.sdk_models import _SdkImportWatch

sys.meta_path[:] = [finder for finder in sys.meta_path if not isinstance(finder, _SdkImportWatch)]
from docs_mcp.cli import main

sys.argv = ["docs-mcp", *sys.argv[1:]]
main()
"""


def _request(request_id: int, method: str, params: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})


SESSION = [
    _request(
        1,
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    ),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    _request(2, "ping", {}),
    _request(3, "tools/list", {}),
    _request(4, "tools/call", {"name": "search_docs", "arguments": {"query": "alpha setup"}}),
    _request(5, "tools/call", {"name": "search_docs", "arguments": {"query": 7}}),
    _request(6, "tools/call", {"name": "get_doc", "arguments": {"chunk_id": "nope.md#x"}}),
    _request(7, "resources/list", {}),
    _request(8, "resources/templates/list", {}),
    _request(9, "prompts/list", {}),
    _request(10, "tools/call", {"arguments": {}}),
    _request(11, "no/such/method", {}),
]


def _session(argv: list[str]) -> dict[int, dict]:
    """The replies, by request id, of one server that read SESSION and then its end of input."""
    done = subprocess.run(
        argv, input="\n".join(SESSION) + "\n", capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return {reply["id"]: reply for reply in replies}


def test_every_method_answers_as_when_the_models_were_built_at_import(text_only_index: Path) -> None:
    serve = ["serve", "--index", str(text_only_index), "--mode", "bm25"]
    deferred = _session([sys.executable, "-m", "docs_mcp", *serve])
    built = _session([sys.executable, "-c", BUILT_AT_IMPORT, *serve])
    assert deferred == built
    by_id = deferred
    assert sorted(by_id) == list(range(1, 12))
    assert by_id[1]["result"]["serverInfo"]["name"] == "docs-mcp" and by_id[2]["result"] == {}
    assert by_id[4]["result"]["isError"] is False and by_id[5]["result"]["isError"] is True
    assert "error" in by_id[10] and by_id[11]["error"]["code"] == -32601
