"""A stdio server that only searches does not load what only fetching pages or the gateway need.

Spawn to the first answered search is mostly imports (issue 28): the page fetcher and converter
(httpx, BeautifulSoup, the index writer) load when a library tool first needs them, the
gateway's modules only for a server with upstream servers, the MCP SDK's client, its
``mcp.types`` models and its high-level server only when something asks the SDK's package
for them, PyYAML and mistune when a page's front matter, a prompt template or a description
is first read, of the stemmers only the index's own, the gateway's configuration and the TOML
parser only with a config file (issue 40).  A fresh interpreter shows which modules a server's
start and its first search loaded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DEFERRED = (
    "httpx",
    "bs4",
    "rich",
    "docs_mcp.indexer.sources.service",
    "docs_mcp.indexer.build",
    "docs_mcp.server.gateway.gateway_service",
    "mcp.client",
    "mcp.types",
    "mcp.server.mcpserver",
    "yaml",
    "mistune",
    "snowballstemmer.finnish_stemmer",
)

SERVE_AND_SEARCH = """
import json
import os
import sys
from pathlib import Path

from docs_mcp.server.app import ServerSettings, build_server, open_live, tool_registry
from docs_mcp.server.core.tool_registry import ToolCall
from docs_mcp.server.libraries.remote import Sources

index_dir, then, watched = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
settings = ServerSettings(mode="bm25", warm=False)
build_server(index_dir, settings)
live = open_live(index_dir, settings)
registry = tool_registry("bm25", Sources.opened_on_use(index_dir, live))
served = live.acquire()
answer = registry.get("search_docs").answer(ToolCall(served, {"query": "retry backoff"}))
assert not answer.is_error and answer.structured["hits"], answer
if then == "--library-tool":
    resolved = registry.get("resolve_library").answer(ToolCall(served, {"query": "guide"}))
    assert not resolved.is_error, resolved
live.release(served)
live.close()
print(json.dumps(sorted(name for name in watched if name in sys.modules)))
"""


def _loaded(index: Path, *extra: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", SERVE_AND_SEARCH, str(index), *extra, *DEFERRED],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_server_that_answered_a_search_has_not_loaded_fetching_or_the_gateway(tiny_index) -> None:
    assert _loaded(tiny_index, "--search-only") == []


def test_a_library_tool_opens_the_remote_sources_on_first_use(tiny_index) -> None:
    assert "docs_mcp.indexer.sources.service" in _loaded(tiny_index, "--library-tool")


SDK_ON_DEMAND = """
import sys

import docs_mcp.server.app
assert "mcp.client" not in sys.modules
from mcp import Client, MCPError, StdioServerParameters
from mcp.server import MCPServer
import mcp

try:
    from mcp import NoSuchName
except ImportError as error:
    missing = str(error)
print(Client.__name__, MCPError.__name__, StdioServerParameters.__name__, MCPServer.__name__, "Client" in mcp.__all__)
print(missing)
"""


def test_the_sdk_package_runs_its_own_imports_when_a_name_of_it_is_asked_for() -> None:
    done = subprocess.run([sys.executable, "-c", SDK_ON_DEMAND], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    names, missing = done.stdout.strip().splitlines()
    assert names == "Client MCPError StdioServerParameters MCPServer True"
    assert "cannot import name 'NoSuchName' from 'mcp'" in missing


SERVE_HELP = """
import sys

from docs_mcp.cli import main

sys.argv = ["docs-mcp", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(sorted(name for name in ("docs_mcp.eval.commands", "docs_mcp.indexer.commands") if name in sys.modules))
"""


def test_serve_mounts_alone_and_the_root_help_still_lists_every_area() -> None:
    serve = subprocess.run(
        [sys.executable, "-c", SERVE_HELP, "serve", "--help"], capture_output=True, text=True, timeout=300
    )
    assert serve.returncode == 0, serve.stderr
    assert "--index" in serve.stdout and serve.stdout.strip().splitlines()[-1] == "[]"
    root = subprocess.run([sys.executable, "-c", SERVE_HELP, "--help"], capture_output=True, text=True, timeout=300)
    assert root.returncode == 0, root.stderr
    assert all(f" {command} " in root.stdout for command in ("index", "serve", "search", "bench-serve"))


SERVE_STDIO = """
import sys

from docs_mcp.cli import main

watched = sys.argv[4:]
sys.argv = ["docs-mcp", *sys.argv[1:4]]
try:
    main()
except SystemExit as exit:
    assert not exit.code, exit.code
print(sorted(name for name in watched if name in sys.modules))
"""

CONFIG_ONLY = ("docs_mcp.server.gateway.gateway_config", "tomllib")


def _served_over_stdio(index: Path, cwd: Path, env: dict[str, str]) -> list[str]:
    """The watched modules a `docs-mcp serve` over stdio loaded, from start to its client's end of input."""
    done = subprocess.run(
        [sys.executable, "-c", SERVE_STDIO, "serve", "--index", str(index), *CONFIG_ONLY],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_a_server_without_a_config_file_reads_no_toml_nor_the_gateway_config(tiny_index, tmp_path) -> None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("DOCS_MCP_")}
    assert _served_over_stdio(tiny_index, tmp_path, env) == []
    (tmp_path / "docs-mcp.toml").write_text('[server]\ntransport = "stdio"\n', encoding="utf-8")
    assert _served_over_stdio(tiny_index, tmp_path, env) == sorted(CONFIG_ONLY)
