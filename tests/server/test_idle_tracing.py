"""The SDK's per-request OpenTelemetry span is left out while nothing receives spans, and kept when a tracer is set.

Each check builds a real server over a real index in a fresh interpreter: the tracer provider is process-wide,
set once, as a user's OpenTelemetry setup (opentelemetry-instrument, OTEL_PYTHON_TRACER_PROVIDER) sets it before
the server starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TIMEOUT = 300  # seconds; a bound against hangs, never waited on when things work

MIDDLEWARE = """
import json
import sys

from opentelemetry import trace

if sys.argv[2] == "traced":
    trace.set_tracer_provider(trace.NoOpTracerProvider())  # any provider of the user's stands for a configured one

from docs_mcp.server.app import ServerSettings, build_server
from docs_mcp.server.search.modes import Mode

server = build_server(sys.argv[1], ServerSettings(mode=Mode.bm25, warm=False))
print(json.dumps([type(item).__name__ for item in server.middleware]))
"""


def _middleware(index: Path, tracing: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", MIDDLEWARE, str(index), tracing], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_server_without_a_tracer_provider_leaves_the_sdks_span_middleware_out(text_only_index: Path) -> None:
    assert "OpenTelemetryMiddleware" not in _middleware(text_only_index, "untraced")


def test_a_configured_tracer_provider_keeps_the_span_of_every_request(text_only_index: Path) -> None:
    assert _middleware(text_only_index, "traced") == ["OpenTelemetryMiddleware"]
