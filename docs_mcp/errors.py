"""The root of the error tree.

    DocsMcpError                                   message + hint (what to do next)
    ├── UsageError                                 a command line that cannot work
    ├── CodedError                                 + code, recoverable: a tool's {code, message, recoverable, suggestion}
    ├── indexer.errors.IndexerError                corpus, manifest, library, index-file, model, package and fleet problems
    │   └── indexer.sources.errors.SourceError     remote sources (also a CodedError)
    ├── server.errors.ServerError                  tool arguments, cursors, unknown chunks
    │   └── server.libraries.error_shape.ToolError library tools and the gateway (also a CodedError)
    ├── server.team.errors.TeamModeError           config, key store, rate limiter (HTTP team mode)
    ├── server.errors.SetupError                   `docs-mcp setup`: a client config it cannot edit safely
    └── eval.errors.EvalError                      golden files, baselines, eval runs, the quality gate

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

    def __reduce__(self) -> tuple:
        # Errors cross process boundaries (search workers answer in pickles); subclasses' __init__
        # take other arguments than ``args`` holds, so rebuild without calling it.
        return (_restore, (type(self), self.args, self.__dict__))


def _restore(cls: type[DocsMcpError], args: tuple, state: dict) -> DocsMcpError:
    error = cls.__new__(cls, *args)
    error.args = args
    error.__dict__.update(state)
    return error


class CodedError(DocsMcpError):
    """An error a tool reports with a code from the tools' error catalog (corpus/guide/libraries.md#errors) and whether a retry can help."""

    code: str = "INTERNAL_ERROR"
    recoverable: bool = True


class UsageError(DocsMcpError):
    """The command line asked for something that cannot work."""

    exit_code = 2
