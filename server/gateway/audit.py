"""The audit log: one JSON line per tool_discovery / tool_execute (and describe calls).

Fields: ts, event, request_id, key (the key's name, never the key), project, tool_key (or the
discovery query), outcome (ok or an error code), latency_ms, and for discovery the result count
and provider. Arguments are logged only when ``gateway.audit_arguments`` is true: they may hold
personal data or secrets.
"""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import orjson

from docs_mcp.server.gateway.records import Caller

AUDIT_LOGGER = "docs_mcp.audit"


class _JsonLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return orjson.dumps(getattr(record, "fields", {}), default=str).decode()


class AuditLog:
    """Writes audit lines to stderr or a file, apart from the other logs (its own handler)."""

    def __init__(self, path: Path | None = None, *, log_arguments: bool = False, stream: TextIO | None = None) -> None:
        self.log_arguments = log_arguments
        self._logger = logging.getLogger(f"{AUDIT_LOGGER}.{id(self)}")
        self._logger.propagate = False  # not re-formatted (and nested) by the server's JSON log
        self._logger.setLevel(logging.INFO)
        handler = logging.FileHandler(path, encoding="utf-8") if path else logging.StreamHandler(stream or sys.stderr)
        handler.setFormatter(_JsonLine())
        self._logger.handlers[:] = [handler]

    def record(
        self,
        event: str,
        caller: Caller,
        request_id: str | None,
        outcome: str,
        latency_ms: float,
        arguments: Any = None,
        **fields: Any,
    ) -> None:
        """Log one event; ``arguments`` are dropped unless argument logging is on."""
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "event": event,
            "request_id": request_id,
            "key": caller.key_name,
            "project": caller.project,
            **fields,
            "outcome": outcome,
            "latency_ms": round(latency_ms, 2),
        }
        if self.log_arguments and arguments is not None:
            entry["arguments"] = arguments
        self._logger.info(event, extra={"fields": entry})

    def close(self) -> None:
        for handler in self._logger.handlers:
            handler.close()
        self._logger.handlers.clear()
