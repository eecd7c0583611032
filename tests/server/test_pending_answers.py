"""Which requests the end of input waits for: those taken and neither answered nor cancelled."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import mcp_types as types

from docs_mcp.server.pending_answers import PendingAnswers


def _request(request_id: int | str) -> types.JSONRPCRequest:
    return types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method="tools/call", params={"name": "search_docs"})


def _answered(pending: PendingAnswers) -> bool:
    return anyio.run(pending.all_answered, 0)  # no waiting: answered already, or not


def _steps(*steps) -> list[bool]:
    """Run ``steps`` (callables on a PendingAnswers; None: ask whether all is answered) on one event loop, as a server does."""

    async def run() -> list[bool]:
        pending, seen = PendingAnswers(), []
        for step in steps:
            if step is None:
                seen.append(await pending.all_answered(0))
            else:
                step(pending)
        return seen

    return anyio.run(run)


def test_nothing_taken_is_all_answered():
    assert _answered(PendingAnswers())


def test_a_request_is_waited_for_until_its_answer_or_error_is_sent():
    assert _steps(
        lambda p: p.taken(_request(1)),
        lambda p: p.taken(_request("two")),
        None,
        lambda p: p.sent(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={})),
        None,
        lambda p: p.sent(
            types.JSONRPCError(jsonrpc="2.0", id="two", error=types.ErrorData(code=-32602, message="bad"))
        ),
        None,
    ) == [False, False, True]


def test_a_request_the_client_cancelled_is_not_waited_for():
    cancel = types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 7})
    assert _steps(lambda p: p.taken(_request(7)), None, lambda p: p.taken(cancel), None) == [False, True]


def test_ids_are_told_apart_by_type_and_notifications_and_client_responses_are_not_waited_for():
    assert _steps(
        lambda p: p.taken(_request(3)),
        lambda p: p.taken(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")),
        lambda p: p.taken(types.JSONRPCResponse(jsonrpc="2.0", id=9, result={})),  # the client answering the server
        lambda p: p.sent(types.JSONRPCResponse(jsonrpc="2.0", id="3", result={})),  # another id: "3" is not 3
        None,
        lambda p: p.sent(types.JSONRPCResponse(jsonrpc="2.0", id=3, result={})),
        None,
    ) == [False, True]


def test_the_wait_ends_when_the_last_answer_is_sent():
    async def run() -> bool:
        pending = PendingAnswers()
        pending.taken(_request(1))
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(lambda: _answer_later(pending))
            return await pending.all_answered(60)

    assert anyio.run(run)


async def _answer_later(pending: PendingAnswers) -> None:
    await anyio.lowlevel.checkpoint()
    pending.sent(types.JSONRPCResponse(jsonrpc="2.0", id=1, result={}))
