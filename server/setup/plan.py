"""What `docs-mcp setup CLIENT` changes, file by file, and applying it.

A plan is computed first, from the files as they are: for each file the text before and after.
``--dry-run`` prints the plan; otherwise each changed file is replaced atomically (see config_writer.py: inside
the project or home folder only, under a lock held from plan to apply).  The same plan with ``remove``
takes out exactly what setup put in: files it created are deleted (and the folders it created for
them, when left empty), the other files get their original bytes back.

Setup changes only what it wrote: its blocks carry marker lines, its JSON server entries the
SETUP_MARKER variable in their ``env``.  A same-named entry without it is the user's, and refused.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docs_mcp.server.errors import TOO_DEEP_HINT, ConfigFileError, SetupError
from docs_mcp.server.instructions import CommandLine, IndexSummary, agent_rule, skill
from docs_mcp.server.setup import blocks, config_writer, json_members
from docs_mcp.server.setup.clients import Client, IndexPath, RuleFile, Scope, ServerFile, Target, config_folders

NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,47}")
APPROVALS_KEY = "enabledMcpjsonServers"
SETUP_MARKER = ("DOCS_MCP_SETUP", "1")  # in a JSON entry's env: setup wrote it (JSON has no comments to mark it)


@dataclass(frozen=True)
class SetupRequest:
    """One `docs-mcp setup` call: which client, where, and the server it registers."""

    client: Client
    scope: Scope
    project: Path  # absolute
    home: Path
    index: Path  # absolute
    name: str  # the server entry's name (and the skill's and rule file's)
    command: tuple[str, ...]  # runs docs-mcp: ("docs-mcp",) or (python, "-m", "docs_mcp")
    summary: IndexSummary


@dataclass(frozen=True)
class FileChange:
    """One file's text before and after; None for a file that does not exist (before) or is deleted (after)."""

    path: Path
    before: str | None
    after: str | None
    what: str  # "MCP server entry 'docs-mcp'", "agent rule", ...
    root: Path = Path("/")  # the folder (project or home) the file must lie in, and its new folders are made under

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def action(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.before is None:
            return "created"
        return "deleted" if self.after is None else "updated"


def plan(request: SetupRequest, *, remove: bool = False) -> tuple[Target, list[FileChange]]:
    """The target of the request and the change of every file it touches (unchanged files included).

    Raises:
        SetupError: the name is not usable.
        ConfigFileError: a file cannot be read, parsed, or holds something of the same name setup did not write.
    """
    if not NAME_PATTERN.fullmatch(request.name):
        raise SetupError(
            f"Invalid server name {request.name!r}.", "Use lower-case letters, digits and hyphens (e.g. docs-mcp)."
        )
    target = request.client.target(request.scope, request.project, request.home, request.name)
    changes = [_server_change(request, target, remove)]
    if target.rule is not None:
        changes.append(_rule_change(request, target, target.rule, remove))
    if target.skill is not None:
        changes.append(_skill_change(request, target.skill, remove))
    if target.approval is not None:
        changes.append(_approval_change(request, target, target.approval, remove))
    return target, [replace(change, root=config_writer.root_of(change.path, roots(request))) for change in changes]


def roots(request: SetupRequest) -> tuple[Path, ...]:
    """The folders setup's files lie in: the project, the home folder, the folders the clients' variables name."""
    return (request.project, request.home, *config_folders(request.home))


def apply(changes: list[FileChange]) -> None:
    """Write every changed file (atomically), delete the ones to delete and the folders left empty under their root.

    Raises:
        ConfigFileError: a file cannot be written.
    """
    for change in changes:
        if not change.changed:
            continue
        try:
            if change.after is None:
                config_writer.delete(change.path, change.root)
            else:
                config_writer.write(change.path, change.root, change.after)
        except OSError as error:
            raise ConfigFileError(
                str(change.path),
                f"cannot be written ({error.strerror or error})",
                "Check its permissions and run setup again.",
            ) from None


def server_entry(request: SetupRequest, servers: ServerFile, *, marked: bool = True) -> dict[str, Any]:
    """The client's MCP server entry: ``docs-mcp serve --index INDEX`` over stdio (in JSON, with SETUP_MARKER)."""
    command, *args = request.command
    entry: dict[str, Any] = {"type": "stdio"} if servers.typed else {}
    entry["command"] = command
    entry["args"] = [*args, "serve", "--index", _index_argument(request, servers.index_path)]
    if marked and servers.fmt == "json":
        entry["env"] = dict([SETUP_MARKER])
    return entry


def entry_name(request: SetupRequest, target: Target) -> str:
    """The entry's name: the requested one, suffixed with the project's name where one file serves every project."""
    if target.client.name == "windsurf" and target.scope is Scope.project:
        slug = re.sub(r"[^a-z0-9]+", "-", request.project.name.lower()).strip("-") or "project"
        return f"{request.name}-{slug}"
    return request.name


def command_line(request: SetupRequest) -> CommandLine:
    """The shell commands an agent runs without MCP: the index relative to the project in project scope."""
    program = " ".join(_shell_word(word) for word in request.command)
    relative = request.scope is Scope.project and request.index.is_relative_to(request.project)
    index = request.index.relative_to(request.project).as_posix() if relative else str(request.index)
    flag = f" --index {_shell_word(index)}"
    return CommandLine(search=f"{program} search{flag}", get=f"{program} get{flag}")


# -- one change per file -----------------------------------------------------------------------------


def _server_change(request: SetupRequest, target: Target, remove: bool) -> FileChange:
    servers = target.servers
    name = entry_name(request, target)
    before = _read(servers.path, request)
    label = f"MCP server entry '{name}'"
    if servers.fmt == "toml":
        return FileChange(servers.path, before, _toml_servers(request, servers, name, before, remove), label)
    text = before or ""
    path = str(servers.path)
    existing = json_members.member_value(text, servers.container, name, path) if text.strip() else None
    if existing is not None and not _written_by_setup(existing, request, servers):
        raise ConfigFileError(
            path, f"already has the server entry {'.'.join(servers.container)}.{name}, which `docs-mcp setup` did not write",
            f"Remove that entry yourself, or pass --name with another name (e.g. --name {request.name}-docs); nothing was written.",
        )  # fmt: skip
    if remove:
        after = json_members.remove_member(text, servers.container, name, path)
    else:
        after = json_members.set_member(text, servers.container, name, server_entry(request, servers), path)
    return FileChange(servers.path, before, _none_if_gone(before, after), label)


def _written_by_setup(entry: Any, request: SetupRequest, servers: ServerFile) -> bool:
    """Whether an entry is setup's: it carries SETUP_MARKER, or is exactly what setup writes now without it
    (an entry an older setup wrote: replacing or removing it takes nothing of the user's)."""
    env = entry.get("env") if isinstance(entry, dict) else None
    marked = isinstance(env, dict) and env.get(SETUP_MARKER[0]) == SETUP_MARKER[1]
    return marked or entry == server_entry(request, servers, marked=False)


def _toml_servers(
    request: SetupRequest, servers: ServerFile, name: str, before: str | None, remove: bool
) -> str | None:
    text = before or ""
    path = str(servers.path)
    ours = blocks.find(text, blocks.TOML, request.name, path)
    if remove:
        return _without_block(text, blocks.TOML, request.name, path) if ours else before
    outside = text if ours is None else text[: ours[0]] + text[ours[1] :]
    table = servers.container[0]
    if name in (_toml(outside, path).get(table) or {}):
        raise ConfigFileError(
            path, f"already has [{table}.{name}], which `docs-mcp setup` did not write",
            f"Remove that table, or pass --name with another name (e.g. --name {name}-docs).",
        )  # fmt: skip
    entry = server_entry(request, servers)
    body = f"[{table}.{name}]\n" + "".join(
        f"{key} = {json.dumps(value, ensure_ascii=False)}\n" for key, value in entry.items()
    )
    after = (
        blocks.put(text, body, blocks.TOML, request.name, path)
        if text
        else blocks.block(body, blocks.TOML, request.name)
    )
    _toml(after, path)  # the file must still read as TOML (an inline `mcp_servers = {...}` would clash)
    return after


def _rule_change(request: SetupRequest, target: Target, rule: RuleFile, remove: bool) -> FileChange:
    body = agent_rule(
        request.summary,
        server=entry_name(request, target),
        cli=command_line(request),
        project=request.scope is Scope.project,
    )
    before, name, where = _read(rule.path, request), request.name, str(rule.path)
    if rule.owned:
        after = _owned_file(rule.path, before, rule.frontmatter, body, name, remove)
    elif remove:
        after = _without_block(before, blocks.MARKDOWN, name, where) if before is not None else None
    else:
        after = (
            blocks.put(before, body, blocks.MARKDOWN, name, where)
            if before is not None
            else blocks.block(body, blocks.MARKDOWN, name)
        )
    return FileChange(rule.path, before, after, "agent rule")


def _skill_change(request: SetupRequest, path: Path, remove: bool) -> FileChange:
    description, body = skill(request.summary, name=request.name, cli=command_line(request))
    frontmatter = f"---\nname: {request.name}\ndescription: {json.dumps(description, ensure_ascii=False)}\n---\n"
    before = _read(path, request)
    return FileChange(
        path,
        before,
        _owned_file(path, before, frontmatter, body, request.name, remove),
        "Claude Code skill (command-line search)",
    )


def _approval_change(request: SetupRequest, target: Target, path: Path, remove: bool) -> FileChange:
    before = _read(path, request)
    name, key, where = entry_name(request, target), APPROVALS_KEY, str(path)
    after = (
        json_members.remove_item(before or "", key, name, where)
        if remove
        else json_members.add_item(before or "", key, name, where)
    )
    return FileChange(path, before, _none_if_gone(before, after), f"approval of '{name}' ({key})")


def _owned_file(path: Path, before: str | None, frontmatter: str, body: str, name: str, remove: bool) -> str | None:
    """A file of ours: frontmatter, then our block.  A file there without our block is someone else's: refused."""
    where = str(path)
    if before is not None and blocks.find(before, blocks.MARKDOWN, name, where) is None:
        if remove:
            return before
        raise ConfigFileError(
            where, "exists and was not written by `docs-mcp setup`", "Move it aside, or pass --name with another name."
        )
    if remove:
        if before is None:
            return None
        rest = _without_block(before, blocks.MARKDOWN, name, where)
        # Only our frontmatter left (whatever index it described): the file goes; text someone added stays.
        return None if rest is None or re.fullmatch(r"(---\n.*?\n---)?", rest.strip(), re.DOTALL) else rest
    return frontmatter + blocks.block(body, blocks.MARKDOWN, name)


def _without_block(text: str, style: blocks.CommentStyle, name: str, path: str) -> str | None:
    """The text without our block; None (delete the file) when the file was nothing but the block setup created."""
    span = blocks.find(text, style, name, path)
    if span is None:
        return text
    if span[0] == 0 and span[1] == len(text):
        return None  # created holding only the block (an existing file gets a line break before it)
    return blocks.take_out(text, style, name, path)


# -- files ---------------------------------------------------------------------------------------------


def _read(path: Path, request: SetupRequest) -> str | None:
    return config_writer.read(path, config_writer.root_of(path, roots(request)))


def _toml(text: str, path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigFileError(path, f"is not valid TOML ({error})") from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise ConfigFileError(
            path, "nests arrays or inline tables too deep to read",
            TOO_DEEP_HINT,
        ) from None  # fmt: skip


def _none_if_gone(before: str | None, after: str) -> str | None:
    """An emptied document whose file setup created is deleted; an empty file that was there stays."""
    if after == "" and before:
        return None
    return after if before is not None or after else None


def _index_argument(request: SetupRequest, how: IndexPath) -> str:
    inside = request.index.is_relative_to(request.project) and request.scope is Scope.project
    if how is IndexPath.absolute or not inside:
        return str(request.index)
    relative = request.index.relative_to(request.project).as_posix() or "."
    return relative if how is IndexPath.relative else "${workspaceFolder}/" + relative


def _shell_word(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9_./:@%+=-]+", word) else "'" + word.replace("'", "'\\''") + "'"
