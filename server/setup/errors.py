"""Errors of `docs-mcp setup`: a config file it cannot edit safely, a file it did not write."""

from __future__ import annotations

from docs_mcp.errors import DocsMcpError

TOO_DEEP_HINT = "No client config nests that deep: check the file (or move it aside) and run `docs-mcp setup` again; nothing was written."


class SetupError(DocsMcpError):
    """`docs-mcp setup` cannot configure the client as asked."""


class ConfigFileError(SetupError):
    """A client's config file cannot be read or edited without risking the user's own settings."""

    def __init__(self, path: str, problem: str, hint: str = "") -> None:
        super().__init__(
            f"{path} {problem}.",
            hint or "Fix the file (or move it aside) and run `docs-mcp setup` again; nothing was written.",
        )
        self.path = path
