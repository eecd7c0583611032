"""`docs-mcp setup` on project and home folders that hold surprises: it changes only what it wrote.

A server entry of the same name that the user wrote, links that leave the project (a cloned repository's
``CLAUDE.md -> ../.bashrc``), files that are no files, JSON it cannot read, duplicate keys, marker lines
quoted in the user's code blocks, several ``--name``s, runs at the same time, a virtual environment.
The command runs as the user runs it (a subprocess) wherever it ends in an error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setup_sandbox import FIFO, SERVE, Link, list_tools, plant, run_command, run_setup, tree

BEGIN = "<!-- BEGIN docs-mcp (written by `docs-mcp setup`; edit outside this block) -->\n"
USER_ENTRY = '{\n  "mcpServers": {\n    "docs-mcp": {\n      "command": "my-own-docs-server"\n    }\n  }\n}\n'
QUOTED_BLOCK = "# Notes\n\nsetup writes this:\n\n```markdown\n" + BEGIN + "(the rule)\n<!-- END docs-mcp -->\n```\n"


@pytest.mark.parametrize(("planted", "args", "message"), [
    # files it cannot read
    ({"project/.mcp.json": '{"mcpServers": {'}, ("claude",), "is not valid JSON"),
    ({"project/.mcp.json": '{"mcpServers": {"x": {"command": "\\q"}}}'}, ("claude",), "invalid escape"),
    ({"project/.mcp.json": '{"x": ' + "[" * 3000 + "]" * 3000 + "}"}, ("claude",), "more than 200 deep"),
    ({"project/.codex/config.toml": "x = " + "[" * 3000 + "]" * 3000 + "\n"}, ("codex",), "too deep to read"),
    ({"project/.mcp.json": FIFO}, ("claude",), "is not a regular file"),
    ({"project/.mcp.json": "{}" + " " * 32 * 2**20}, ("claude",), "is larger than 32 MiB"),
    # what the user wrote, in the place setup would write
    ({"project/.mcp.json": USER_ENTRY}, ("claude",), "already has the server entry mcpServers.docs-mcp"),
    ({"project/.mcp.json": USER_ENTRY}, ("claude", "--remove"), "which `docs-mcp setup` did not write"),
    ({"project/.cursor/mcp.json": USER_ENTRY}, ("cursor",), "did not write"),
    ({"project/.vscode/mcp.json": USER_ENTRY.replace("mcpServers", "servers")}, ("vscode",), "did not write"),
    ({"home/.codeium/windsurf/mcp_config.json": USER_ENTRY}, ("windsurf", "--scope", "user"), "did not write"),
    ({"home/.claude.json": USER_ENTRY}, ("claude", "--scope", "user", "--remove"), "did not write"),
    ({"project/.codex/config.toml": '[mcp_servers.docs-mcp]\ncommand = "mine"\n'}, ("codex",), "did not write"),
    ({"project/.cursor/rules/docs-mcp.mdc": "my own rule\n"}, ("cursor",), "was not written by `docs-mcp setup`"),
    ({"project/CLAUDE.md": BEGIN}, ("claude",), "unpaired"),
    ({"project/CLAUDE.md": "Example:\n\n```bash\ndocs-mcp setup claude\n"}, ("claude",), "ends inside a code block"),
    ({}, ("claude", "--name", "Docs MCP"), "Invalid server name"),
    # links that leave the project (or, in user scope, the home folder)
    ({"outside/.bashrc": "export PATH=~/bin:$PATH\n", "project/CLAUDE.md": Link("../outside/.bashrc")}, ("claude",), "leads out of"),
    ({"outside/.bashrc": "alias ll='ls -l'\n", "project/CLAUDE.md": Link("../outside/.bashrc")}, ("claude", "--dry-run"), "leads out of"),
    ({"outside/servers.json": "{}\n", "project/.vscode": Link("../outside")}, ("vscode",), "leads out of"),
    ({"outside/skills/x": "", "project/.claude": Link("../outside")}, ("claude",), "leads out of"),
    ({"project/.mcp.json": Link("/dev/zero")}, ("claude",), "leads out of"),
    ({"outside/rules.md": "Be terse.\n", "home/.claude/CLAUDE.md": Link("../../outside/rules.md")}, ("claude", "--scope", "user"), "leads out of"),
])  # fmt: skip
def test_what_it_cannot_do_safely_is_refused_and_nothing_is_written(planted, args, message, sandbox, docs_index):
    project, home = sandbox
    plant(project.parent, planted)
    original = tree(project.parent)
    done = run_command(project, "setup", *args, "--index", str(docs_index))
    assert done.returncode == 1 and done.stdout == "", done.stderr
    assert message in done.stderr and "error: " in done.stderr and "hint: " in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "export PATH" not in done.stderr
    assert tree(project.parent) == original


def test_an_entry_setup_wrote_is_marked_as_setups_and_only_that_one_is_removed(sandbox, docs_index):
    project, home = sandbox
    plant(project, {".mcp.json": '{\n  "mcpServers": {\n    "db": {"command": "db-mcp"}\n  }\n}\n'})
    original = tree(project)
    run_setup(project, docs_index, "claude")
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["docs-mcp"]
    assert entry["env"] == {"DOCS_MCP_SETUP": "1"}
    run_setup(project, docs_index, "claude", "--remove")
    assert tree(project) == original


def test_an_entry_an_older_setup_wrote_without_the_mark_is_still_its_own(sandbox, docs_index):
    """Exactly the entry setup writes, but for the mark: replacing or removing it takes nothing of the user's."""
    project, home = sandbox
    run_setup(project, docs_index, "cursor")
    path = project / ".cursor" / "mcp.json"
    unmarked = json.loads(path.read_text())
    del unmarked["mcpServers"]["docs-mcp"]["env"]
    path.write_text(json.dumps(unmarked))
    run_setup(project, docs_index, "cursor")
    assert json.loads(path.read_text())["mcpServers"]["docs-mcp"]["env"] == {"DOCS_MCP_SETUP": "1"}


def test_with_the_container_key_twice_the_entry_goes_into_the_one_clients_read(sandbox, docs_index):
    project, home = sandbox
    original = '{\n  "mcpServers": {"old": {"command": "x"}},\n  "mcpServers": {"db": {"command": "db-mcp"}}\n}\n'
    plant(project, {".mcp.json": original})
    run_setup(project, docs_index, "claude")
    read_by_clients = json.loads((project / ".mcp.json").read_text())["mcpServers"]  # the last of the two
    assert set(read_by_clients) == {"db", "docs-mcp"}
    run_setup(project, docs_index, "claude", "--remove")
    assert (project / ".mcp.json").read_text() == original


def test_marker_lines_quoted_in_a_code_block_are_the_users_text(sandbox, docs_index):
    project, home = sandbox
    plant(project, {"CLAUDE.md": QUOTED_BLOCK})
    run_setup(project, docs_index, "claude")
    written = (project / "CLAUDE.md").read_text()
    assert written.startswith(QUOTED_BLOCK) and "(the rule)" in written
    assert written.count("BEGIN docs-mcp") == 2 and "search_docs_expanded" in written[len(QUOTED_BLOCK) :]
    run_setup(project, docs_index, "claude")
    assert (project / "CLAUDE.md").read_text() == written
    run_setup(project, docs_index, "claude", "--remove")
    assert (project / "CLAUDE.md").read_text() == QUOTED_BLOCK


@pytest.mark.parametrize(
    ("client", "rules", "servers"), [("claude", "CLAUDE.md", ".mcp.json"), ("codex", "AGENTS.md", ".codex/config.toml")]
)
def test_each_name_has_its_own_rule_block_and_entry(client, rules, servers, sandbox, docs_index):
    project, home = sandbox
    plant(project, {rules: "# Team rules\n"})
    original = tree(project)
    run_setup(project, docs_index, client, "--name", "acme-docs")
    only_acme = tree(project)
    run_setup(project, docs_index, client, "--name", "sdk-docs")
    text = (project / rules).read_text()
    assert (
        "BEGIN acme-docs" in text
        and "BEGIN sdk-docs" in text
        and "`acme-docs` MCP server" in text
        and "`sdk-docs` MCP server" in text
    )
    config = (project / servers).read_text()
    held = tomllib.loads(config)["mcp_servers"] if servers.endswith(".toml") else json.loads(config)["mcpServers"]
    assert set(held) == {"acme-docs", "sdk-docs"}
    run_setup(project, docs_index, client, "--name", "sdk-docs", "--remove")
    assert tree(project) == only_acme
    run_setup(project, docs_index, client, "--name", "acme-docs", "--remove")
    assert tree(project) == original


def test_a_link_inside_the_project_is_followed_and_left_as_it_was(sandbox, docs_index):
    project, home = sandbox
    plant(
        project,
        {"AGENTS.md": "Build with make.\n", "CLAUDE.md": Link("AGENTS.md"), ".mcp.json": Link("config/mcp.json")},
    )
    original = tree(project)
    run_setup(project, docs_index, "claude")
    assert (project / "CLAUDE.md").is_symlink() and "BEGIN docs-mcp" in (project / "AGENTS.md").read_text()
    assert (project / ".mcp.json").is_symlink() and "docs-mcp" in json.loads(
        (project / "config" / "mcp.json").read_text()
    )["mcpServers"]
    run_setup(project, docs_index, "claude", "--remove")
    assert tree(project) == original  # the dangling link stays, the file setup made behind it goes


def test_files_keep_their_mode_and_new_ones_get_the_umasks(sandbox, docs_index):
    project, home = sandbox
    plant(project, {"CLAUDE.md": "Private notes.\n"})
    (project / "CLAUDE.md").chmod(0o600)
    umask = os.umask(0o022)
    try:
        run_setup(project, docs_index, "claude")
    finally:
        os.umask(umask)
    assert (project / "CLAUDE.md").stat().st_mode & 0o777 == 0o600
    assert (project / ".mcp.json").stat().st_mode & 0o777 == 0o644
    assert not [path for path in project.rglob("*.tmp")]


_RUN_ON_GO = """
import sys
from docs_mcp import cli
print("ready", flush=True)
sys.stdin.readline()
sys.argv = ["docs-mcp", *sys.argv[1:]]
cli.main()
"""


def test_runs_at_the_same_time_lose_no_name(sandbox, docs_index):
    """Sixteen processes, released together once started, each set up a server of its own in one project."""
    project, home = sandbox
    names = [f"docs-{number}" for number in range(16)]
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _RUN_ON_GO, "setup", "claude", "--name", name, "--project", str(project), "--index", str(docs_index), "--command", SERVE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for name in names
    ]  # fmt: skip
    for run in runs:
        assert run.stdout.readline() == "ready\n"
    for run in runs:
        run.stdin.write("go\n")
        run.stdin.flush()
    for run in runs:
        _, errors = run.communicate(timeout=300)
        assert run.returncode == 0, errors
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert sorted(settings["enabledMcpjsonServers"]) == sorted(names)
    assert set(json.loads((project / ".mcp.json").read_text())["mcpServers"]) == set(names)
    rules = (project / "CLAUDE.md").read_text()
    assert all(f"BEGIN {name} (" in rules for name in names)


VIRTUAL_ENVIRONMENT_PROGRAM = Path(sys.prefix) / "bin" / "docs-mcp"


@pytest.mark.skipif(
    sys.prefix == sys.base_prefix or not VIRTUAL_ENVIRONMENT_PROGRAM.exists(),
    reason="the tests do not run from a virtual environment with docs-mcp installed",
)
def test_from_an_activated_virtual_environment_it_writes_the_programs_absolute_path(sandbox, docs_index, tmp_path):
    project, home = sandbox
    shutil.copytree(docs_index, project / ".docs-mcp")
    outside = os.pathsep.join(
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if Path(folder) != VIRTUAL_ENVIRONMENT_PROGRAM.parent
    )
    activated = {
        **os.environ,
        "VIRTUAL_ENV": sys.prefix,
        "PATH": f"{VIRTUAL_ENVIRONMENT_PROGRAM.parent}{os.pathsep}{outside}",
    }
    done = run_command(project, "setup", "claude", program=("docs-mcp",), env=activated)
    assert done.returncode == 0, done.stderr
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["docs-mcp"]
    assert entry["command"] == str(VIRTUAL_ENVIRONMENT_PROGRAM)
    assert f"{VIRTUAL_ENVIRONMENT_PROGRAM} search" in (project / "CLAUDE.md").read_text()
    # A client started from another shell (no virtual environment on its PATH) starts it.
    assert {"search_docs", "get_doc"} <= list_tools(
        entry["command"], entry["args"], cwd=project, errlog=tmp_path / "server.log", path=outside
    )
