"""The gateway: upstream tools as a searchable catalog, behind the meta-tools (corpus/guide/gateway.md).

Every operation takes the Caller and a meta-tool's checked arguments and returns a JSON-ready
answer or raises a ToolError; the meta-tools (server/tools/) check their arguments inside
``audited``, so each discovery and execution is written to the audit log, whatever its outcome.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import mcp_types as types

from docs_mcp.errors import DocsMcpError
from docs_mcp.server.core.tool_errors import error_shape
from docs_mcp.server.gateway.audit import AuditLog
from docs_mcp.server.gateway.catalog_index import CatalogIndex
from docs_mcp.server.gateway.describe import describe, examples
from docs_mcp.server.gateway.discovery import LocalProvider, Ranking, SearchRequest, select_provider
from docs_mcp.server.gateway.errors import ToolNotFoundError, UpstreamUnavailableError
from docs_mcp.server.gateway.gateway_config import GatewayConfig
from docs_mcp.server.gateway.permissions import Permissions
from docs_mcp.server.gateway.records import Caller, ToolEntry, split_tool_key
from docs_mcp.server.gateway.supervisor import Supervisor
from docs_mcp.server.gateway.tool_catalog import ToolCatalog
from docs_mcp.server.gateway.tooldocs import check_arguments, load_tool_docs

logger = logging.getLogger(__name__)


class Gateway:
    """Upstream servers, their tool catalog and its index, permissions, audit: one object, closed once."""

    def __init__(
        self,
        config: GatewayConfig,
        state_dir: Path | None = None,
        *,
        embeddings: str = "default",
        audit: AuditLog | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Load the tool docs and prepare (not start) the upstreams; ``clock`` times their restart back-offs.

        Raises:
            GatewayConfigError: the tool docs are invalid.
        """
        self.config = config
        self.docs = load_tool_docs(config.docs_dir)
        self.permissions = Permissions(config.permissions)
        self._own_state = state_dir is None
        self.state_dir = private_state_dir() if state_dir is None else state_dir
        self.supervisor = Supervisor(config, self.state_dir / "logs", clock)
        self.catalog = ToolCatalog(self.supervisor, config.settings.list_ttl)
        self.index = CatalogIndex(self.state_dir / "catalog", embeddings=embeddings)
        self.local = LocalProvider(self.index, self.catalog, self.docs, config.settings.mode)
        self.provider = select_provider(config.settings.search_url, config.settings.search_timeout, self.local)
        self.audit = audit or AuditLog(log_arguments=config.settings.audit_arguments)

    # -- meta-tools ------------------------------------------------------------------------

    def discover(
        self, caller: Caller, queries: tuple[str, ...], context: str, max_results: int, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """tool_discovery (server/tools/tool_discovery.py): the caller's available tools ranked for the queries;
        ``fields`` join its audit line.

        Raises:
            PermissionDeniedError: a caller that may use nothing.
        """
        self.permissions.check_caller(caller)
        available = self.available(caller)
        ranking = self.provider.search(SearchRequest(queries, context, available, max_results))
        fields.update(results=len(ranking.results), provider=ranking.provider)
        answer = self._render_ranking(ranking, {tool.key: tool for tool in available})
        notes = self._notes(caller)
        if notes:
            answer["notes"] = notes
        return answer

    def execute(
        self, caller: Caller, tool_key: str, arguments: Mapping[str, Any], fields: dict[str, Any]
    ) -> types.CallToolResult:
        """tool_execute (server/tools/tool_execute.py): permission and status checks, then ``tools/call`` upstream;
        its result as is (``fields``, its audit line, say when the upstream tool reported an error).

        Raises:
            ArgsTooLargeError, PermissionDeniedError, ToolNotFoundError: refused here.
            UpstreamUnavailableError, UpstreamTimeoutError, UpstreamError: the upstream failed.
        """
        check_arguments(arguments, self.config.settings.max_argument_bytes, "The arguments")
        self.permissions.check_caller(caller)
        tool = self._visible_tool(caller, tool_key)
        try:
            result = self.supervisor.call(tool.server, tool.name, dict(arguments))
        except UpstreamUnavailableError:
            self.catalog.invalidate()  # the server's tools must not be offered until it lists them again
            raise
        if result.is_error:
            fields["outcome"] = "upstream_tool_error"
        return result

    def describe(self, caller: Caller, tool_key: str, detail: str) -> dict[str, Any]:
        """describe_tool (server/tools/describe_tool.py) at ``detail``.

        Raises:
            ToolNotFoundError, NoToolError.
        """
        self.permissions.check_caller(caller)
        return describe(tool_key, detail, self._live_or_none(caller, tool_key), self._doc(caller, tool_key))

    def examples(self, caller: Caller, tool_key: str, most: int) -> dict[str, Any]:
        """list_tool_examples (server/tools/list_tool_examples.py): up to ``most`` worked examples from the tool docs.

        Raises:
            ToolNotFoundError.
        """
        self.permissions.check_caller(caller)
        return examples(tool_key, most, self._live_or_none(caller, tool_key), self._doc(caller, tool_key))

    def status(self, caller: Caller) -> dict[str, Any]:
        """upstream_status: the state of the upstreams ``caller`` may use; what runs them (command,
        URL, log file) only for the local user. Environment values are never shown.

        Raises:
            PermissionDeniedError: a caller that may use nothing.
        """
        self.permissions.check_caller(caller)
        visible = set(self.permissions.visible_servers(caller, self.supervisor.names))
        shown = []
        for status in self.supervisor.statuses():
            if status.name in visible:
                fields = {**asdict(status), "notes": list(status.notes)}
                if not caller.trusted:
                    fields.update(target=None, log=None)
                shown.append(fields)
        return {"upstreams": shown}

    # -- shared ----------------------------------------------------------------------------

    def available(self, caller: Caller) -> tuple[ToolEntry, ...]:
        """The tools of the running upstreams that ``caller`` may use."""
        return tuple(tool for tool in self.catalog.tools() if self.permissions.permits(caller, tool.key))

    def _visible_tool(self, caller: Caller, tool_key: str) -> ToolEntry:
        """The live tool, if the caller may use it; a forbidden tool is reported as unknown (no hint it exists).

        Raises:
            UpstreamUnavailableError: its server crashed and waits out its restart back-off, or failed to list its tools.
            ToolNotFoundError: no such tool, or the caller may not use it.
        """
        tool = self._live_or_none(caller, tool_key)
        server = (split_tool_key(tool_key) or ("", ""))[0]
        if tool is None and self._server_known(tool_key) and self.permissions.permits(caller, tool_key):
            self._raise_if_backing_off(server)
            self.catalog.invalidate()  # maybe the server is back or the tool is new: look again
            tool = self._live_or_none(caller, tool_key)
            problem = self.catalog.current().problems.get(server)
            if tool is None and problem:
                raise UpstreamUnavailableError(
                    f"Upstream {server!r} is unavailable: {problem}",
                    "Retry in a few seconds; upstream_status shows its state.",
                )
        if tool is None:
            raise ToolNotFoundError(tool_key)
        return tool

    def _raise_if_backing_off(self, server: str) -> None:
        """Say that ``server`` crashed and when it restarts, rather than that its tool does not exist."""
        status = self.supervisor.status_of(server)
        if status is not None and status.state == "crashed" and status.retry_in:
            wait = max(1, math.ceil(status.retry_in))
            raise UpstreamUnavailableError(
                f"Upstream {server!r} is unavailable: it crashed ({status.last_error}) and restarts in {wait} s.",
                f"Retry in {wait} s; upstream_status shows when it is back.",
            )

    def _notes(self, caller: Caller) -> list[str]:
        """What the catalog bounds cut from the servers the caller can see, and servers that gave no tools."""
        visible = set(self.permissions.visible_servers(caller, self.supervisor.names))
        collected = self.catalog.current()
        cut = [f"{server}: {note}" for server, notes in collected.notes.items() if server in visible for note in notes]
        down = [
            f"{server}: no tools ({problem})" for server, problem in collected.problems.items() if server in visible
        ]
        return cut + down

    def _live_or_none(self, caller: Caller, tool_key: str) -> ToolEntry | None:
        if not self.permissions.permits(caller, tool_key):
            return None
        return self.catalog.by_key().get(tool_key)

    def _doc(self, caller: Caller, tool_key: str) -> Any:
        return self.docs.get(tool_key) if self.permissions.permits(caller, tool_key) else None

    def _server_known(self, tool_key: str) -> bool:
        parts = split_tool_key(tool_key)
        return parts is not None and parts[0] in self.supervisor.names

    def _render_ranking(self, ranking: Ranking, tools: Mapping[str, ToolEntry]) -> dict[str, Any]:
        results = []
        for ranked in ranking.results:
            tool = tools[ranked.tool_key]
            results.append(
                {
                    "tool_key": tool.key,
                    "tool_name": tool.name,
                    "server_name": tool.server,
                    "description": tool.description,
                    "relevance": ranked.relevance,
                    "explanation": ranked.explanation,
                    "output_schema": tool.output_schema,
                    "annotations": tool.annotations,
                }
            )
        answer: dict[str, Any] = {"results": results, "provider": ranking.provider}
        if ranking.fallback_reason:
            answer["fallback_reason"] = ranking.fallback_reason
        if not results:
            answer["hint"] = "No available tool matches. Try other words, or check the servers with upstream_status."
        return answer

    @contextmanager
    def audited(self, event: str, caller: Caller, request_id: str | None, arguments: Any) -> Iterator[dict[str, Any]]:
        """Time the block and write its audit line; the block may add fields (and override the outcome)."""
        fields: dict[str, Any] = {}
        started = time.perf_counter()
        outcome = "ok"
        try:
            yield fields
        except DocsMcpError as error:
            outcome = error_shape(error)["code"].lower()
            raise
        except Exception:
            outcome = "internal_error"
            raise
        finally:
            outcome = fields.pop("outcome", outcome)
            tool_arguments = arguments.get("arguments") if isinstance(arguments, Mapping) else None
            self.audit.record(
                event,
                caller,
                request_id,
                outcome,
                (time.perf_counter() - started) * 1000,
                arguments=tool_arguments,
                **fields,
            )

    def close(self) -> None:
        """Stop the upstreams, close the audit log, remove the private state folder."""
        self.supervisor.close()
        close_provider = getattr(self.provider, "close", None)
        if close_provider is not None:
            close_provider()
        self.audit.close()
        if self._own_state:
            shutil.rmtree(self.state_dir, ignore_errors=True)


STATE_PREFIX = "docs-mcp-gateway-"


def private_state_dir() -> Path:
    """A new temporary folder for one process's catalog index and upstream logs.

    Its name carries the process ID, so the folders of processes that were killed before they
    could remove theirs (an MCP client ends a stdio server with SIGTERM, then SIGKILL) are
    removed by the next gateway that starts.
    """
    for stale in Path(tempfile.gettempdir()).glob(f"{STATE_PREFIX}*-*"):
        pid = stale.name[len(STATE_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{STATE_PREFIX}{os.getpid()}-"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


@contextmanager
def open_gateway(config: GatewayConfig, **options: Any) -> Iterator[Gateway | None]:
    """A gateway for ``config`` while the block runs, closed after; None when no upstream is enabled.

    Raises:
        GatewayConfigError: the tool docs are invalid.
    """
    if not config.enabled:
        yield None
        return
    gateway = Gateway(config, **options)
    try:
        yield gateway
    finally:
        gateway.close()
