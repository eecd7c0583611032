"""Who may find and run which upstream tool: per-project allow/deny patterns (``tool_permissions``).

A pattern is ``server:tool`` with shell wildcards (``github:list_*``), or a bare server name for
all of its tools. A tool is usable when some allow pattern matches it and no deny pattern does.
Over HTTP every request carries a key; a key's project picks the rules, and a project without
rules (or a key without a project) gets nothing: default deny. Over stdio the local user is trusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from docs_mcp.server.gateway.errors import PermissionDeniedError
from docs_mcp.server.gateway.records import TOOL_KEY_SEPARATOR, Caller


@dataclass(frozen=True)
class ProjectRules:
    """One project's allow and deny patterns."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    def permits(self, tool_key: str) -> bool:
        return any(_matches(p, tool_key) for p in self.allow) and not any(_matches(p, tool_key) for p in self.deny)


def _matches(pattern: str, tool_key: str) -> bool:
    if TOOL_KEY_SEPARATOR not in pattern:
        pattern += TOOL_KEY_SEPARATOR + "*"
    return fnmatchcase(tool_key, pattern)


@dataclass(frozen=True)
class Permissions:
    """The rules of every project, applied to a caller."""

    projects: Mapping[str, ProjectRules]

    def check_caller(self, caller: Caller) -> None:
        """Refuse a caller that can use nothing, with a hint that says how to fix it.

        Raises:
            PermissionDeniedError: an HTTP caller without a key, without a project, or whose project has no rules.
        """
        if caller.trusted:
            return
        if caller.key_name is None:
            raise PermissionDeniedError("This request carries no API key.", "Send 'Authorization: Bearer dm_...'.")
        if not caller.project:
            raise PermissionDeniedError(
                f"API key {caller.key_name!r} belongs to no project, so it may use no upstream tool.",
                "Ask an administrator for a key with a project (`docs-mcp keys create NAME --project PROJECT`).",
            )
        if caller.project not in self.projects:
            raise PermissionDeniedError(
                f"Project {caller.project!r} has no tool permissions.",
                f"Ask an administrator to add [tool_permissions.{caller.project}] with allow patterns to the config file.",
            )

    def visible_servers(self, caller: Caller, names: tuple[str, ...]) -> tuple[str, ...]:
        """The upstreams ``caller`` may know of: all for the local user, else those some allow pattern names."""
        if caller.trusted:
            return names
        rules = self.projects.get(caller.project or "")
        if rules is None or caller.key_name is None:
            return ()
        servers = [pattern.split(TOOL_KEY_SEPARATOR, 1)[0] for pattern in rules.allow]
        return tuple(name for name in names if any(fnmatchcase(name, server) for server in servers))

    def permits(self, caller: Caller, tool_key: str) -> bool:
        """Whether ``caller`` may find and run ``tool_key``."""
        if caller.trusted:
            return True
        rules = self.projects.get(caller.project or "")
        return rules is not None and caller.key_name is not None and rules.permits(tool_key)
