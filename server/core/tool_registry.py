"""The tool registry: every tool the server offers as one ``ToolSpec``, called and rendered the same way.

Each tool module (server/tools/) describes its tool once: its name, its input schema
(``describe``: for the served generation's metadata, as search_docs's filters come from the
taxonomy), how its arguments are checked (``parse``, with server.core.arguments), what it does
(``run``: checked arguments in, the answer's data out, errors raised) and what the server must
know of it (``slow``, the ``cursor`` a call continues, an ``after_call`` hook).
The registry runs a call, renders the answer once (data as two-space JSON, text as it is)
and turns any raised error into the one error shape (server.core.tool_errors); a tool whose
contract words errors as plain text says so with ``error_text``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import mcp_types as types
import orjson

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.core.live_index import ServedIndex
from docs_mcp.server.core.tool_errors import error_shape, render_error

logger = logging.getLogger(__name__)

Args = TypeVar("Args")
Arguments = Mapping[str, Any] | None


@dataclass(frozen=True)
class ToolCall:
    """What a tool's ``run`` sees besides its checked arguments."""

    index: ServedIndex | None  # the generation leased for this call; None for a tool that reads no index
    arguments: Arguments  # as the client sent them
    request: Any = None  # the transport's request (over HTTP it names the caller), None over stdio
    request_id: Any = None  # the JSON-RPC request ID


def leased(index: ServedIndex | None) -> ServedIndex:
    """The generation leased for a call of a tool that reads the index (``leases_index``): the server always leases one."""
    if index is None:
        raise RuntimeError("a tool that reads the index was called without a leased generation")
    return index


@dataclass(frozen=True)
class ToolAnswer:
    """A call's result before the transport: the text, the structured content, whether it is an error."""

    text: str
    structured: dict[str, Any] | None
    is_error: bool

    def result(self) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(text=self.text)], structured_content=self.structured, is_error=self.is_error
        )

    def wire(self) -> dict[str, Any]:
        """``result()`` as the SDK dumps a handler's model before it validates the dump against the protocol
        version's result schema and dumps that (``model_dump(by_alias=True, mode="json", exclude_none=True)``),
        built directly: the SDK's runner takes a handler's dict as it is, which spares a search's answer a model
        and its first dump (37 us of ~3 ms; corpus/guide/benchmarks.md)."""
        structured = {} if self.structured is None else {"structuredContent": self.structured}
        return {
            "content": [{"type": "text", "text": self.text}],
            **structured,
            "isError": self.is_error,
            "resultType": "complete",
        }


def render_json(data: Any) -> str:
    """An answer's data as the tools print it: two-space indented JSON, keys in the order given."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


def no_structure(data: Any, call: ToolCall) -> dict[str, Any] | None:
    """The structured content of a tool whose answer is its text alone."""
    return None


def internal_error_text(name: str, error: BaseException) -> str:
    """How a tool that words errors as plain text reports one: its message, or a bug's placeholder."""
    if isinstance(error, DocsMcpError):
        return str(error)
    return (
        f"{name} failed with an internal error (details are in the server log). Try again; if it persists, report it."
    )


@dataclass(frozen=True)
class ToolSpec(Generic[Args]):
    """One tool: its name, its schema, how its arguments are checked, what it does."""

    name: str
    describe: Callable[[Mapping[str, Any]], types.Tool]  # the tool as listed, for a generation's metadata
    parse: Callable[[Arguments, ServedIndex | None], Args]  # raises InvalidArgumentError (and kin)
    run: Callable[[Args, ToolCall], Any]  # the answer's data (JSON-able), its text, or a relayed CallToolResult
    render: Callable[[Any], str] = render_json  # data -> text; text passes through
    structured: Callable[[Any, ToolCall], dict[str, Any] | None] = no_structure
    error_text: Callable[[str, BaseException], str] | None = None  # None: the error shape as JSON
    leases_index: bool = True  # False: the tool reads no index (the gateway's meta-tools)
    slow: bool = False  # it may wait on a documentation site or an upstream server: threads of its own (capacity.py)
    # Whether a call on this generation answers in about a millisecond: the server may run it on its event loop.
    quick: Callable[[ServedIndex], bool] | None = None
    cursor: Callable[[Arguments], Any] = lambda arguments: (
        None
    )  # the cursor a call continues: its generation answers it
    after_call: Callable[[Any, Arguments], Awaitable[None]] | None = (
        None  # (request context, arguments), after a success
    )

    def data(self, call: ToolCall) -> Any:
        """Parse and run one call: the answer's data, raising what the tool raises."""
        return self.run(self.parse(call.arguments, call.index), call)

    def text(self, call: ToolCall) -> str:
        """The answer's text, raising what the tool raises (the CLI reports it as a command error)."""
        data = self.data(call)
        return data if isinstance(data, str) else self.render(data)

    def answer(self, call: ToolCall) -> ToolAnswer | types.CallToolResult:
        """Parse, run and render one call; never raises for anything a caller sends (a bug is logged)."""
        try:
            data = self.data(call)
        except DocsMcpError as error:
            return self._error(error)
        except Exception as error:  # noqa: BLE001 - the one place where a bug becomes a message instead of a crash
            logger.exception("%s failed", self.name)
            return self._error(error)
        if isinstance(data, types.CallToolResult):
            return data  # another server's result, relayed as it is
        text = data if isinstance(data, str) else self.render(data)
        return ToolAnswer(text, self.structured(data, call), is_error=False)

    def refusal(self, error: DocsMcpError) -> ToolAnswer:
        """The answer to a call refused before it ran (the caller's allowance is used up), worded as this tool words errors."""
        return self._error(error)

    def _error(self, error: BaseException) -> ToolAnswer:
        text = render_error(error) if self.error_text is None else self.error_text(self.name, error)
        return ToolAnswer(text, error_shape(error), is_error=True)


class ToolRegistry:
    """The tools one server offers, in the order they are listed."""

    def __init__(self, specs: Sequence[ToolSpec[Any]]) -> None:
        self._specs = {spec.name: spec for spec in specs}

    @property
    def names(self) -> list[str]:
        return list(self._specs)

    def get(self, name: str) -> ToolSpec[Any] | None:
        return self._specs.get(name)

    @property
    def slow_names(self) -> frozenset[str]:
        """The tools that may wait on a site or an upstream server (capacity.py gives them threads of their own)."""
        return frozenset(name for name, spec in self._specs.items() if spec.slow)

    def tools(self, metadata: Mapping[str, Any]) -> list[types.Tool]:
        """The tools that read the index, as listed for a generation described by ``metadata``."""
        return [spec.describe(metadata) for spec in self._specs.values() if spec.leases_index]

    def fixed_tools(self) -> list[types.Tool]:
        """The tools that read no index: the same for every generation."""
        return [spec.describe({}) for spec in self._specs.values() if not spec.leases_index]
