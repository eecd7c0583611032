"""Our test upstream MCP servers and a gateway config file naming them; shared by tests/gateway and
tests/team (tests/ is on sys.path).

Seven catalogs run as stdio servers, the eighth (browser) over streamable HTTP on 127.0.0.1.
The config also carries tool docs, per-project permissions and small limits the tests reach.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

UPSTREAM_SERVER = Path(__file__).parent / "gateway" / "upstream_server.py"
STDIO_CATALOGS = ("github", "files", "postgres", "slack", "calendar", "mail", "helpdesk")
HTTP_CATALOG = "browser"
CALL_TIMEOUT = 5  # seconds: ample for an echo on a loaded machine; the timeout test makes an upstream wait far longer
MAX_ARGUMENT_BYTES = 2048

TOOL_DOCS = {
    "github.yaml": """\
tools:
  - tool: github:create_issue
    summary: Open an issue; labels must already exist in the repository.
    notes: |
      Use list_issues first to avoid duplicates. The body is Markdown.
    examples:
      - title: Report a crash
        args: {owner: acme, repo: api, title: "Crash on start", labels: [bug]}
      - title: Ask a question
        args: {owner: acme, repo: api, title: "How do I rotate keys?"}
      - title: Track a chore
        args: {owner: acme, repo: api, title: "Bump dependencies"}
  - tool: github:archive_repository
    summary: Archive a repository so it becomes read-only (documented, but the server does not offer it).
""",
    "slack-post.md": """\
---
tool: slack:post_message
summary: Post to a channel; use thread_ts to answer in a thread.
examples:
  - title: Announce a deploy
    args: {channel: "#ops", text: "Deployed v2.3"}
---
Messages use Slack mrkdwn, not Markdown: *bold*, _italic_.
""",
}

PERMISSIONS = """\
[tool_permissions.backend]
allow = ["github", "postgres:query", "postgres:list_*", "browser:fetch_url"]
deny = ["github:delete_*"]

[tool_permissions.support]
allow = ["slack:*"]
"""


@contextmanager
def http_upstream(catalog: str = HTTP_CATALOG) -> Iterator[str]:
    """Run one catalog over streamable HTTP on 127.0.0.1; yields its /mcp URL."""
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAM_SERVER), catalog, "--http"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "listening PORT", once the socket accepts connections
        assert line.startswith("listening "), f"upstream exited ({process.poll()}) before listening"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)
        assert process.stdout is not None
        process.stdout.close()


def write_gateway_config(folder: Path, http_url: str, *, settings: str = "") -> Path:
    """A docs-mcp.toml with the eight upstreams, tool docs next to it, permissions and ``[gateway]`` ``settings``."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = folder / "tool-docs"
    docs.mkdir(exist_ok=True)
    for name, text in TOOL_DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    upstreams = "".join(
        f'[[upstream]]\nname = "{catalog}"\ncommand = "{sys.executable}"\nargs = ["{UPSTREAM_SERVER}", "{catalog}"]\n\n'
        for catalog in STDIO_CATALOGS
    )
    upstreams += f'[[upstream]]\nname = "{HTTP_CATALOG}"\nurl = "{http_url}"\n\n'
    gateway = f"[gateway]\ncall_timeout = {CALL_TIMEOUT}\nmax_argument_bytes = {MAX_ARGUMENT_BYTES}\n{settings}\n"
    path = folder / "docs-mcp.toml"
    path.write_text(f"# gateway test config\n{gateway}\n{upstreams}{PERMISSIONS}", encoding="utf-8")
    return path
