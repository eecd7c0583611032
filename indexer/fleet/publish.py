"""`docs-mcp publish`: copy a finished generation to shared storage, stage it, wait for the fleet to flip.

The builder hashes the generation live in its own index folder (under the folder's write
lock, so a build in progress is never published half-way: a progressive build publishes
once, its final generation), copies it with its manifest to shared storage, stages it in the
registry, then waits (LISTEN, bounded) while the replicas pull, verify and warm it and the
live pointer flips.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.indexer.errors import ControlPlaneError, FleetError
from docs_mcp.indexer.faults import fault_point
from docs_mcp.indexer.fleet import generations
from docs_mcp.indexer.fleet.checksum_manifest import build_manifest
from docs_mcp.indexer.fleet.control import FLEET_CHANNEL, last_event_detail, listen, psycopg_module
from docs_mcp.indexer.fleet.storage import SharedStorage
from docs_mcp.indexer.index_file import current_generation, write_lock
from docs_mcp.indexer.schema import FINISHED_MARK


@dataclass(frozen=True)
class PublishReport:
    """What a publish did, and how long the fleet took to make it live."""

    generation: str
    files: int
    bytes: int
    manifest_sha256: str
    outcome: str  # live, failed, already-live or staged (did not wait)
    copy_seconds: float
    swap_seconds: float | None  # staged -> live, None when not waited for
    warmed: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()


@dataclass(frozen=True)
class FlipPolicy:
    """When the flip happens: replicas are healthy while they beat within ``heartbeat_ttl``; laggards wait ``warm_timeout``."""

    warm_timeout: float
    heartbeat_ttl: float
    poll: float = 1.0  # seconds between two evaluations while no notification comes


def publish(
    index_dir: Path,
    storage: SharedStorage,
    conn: Any,
    *,
    publisher: str,
    policy: FlipPolicy,
    wait: bool = True,
    notify: Callable[[str], None] | None = None,
    reconnect: Callable[[], Any] | None = None,
) -> PublishReport:
    """Publish the generation live in ``index_dir`` to the fleet (the caller holds the build lock).

    While waiting for the flip, a lost connection is opened again with ``reconnect`` (retried until the wait's end):
    the flip may have committed meanwhile, and the generation's state in the registry says so.

    Raises:
        IndexNotFoundError, IndexFormatError: ``index_dir`` holds no finished generation.
        IndexLockedError: a build is writing ``index_dir`` now.
        StorageError, ChecksumError: shared storage failed.
        ControlPlaneError: PostgreSQL failed (while waiting: and could not be reached again before the wait's end).
        FleetError: no replica warmed the generation in time (it failed).
    """
    say = notify or (lambda _line: None)
    began = time.perf_counter()
    with write_lock(index_dir):
        generation = current_generation(index_dir)
        folder = Path(index_dir) / generation
        if not (folder / FINISHED_MARK).is_file():
            raise FleetError(
                f"Generation {generation} in {index_dir} is not finished.", "Run the build again, then publish."
            )
        manifest = build_manifest(folder)
        known = {g.generation: g for g in generations.generations(conn)}
        if generation in known and known[generation].state == generations.LIVE:
            return PublishReport(
                generation,
                len(manifest.files),
                manifest.total_bytes,
                manifest.sha256,
                "already-live",
                time.perf_counter() - began,
                None,
            )
        say(
            f"copying {generation} ({len(manifest.files)} files, {manifest.total_bytes / 1e6:.1f} MB) to shared storage"
        )
        storage.put(folder, manifest)
    copied = time.perf_counter()
    listen(conn, FLEET_CHANNEL)
    generations.stage(conn, manifest, publisher)
    say(f"staged {generation}: waiting for every healthy replica to warm it")
    base = PublishReport(
        generation, len(manifest.files), manifest.total_bytes, manifest.sha256, generations.STAGED, copied - began, None
    )
    if not wait:
        return base
    fault_point("publish-staged")
    flip = _wait_for_flip(conn, generation, policy, reconnect)
    report = PublishReport(
        generation,
        base.files,
        base.bytes,
        base.manifest_sha256,
        flip.outcome,
        base.copy_seconds,
        time.perf_counter() - copied,
        flip.warmed,
        flip.dropped,
        flip.stale,
    )
    if flip.outcome == generations.FAILED:
        raise FleetError(
            f"No replica warmed generation {generation} within {policy.warm_timeout:g} s; it stays unserved.",
            "Check the replicas' logs (disk space, shared storage mount), then publish again.",
        )
    return report


def _wait_for_flip(
    conn: Any, generation: str, policy: FlipPolicy, reconnect: Callable[[], Any] | None
) -> generations.Flip:
    """Evaluate the flip on every notification (or every ``poll`` seconds) until this generation is decided.

    The wait is bounded: past the warm timeout the flip always decides (live or failed). A connection
    lost meanwhile (PostgreSQL restarted, failed over) is opened again and the registry read afresh.
    """
    deadline = time.monotonic() + policy.warm_timeout + 2 * policy.heartbeat_ttl + 30
    opened: list[Any] = []
    decide_from = 0.0  # after a reconnect: once the replicas cut off with this process have beaten again
    try:
        while time.monotonic() < deadline:
            try:
                flip = _evaluate(conn, generation, policy, decide=time.monotonic() >= decide_from)
                if flip is not None:
                    return flip
                for _ in conn.notifies(timeout=policy.poll, stop_after=1):
                    pass
            except psycopg_module().OperationalError:
                if reconnect is None:
                    raise
                conn = _reconnected(reconnect, generation, deadline, policy.poll)
                opened.append(conn)
                decide_from = time.monotonic() + policy.heartbeat_ttl
    finally:
        for again in opened:
            again.close()
    raise FleetError(
        f"The fleet did not decide on generation {generation} in time.",
        "Check that PostgreSQL answers, then publish again.",
    )


def _evaluate(conn: Any, generation: str, policy: FlipPolicy, *, decide: bool) -> generations.Flip | None:
    """One evaluation: the flip of this generation if it is decided now (by this process if ``decide``, or by a
    replica), else None."""
    flip = (
        generations.try_flip(conn, warm_timeout=policy.warm_timeout, heartbeat_ttl=policy.heartbeat_ttl)
        if decide
        else None
    )
    if flip is not None and flip.generation == generation:
        return flip
    state = {g.generation: g.state for g in generations.generations(conn)}.get(generation)
    if state in (generations.LIVE, generations.FAILED):  # a replica's agent decided it
        return _decided(conn, generation, state)
    if state != generations.STAGED:
        raise FleetError(
            f"Generation {generation} was superseded by a newer publish before it went live.",
            "Nothing to do: the newer generation is what the fleet serves.",
        )
    return None


def _reconnected(reconnect: Callable[[], Any], generation: str, deadline: float, pause: float) -> Any:
    """A new connection, listening again, once PostgreSQL answers; ControlPlaneError if it does not before ``deadline``."""
    while True:
        try:
            conn = reconnect()
            listen(conn, FLEET_CHANNEL)
            return conn
        except (ControlPlaneError, psycopg_module().OperationalError):
            if time.monotonic() + pause >= deadline:
                raise ControlPlaneError(
                    f"Lost the control plane while waiting for generation {generation} to go live. It is staged: "
                    "the replicas flip to it without this command once PostgreSQL answers.",
                    f"When PostgreSQL answers again, `docs-mcp fleet status` shows whether {generation} is live; "
                    "publish again only if it failed.",
                ) from None
            time.sleep(pause)  # a pause between two attempts to reach PostgreSQL, not a synchronization


def _decided(conn: Any, generation: str, state: str) -> generations.Flip:
    detail = last_event_detail(conn, generation, state)
    return generations.Flip(
        generation,
        state,
        tuple(detail.get("warmed", ())),
        tuple(detail.get("dropped", detail.get("waiting", ()))),
        tuple(detail.get("stale", ())),
    )
