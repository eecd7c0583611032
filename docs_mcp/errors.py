"""The root of the error tree.

    DocsMcpError                          message + hint (what to do next)
    ├── UsageError                        a command line that cannot work
    ├── indexer.errors.IndexerError       corpus, manifest, library, index-file and model problems
    ├── server.errors.ServerError         tool arguments, cursors, unknown chunks
    │   └── server.tool_errors.ToolError  library tools: {code, message, recoverable, suggestion}
    ├── server.team_errors.TeamModeError  config, key store, rate limiter (HTTP team mode)
    └── eval.errors.EvalError             golden files, baselines, eval runs, the quality gate

Every leaf's message names the cause; its hint names the fix.  The CLI prints
both and exits with ``exit_code``; tools turn them into ``isError`` results.
"""

from __future__ import annotations


class DocsMcpError(Exception):
    """Base class for every error docs-mcp raises on purpose."""

    exit_code: int = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip() if self.hint else self.message


class UsageError(DocsMcpError):
    """The command line asked for something that cannot work."""

    exit_code = 2
