"""Requests a stdio server has taken and not yet answered, so the end of its input does not drop them.

A client may write its requests and close stdin at once (``printf '...' | docs-mcp serve``). The SDK's
server stops when its input ends, and a search still running then never got its answer. The guard
notes each request it passes on, the server's write stream notes each answer, and at the end of input
the guard waits for the rest before it ends the server's input: at most ``DRAIN_SECONDS``, so a client
gone for good never keeps the process alive on a slow tool. A request the client cancelled
(``notifications/cancelled``) gets no answer and is not waited for.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

# The longest a tool may still run once the input has ended; remote fetches have deadlines of their own.
DRAIN_SECONDS = 60.0
_CANCELLED = "notifications/cancelled"


class PendingAnswers:
    """The ids of the requests passed to the server and not answered yet (all on the event loop: no lock)."""

    def __init__(self) -> None:
        self._pending: set[str | int] = set()
        self._none_left = anyio.Event()
        self._none_left.set()
        self.drain_ends: float | None = None  # when the wait for answers at the end of input gives up (event loop time)

    def taken(self, message: Any) -> None:
        """Note a message passed to the server: a request to answer, or the client's cancellation of one."""
        if isinstance(message, types.JSONRPCRequest):
            if not self._pending:
                self._none_left = anyio.Event()
            self._pending.add(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == _CANCELLED:
            self._settle((message.params or {}).get("requestId"))

    def sent(self, message: Any) -> None:
        """Note a message the server wrote: an answer settles its request."""
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            self._settle(message.id)

    async def all_answered(self, seconds: float = DRAIN_SECONDS) -> bool:
        """Wait until every request taken has its answer (True), or ``seconds`` have passed (False)."""
        self.drain_ends = anyio.current_time() + seconds
        if not self._pending:
            return True
        with anyio.move_on_after(seconds):
            await self._none_left.wait()
            return True
        return False

    def _settle(self, request_id: Any) -> None:
        if isinstance(request_id, str | int) and request_id in self._pending:
            self._pending.discard(request_id)
            if not self._pending:
                self._none_left.set()


class AnswerStream(Protocol):
    """The SDK transport's write stream: it carries each sender's context, so it is no anyio ObjectSendStream."""

    async def send(self, item: SessionMessage, /) -> None: ...

    async def aclose(self) -> None: ...

    def close(self) -> None: ...


class RecordedAnswers:
    """The server's write stream, noting each answer in ``pending`` once it is handed on."""

    def __init__(self, inner: AnswerStream, pending: PendingAnswers) -> None:
        self._inner = inner
        self._pending = pending

    async def send(self, item: SessionMessage) -> None:
        await self._inner.send(item)
        self._pending.sent(item.message)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> RecordedAnswers:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()
