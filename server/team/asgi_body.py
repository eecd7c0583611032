"""A request body read by a middleware, handed on to the app as if it had never been read."""

from __future__ import annotations

from starlette.types import Message, Receive


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A receive that hands ``body`` to the app once, then the real one (which reports the client leaving)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed
