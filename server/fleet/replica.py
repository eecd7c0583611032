"""The replica agent: pull, verify, warm, report; swap when the live pointer flips; prune by reference and age.

One thread per replica, woken by the registry's notifications (LISTEN ``docs_mcp_fleet``)
or every second. Each pass:

1. the newest staged generation, if this replica does not hold it yet, is copied from shared
   storage to the local index folder (every byte checked against the manifest), opened and
   warmed beside the served one (``LiveIndex.prepare``), and an event says so;
2. if the registry's live generation is not the one served, the local ``CURRENT`` is replaced
   and the prepared generation goes live at once (a replica that missed the flip, or started
   later, pulls and warms it first);
3. the heartbeat reports the generation served and every one held warm;
4. the flip is evaluated (any replica may decide it: generations.try_flip), except during the heartbeat TTL after
   a reconnect, when the heartbeats of the replicas cut off by the same outage are still stale;
5. local generations no longer held (the replaced one stays for the cursor lifetime) are deleted.

PostgreSQL being down does not stop serving: the replica keeps its generation and retries.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexer.errors import FleetError, IndexLockedError
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.fleet import generations
from docs_mcp.indexer.fleet.checksum_manifest import ChecksumManifest
from docs_mcp.indexer.fleet.control import (
    FLEET_CHANNEL,
    ReplicaState,
    connect,
    ensure_schema,
    heartbeat,
    leave,
    listen,
    psycopg_module,
    record_event,
)
from docs_mcp.indexer.fleet.storage import DirectoryStorage, SharedStorage, pull_generation
from docs_mcp.indexer.index_file import live_generation, prune, publish, write_lock
from docs_mcp.redact import redact
from docs_mcp.server.core.live_index import LiveIndex

logger = logging.getLogger(__name__)
WAKE_SECONDS = 1.0  # longest pass-to-pass wait when no notification comes


@dataclass(frozen=True)
class FleetSettings:
    """A replica's fleet configuration (the fleet.* keys)."""

    database_url: str
    storage: Path
    replica: str = ""  # empty: host:port
    heartbeat: float = 5.0
    warm_timeout: float = 300.0
    cursor_lifetime: float = 900.0

    @property
    def heartbeat_ttl(self) -> float:
        """A replica silent for this long is not waited for."""
        return 3 * self.heartbeat


class ReplicaAgent:
    """Keeps one replica's local index folder and live index in step with the fleet's registry."""

    def __init__(self, settings: FleetSettings, index_dir: Path, storage: SharedStorage | None = None) -> None:
        self.settings = settings
        self.index_dir = Path(index_dir)
        self.storage = storage or DirectoryStorage(settings.storage)
        self.name = settings.replica
        self._url = ""
        self._conn: Any = None
        self._live: LiveIndex | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._dropped_for: str | None = None
        self._registry_live: str | None = None
        self._contact = time.monotonic()
        self._decide_from = (
            0.0  # after a reconnect, the flip is left to others until the replicas cut off with it beat again
        )
        self._failing: dict[str, str] = {}  # generation -> the error its last warm-up failed with
        self.passes = 0  # passes completed: an operator (or a test) can tell a stalled agent from a waiting one

    def bootstrap(self) -> str:
        """Before serving: make the local folder hold the registry's live generation, verified, and name it in CURRENT.

        Raises:
            ControlPlaneError: PostgreSQL does not answer.
            FleetError: nothing was published yet, or the copy cannot be pulled or verified.
        """
        conn = connect(self.settings.database_url, application="docs-mcp-replica")
        ensure_schema(conn)
        self._conn = conn
        self.index_dir.mkdir(parents=True, exist_ok=True)
        for leftover in self.index_dir.glob(".pull-*"):  # a copy a killed replica left half-done
            shutil.rmtree(leftover, ignore_errors=True)
        current = generations.live(conn)
        if current is None:
            raise FleetError(
                "No generation has been published to this fleet yet.",
                "Publish one: `docs-mcp publish --index BUILD_DIR` with the same fleet.database_url and fleet.storage.",
            )
        if live_generation(self.index_dir) != current.generation:
            self._pull(current)
            publish(self.index_dir, current.generation)
        self._registry_live = current.generation
        return current.generation

    def start(self, live: LiveIndex, *, name: str, url: str) -> None:
        """Follow the registry in a thread, serving through ``live`` (opened on the bootstrapped folder)."""
        self._live, self.name, self._url = live, self.settings.replica or name, url
        self._thread = threading.Thread(target=self._run, name="docs-mcp-replica", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop following; leave the registry so no flip waits for this replica."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        try:
            conn = self._conn or connect(self.settings.database_url, application="docs-mcp-replica")
            leave(conn, self.name)
            conn.close()
        except Exception as error:  # noqa: BLE001 - leaving is best effort: the heartbeat expires anyway
            logger.warning("could not leave the registry: %s", redact(str(error)))
        self._conn = None

    def check(self) -> dict[str, Any]:
        """The replica's part of /healthz: not ready while it misses the live generation it was dropped for."""
        served = self._live.current().generation if self._live else None
        if self._dropped_for is not None and served != self._registry_live:
            return {
                "status": "unavailable",
                "replica": self.name,
                "error": f"missed the flip to generation {self._dropped_for} (not warmed within fleet.warm_timeout); catching up",
            }
        report: dict[str, Any] = {"status": "ok", "replica": self.name, "live": self._registry_live, "serving": served}
        if time.monotonic() - self._contact > self.settings.heartbeat_ttl:
            report["control_plane"] = "unreachable"  # still serving its generation; swaps wait for PostgreSQL
        return report

    def _run(self) -> None:
        psycopg = psycopg_module()
        listening = False
        while not self._stop.is_set():
            try:
                if self._conn is None:
                    self._conn = connect(self.settings.database_url, application="docs-mcp-replica")
                    listening = False
                    self._decide_from = time.monotonic() + self.settings.heartbeat_ttl
                if not listening:
                    listen(self._conn, FLEET_CHANNEL)
                    listening = True
                self._step(self._conn)
                self._contact = time.monotonic()
                self.passes += 1
                for _ in self._conn.notifies(timeout=WAKE_SECONDS, stop_after=1):
                    pass
            except (DocsMcpError, psycopg.Error, OSError) as error:
                logger.warning("fleet: %s; retrying", redact(str(error)))
                if self._conn is not None:
                    self._conn.close()
                self._conn = None
                self._stop.wait(WAKE_SECONDS)  # not a synchronization: a pause before reconnecting
            except Exception:  # noqa: BLE001 - a defect in one pass must not stop the replica following the fleet
                logger.exception("fleet: a pass of the replica agent failed; retrying")
                self._stop.wait(WAKE_SECONDS)

    def _step(self, conn: Any) -> None:
        assert self._live is not None
        current = generations.live(conn)
        staged = generations.generations(conn, generations.STAGED)
        if staged and staged[0].generation not in self._live.held():
            fault_point("fleet-warm")
            self._warm(conn, staged[0])
        for failed in generations.generations(conn, generations.FAILED):
            if failed.generation in self._live.held()[1:]:
                self._live.discard(failed.generation)
        if current is not None and current.generation != self._live.current().generation:
            # Missed the flip, or started before it was staged: warm it first (no request waits for it).
            if current.generation in self._live.held() or self._warm(conn, current):
                publish(self.index_dir, current.generation)
                if self._live.current().generation == current.generation:
                    record_event(conn, "serving", current.generation, self.name)
                    logger.info("fleet: serving generation %s", current.generation)
        served = self._live.current().generation
        self._registry_live = current.generation if current else None
        self._dropped_for = heartbeat(conn, ReplicaState(self.name, self._url, served, self._live.held()))
        if time.monotonic() >= self._decide_from:
            # Right after an outage every other replica's heartbeat looks stale; deciding then would flip
            # without the replicas that are reconnecting, which would serve the old generation meanwhile.
            generations.try_flip(
                conn, warm_timeout=self.settings.warm_timeout, heartbeat_ttl=self.settings.heartbeat_ttl
            )
        self._prune({served, *(g.generation for g in staged[:1]), *((current.generation,) if current else ())})

    def _warm(self, conn: Any, generation: generations.Generation) -> bool:
        """Pull, verify, open and warm ``generation`` beside the served one, and say so; False if it cannot (yet).

        A failure (shared storage unreadable, a checksum that does not match, a full disk) is
        logged once per generation and retried on the next pass; the heartbeat goes on meanwhile.
        """
        assert self._live is not None
        began = time.perf_counter()
        logger.info("fleet: pulling generation %s", generation.generation)
        try:
            self._pull(generation)
            self._live.prepare(generation.generation)
        except DocsMcpError as error:
            if self._failing.get(generation.generation) != error.message:
                self._failing[generation.generation] = error.message
                logger.error("fleet: cannot warm generation %s: %s", generation.generation, redact(error.message))
                record_event(conn, "warm-failed", generation.generation, self.name, {"error": redact(error.message)})
            return False
        self._failing.pop(generation.generation, None)
        seconds = time.perf_counter() - began
        record_event(conn, "warmed", generation.generation, self.name, {"seconds": round(seconds, 3)})
        logger.info("fleet: warmed generation %s in %.2f s", generation.generation, seconds)
        return True

    def _pull(self, generation: generations.Generation) -> None:
        manifest = ChecksumManifest.from_bytes(
            self.storage.manifest_bytes(generation.generation), generation.manifest_sha256
        )
        pull_generation(self.storage, manifest, self.index_dir)

    def _prune(self, needed: set[str]) -> None:
        """Delete local generations nobody holds: not served, prepared, retained (cursor lifetime) or needed."""
        assert self._live is not None
        try:
            with write_lock(self.index_dir):
                prune(self.index_dir, keep=needed | set(self._live.held()))
        except IndexLockedError:
            pass  # another process writes this folder now: prune next time
