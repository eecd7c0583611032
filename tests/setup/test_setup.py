"""`docs-mcp setup CLIENT` on temporary projects and home folders: write, re-run (no change), remove (byte-identical).

Every client in both scopes, in a fresh project and in a lived-in one whose files hold the user's own
settings, comments and servers.  The written server entries are started as the client would start them
(a real MCP session), and the real Claude Code CLI checks its own (skipped, with the reason, without it).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setup_sandbox import SERVE, list_tools, plant, run_command, run_setup, tree
from typer.testing import CliRunner

from docs_mcp import cli
from docs_mcp.server.setup.json_members import parse

CLIENTS = ("claude", "cursor", "vscode", "windsurf", "codex")

LIVED_IN_PROJECT = {
    "CLAUDE.md": "# Notes for agents\n\nRun `make test` before committing.\n",
    "AGENTS.md": "Build with `make`.",  # no final line break
    ".github/copilot-instructions.md": "Prefer small functions.\n",
    ".mcp.json": '{\n  "mcpServers": {\n    "github": {\n      "command": "gh-mcp"\n    }\n  }\n}\n',
    ".claude/settings.local.json": '{\n  "permissions": {\n    "allow": ["Bash(make:*)"]\n  }\n}\n',
    ".cursor/mcp.json": '{\n\t"mcpServers": {\n\t\t"db": {"command": "db-mcp", "args": []}\n\t}\n}\n',
    ".vscode/mcp.json": '// workspace servers\n{\n  "servers": {\n    "db": {"type": "stdio", "command": "db-mcp"}, // ours\n  },\n  "inputs": []\n}\n',
    ".codex/config.toml": '# project settings\nmodel = "o3"\n\n[mcp_servers.db]\ncommand = "db-mcp"\n',
}
LIVED_IN_HOME = {
    ".claude.json": '{\n  "numStartups": 3,\n  "mcpServers": {}\n}\n',
    ".claude/CLAUDE.md": "Answer tersely.\n",
    ".cursor/mcp.json": "{}",
    ".codeium/windsurf/mcp_config.json": '{"mcpServers":{"fs":{"command":"fs-mcp"}}}',
    ".codeium/windsurf/memories/global_rules.md": "Use British spelling.\n",
    ".codex/config.toml": 'model = "o3"  # default\n',
    ".codex/AGENTS.md": "",
    ".config/Code/User/mcp.json": '{\n  "servers": {},\n  "inputs": []\n}\n',
}


@pytest.mark.parametrize("lived_in", [False, True], ids=["fresh", "lived-in"])
@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("client", CLIENTS)
def test_setup_round_trips(client, scope, lived_in, sandbox, docs_index):
    project, home = sandbox
    if lived_in:
        plant(project, LIVED_IN_PROJECT)
        plant(home, LIVED_IN_HOME)
    original = tree(project, home)

    first = run_setup(project, docs_index, client, "--scope", scope)
    written = tree(project, home)
    assert written != original
    assert "set up" in first.output
    for path, data in written.items():  # every config still parses (VS Code's is JSON with comments)
        if data is not None and path.endswith(".json"):
            (parse if "/.vscode/" in path else json.loads)(data.decode())
        if data is not None and path.endswith(".toml"):
            tomllib.loads(data.decode())
    for path, data in original.items():
        if data and path.endswith(".md"):
            assert data in written[path], f"{path}: the user's text must stay as it was"

    again = run_setup(project, docs_index, client, "--scope", scope)
    assert tree(project, home) == written
    assert "nothing to change" in again.output

    run_setup(project, docs_index, client, "--scope", scope, "--remove")
    assert tree(project, home) == original


def test_the_files_each_client_reads(sandbox, docs_index, snapshot):
    """What setup writes, client by client (project scope, fresh project; temporary paths replaced)."""
    project, home = sandbox
    written = {}
    for client in CLIENTS:
        before = tree(project, home)
        run_setup(project, docs_index, client)
        for path, data in tree(project, home).items():
            if data is not None and before.get(path) != data:
                written[f"{client}: {_placeholders(path, project, home, docs_index)}"] = _placeholders(
                    data.decode(), project, home, docs_index
                )
    assert written == snapshot


def _placeholders(text: str, project: Path, home: Path, index: Path) -> str:
    for path, name in ((index, "<INDEX>"), (project, "<PROJECT>"), (home, "<HOME>")):
        text = text.replace(str(path), name)
    return text.replace(sys.executable, "<PYTHON>").replace(shlex.quote(sys.executable), "<PYTHON>")


@pytest.mark.parametrize(("client", "file", "expand"), [
    ("claude", ".mcp.json", False),  # Claude Code starts project servers in the project folder: a relative index
    ("vscode", ".vscode/mcp.json", True),  # ${workspaceFolder}
    ("cursor", ".cursor/mcp.json", True),
    ("codex", ".codex/config.toml", False),
])  # fmt: skip
def test_the_written_entry_starts_a_server_that_answers(client, file, expand, sandbox, docs_index, tmp_path):
    project, _ = sandbox
    inside = project / ".docs-mcp"
    shutil.copytree(docs_index, inside)  # the index in the project, where setup looks by default
    done = CliRunner().invoke(cli.app, ["setup", client, "--project", str(project), "--command", SERVE])
    assert done.exit_code == 0, done.output
    text = (project / file).read_text()
    servers = (
        tomllib.loads(text)["mcp_servers"]
        if file.endswith(".toml")
        else json.loads(text)["servers" if client == "vscode" else "mcpServers"]
    )
    entry = servers["docs-mcp"]
    args = [arg.replace("${workspaceFolder}", str(project)) if expand else arg for arg in entry["args"]]
    if client == "claude":
        assert args[-1] == ".docs-mcp"
    tools = list_tools(entry["command"], args, cwd=project, errlog=tmp_path / "server.log")
    assert {"search_docs", "get_doc"} <= tools


def test_dry_run_shows_the_diff_and_writes_nothing(sandbox, docs_index):
    project, home = sandbox
    plant(project, LIVED_IN_PROJECT)
    original = tree(project, home)
    done = run_setup(project, docs_index, "claude", "--dry-run")
    assert tree(project, home) == original
    assert '+    "docs-mcp": {' in done.output and "+<!-- BEGIN docs-mcp" in done.output
    assert "would be updated" in done.output and "nothing written" in done.output


def test_a_re_run_with_another_index_updates_the_entry_and_the_rule_in_place(sandbox, docs_index, tmp_path):
    project, _ = sandbox
    plant(project, LIVED_IN_PROJECT)
    run_setup(project, docs_index, "codex")
    other = tmp_path / "other-index"
    shutil.copytree(docs_index, other)
    done = run_setup(project, other, "codex")
    assert "updated" in done.output
    config = tomllib.loads((project / ".codex" / "config.toml").read_text())
    assert config["mcp_servers"]["docs-mcp"]["args"][-1] == str(other)
    assert config["mcp_servers"]["db"] == {"command": "db-mcp"} and config["model"] == "o3"
    assert (project / "AGENTS.md").read_text().count("BEGIN docs-mcp") == 1


def test_without_an_index_it_says_how_to_build_one(sandbox):
    project, home = sandbox
    done = run_command(project, "setup", "claude")
    assert done.returncode != 0
    assert "docs-mcp index" in done.stderr
    assert tree(project, home) == {}


# -- the real Claude Code CLI ---------------------------------------------------------------------------

CLAUDE = shutil.which("claude")


@pytest.mark.skipif(
    CLAUDE is None, reason="the Claude Code CLI is not installed (npm install -g @anthropic-ai/claude-code)"
)
@pytest.mark.parametrize("scope", ["project", "user"])
def test_claude_code_lists_the_server_as_connected(scope, sandbox, docs_index):
    project, home = sandbox
    # A folder you have opened Claude Code in is trusted (its first-run prompt); setup does not decide that for you.
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    run_setup(project, docs_index, "claude", "--scope", scope)
    env = {**os.environ, "HOME": str(home), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"}
    listed = subprocess.run([CLAUDE, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=180)
    assert listed.returncode == 0, listed.stderr
    line = next((line for line in listed.stdout.splitlines() if line.startswith("docs-mcp:")), "")
    assert "Connected" in line, listed.stdout + listed.stderr
