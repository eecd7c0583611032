"""Where each coding agent reads its MCP servers and its rules, per scope (checked against each client's documentation).

| client   | project scope                                   | user scope                                          |
|----------|-------------------------------------------------|-----------------------------------------------------|
| claude   | .mcp.json (mcpServers), CLAUDE.md, .claude/skills | ~/.claude.json (mcpServers), ~/.claude/CLAUDE.md, ~/.claude/skills |
| cursor   | .cursor/mcp.json (mcpServers), .cursor/rules/*.mdc | ~/.cursor/mcp.json (user rules live in Cursor's settings) |
| vscode   | .vscode/mcp.json (servers), .github/copilot-instructions.md | the profile's mcp.json (user instructions live in the profile) |
| windsurf | ~/.codeium/windsurf/mcp_config.json (the only one), .windsurf/rules/*.md | the same file, ~/.codeium/windsurf/memories/global_rules.md |
| codex    | .codex/config.toml (mcp_servers, trusted projects), AGENTS.md | ~/.codex/config.toml, ~/.codex/AGENTS.md |

A client that starts project servers in the project folder (Claude Code) gets the index path
relative to it; Cursor and VS Code expand ``${workspaceFolder}``; the others get an absolute path.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from docs_mcp.environment import variable as environment_variable


class Scope(StrEnum):
    project = "project"
    user = "user"


class IndexPath(StrEnum):
    """How a client's server entry names the index."""

    relative = "relative"  # to the project folder, where the client starts the server
    workspace = "workspace"  # ${workspaceFolder}/..., expanded by the client
    absolute = "absolute"


@dataclass(frozen=True)
class ServerFile:
    """A JSON or TOML file holding the client's MCP servers, and the shape of one entry in it."""

    path: Path
    container: tuple[str, ...]  # JSON: the keys of the object holding the servers; TOML: the table's key
    fmt: str  # "json" or "toml"
    typed: bool  # the entry carries "type": "stdio"
    index_path: IndexPath


@dataclass(frozen=True)
class RuleFile:
    """Where the client reads the agent rule: a block in the user's file, or a file of ours."""

    path: Path
    owned: bool  # True: the whole file is ours (it has our frontmatter); False: a marked block in the user's file
    frontmatter: str = ""  # owned files only: what goes before the block


@dataclass(frozen=True)
class Target:
    """What setup writes for one client in one scope."""

    client: Client
    scope: Scope
    servers: ServerFile
    rule: RuleFile | None
    skill: Path | None  # a Claude Code skill (SKILL.md) that searches through the CLI
    notes: tuple[str, ...] = ()
    # Claude Code starts a project's .mcp.json server once it is approved: the approval it records
    # itself when you answer yes (enabledMcpjsonServers in the project's local, uncommitted settings).
    approval: Path | None = None


@dataclass(frozen=True)
class Client:
    """One coding agent: its command-line name, its display name and where it reads things."""

    name: str
    title: str
    target: Callable[[Scope, Path, Path, str], Target]  # (scope, project, home, server name) -> Target
    restart: str  # how the user makes the client pick up the change


def _claude(scope: Scope, project: Path, home: Path, name: str) -> Target:
    client = CLIENTS["claude"]
    config = _folder_from_environment("CLAUDE_CONFIG_DIR", home / ".claude")
    if scope is Scope.project:
        return Target(
            client,
            scope,
            ServerFile(project / ".mcp.json", ("mcpServers",), "json", True, IndexPath.relative),
            RuleFile(project / "CLAUDE.md", owned=False),
            project / ".claude" / "skills" / name / "SKILL.md",
            (
                "The server is approved in .claude/settings.local.json (your local settings); Claude Code starts it "
                "in a folder you trust (the trust prompt of your first `claude` run there).",
            ),
            approval=project / ".claude" / "settings.local.json",
        )
    state = config / ".claude.json" if environment_variable("CLAUDE_CONFIG_DIR") else home / ".claude.json"
    return Target(
        client, scope,
        ServerFile(state, ("mcpServers",), "json", True, IndexPath.absolute),
        RuleFile(config / "CLAUDE.md", owned=False),
        config / "skills" / name / "SKILL.md",
    )  # fmt: skip


def _cursor(scope: Scope, project: Path, home: Path, name: str) -> Target:
    client = CLIENTS["cursor"]
    frontmatter = (
        "---\ndescription: When to search the indexed documentation with the docs-mcp server\nalwaysApply: true\n---\n"
    )
    if scope is Scope.project:
        return Target(
            client, scope,
            ServerFile(project / ".cursor" / "mcp.json", ("mcpServers",), "json", False, IndexPath.workspace),
            RuleFile(project / ".cursor" / "rules" / f"{name}.mdc", owned=True, frontmatter=frontmatter),
            None,
        )  # fmt: skip
    return Target(
        client, scope,
        ServerFile(home / ".cursor" / "mcp.json", ("mcpServers",), "json", False, IndexPath.absolute),
        None, None,
        ("Cursor keeps user rules in its settings (Cursor Settings > Rules), not in a file: paste the project rule there if you want it everywhere.",),
    )  # fmt: skip


def _vscode(scope: Scope, project: Path, home: Path, name: str) -> Target:
    client = CLIENTS["vscode"]
    if scope is Scope.project:
        return Target(
            client, scope,
            ServerFile(project / ".vscode" / "mcp.json", ("servers",), "json", True, IndexPath.workspace),
            RuleFile(project / ".github" / "copilot-instructions.md", owned=False),
            None,
        )  # fmt: skip
    return Target(
        client, scope,
        ServerFile(vscode_user_dir(home) / "mcp.json", ("servers",), "json", True, IndexPath.absolute),
        None, None,
        ("VS Code keeps user instructions in your profile (Chat: New Instructions File > User): the project rule is in .github/copilot-instructions.md.",),
    )  # fmt: skip


def _windsurf(scope: Scope, project: Path, home: Path, name: str) -> Target:
    client = CLIENTS["windsurf"]
    servers = ServerFile(
        home / ".codeium" / "windsurf" / "mcp_config.json", ("mcpServers",), "json", False, IndexPath.absolute
    )
    if scope is Scope.project:
        return Target(
            client, scope, servers,
            RuleFile(project / ".windsurf" / "rules" / f"{name}.md", owned=True, frontmatter="---\ntrigger: always_on\n---\n"),
            None,
            ("Windsurf reads MCP servers from one file for every project (~/.codeium/windsurf/mcp_config.json); "
             "the entry is named after this project so another project's does not replace it.",),
        )  # fmt: skip
    return Target(
        client, scope, servers,
        RuleFile(home / ".codeium" / "windsurf" / "memories" / "global_rules.md", owned=False),
        None,
    )  # fmt: skip


def _codex(scope: Scope, project: Path, home: Path, name: str) -> Target:
    client = CLIENTS["codex"]
    codex_home = _folder_from_environment("CODEX_HOME", home / ".codex")
    if scope is Scope.project:
        return Target(
            client, scope,
            ServerFile(project / ".codex" / "config.toml", ("mcp_servers",), "toml", False, IndexPath.absolute),
            RuleFile(project / "AGENTS.md", owned=False),
            None,
            ("Codex reads a project's .codex/config.toml only once you trust the project; or run setup with --scope user.",),
        )  # fmt: skip
    return Target(
        client, scope,
        ServerFile(codex_home / "config.toml", ("mcp_servers",), "toml", False, IndexPath.absolute),
        RuleFile(codex_home / "AGENTS.md", owned=False),
        None,
    )  # fmt: skip


def _folder_from_environment(variable: str, default: Path) -> Path:
    """The folder a client's environment variable points to (CLAUDE_CONFIG_DIR, CODEX_HOME), else its default."""
    value = environment_variable(variable)
    return Path(value).expanduser() if value else default


def config_folders(home: Path) -> tuple[Path, ...]:
    """The clients' user folders, which their variables may put outside the home folder (CLAUDE_CONFIG_DIR, CODEX_HOME)."""
    return (
        _folder_from_environment("CLAUDE_CONFIG_DIR", home / ".claude"),
        _folder_from_environment("CODEX_HOME", home / ".codex"),
        vscode_user_dir(home),
    )


def vscode_user_dir(home: Path) -> Path:
    """VS Code's user settings folder (where its user mcp.json lives) on this platform."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Code" / "User"
    if sys.platform == "win32":
        return _folder_from_environment("APPDATA", home / "AppData" / "Roaming") / "Code" / "User"
    return _folder_from_environment("XDG_CONFIG_HOME", home / ".config") / "Code" / "User"


CLIENTS: dict[str, Client] = {
    "claude": Client(
        "claude", "Claude Code", _claude, "Start a new Claude Code session; `claude mcp list` shows the server."
    ),
    "cursor": Client(
        "cursor",
        "Cursor",
        _cursor,
        "Open Cursor Settings > MCP and enable the server (Cursor reloads mcp.json on change).",
    ),
    "vscode": Client(
        "vscode",
        "VS Code (GitHub Copilot)",
        _vscode,
        "In VS Code, run 'MCP: List Servers' and start the server; use Copilot's agent mode.",
    ),
    "windsurf": Client(
        "windsurf", "Windsurf", _windsurf, "In Windsurf, open the MCP panel (Cascade > plugins) and press refresh."
    ),
    "codex": Client("codex", "Codex", _codex, "Start a new Codex session; `codex mcp list` shows the server."),
}
