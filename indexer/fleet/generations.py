"""The generations registry and the two-phase flip.

Phase one: a published generation is *staged*; every replica pulls it, verifies it, warms
it and says so in its heartbeat. Phase two: the live pointer flips (one transaction, under
an advisory lock, with a NOTIFY) once every healthy replica has warmed it. A replica whose
heartbeat stopped is not waited for; one still alive but not warmed after ``warm_timeout``
is marked dropped (its /healthz answers not-ready until it serves the live generation), and
the flip goes ahead. Any replica's agent and the publisher evaluate the flip, so it happens
even if the publisher dies after staging.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from docs_mcp.indexer.fleet.checksum_manifest import ChecksumManifest
from docs_mcp.indexer.fleet.control import FLEET_CHANNEL, SWAP_LOCK, record_event
from docs_mcp.indexer.fleet.storage import SharedStorage

STAGED, LIVE, RETIRED, FAILED = "staged", "live", "retired", "failed"
_COLUMNS = "generation, manifest_sha256, total_bytes, state, staged_at, live_at, retired_at"


@dataclass(frozen=True)
class Generation:
    """One row of the registry."""

    generation: str
    manifest_sha256: str
    total_bytes: int
    state: str
    staged_at: datetime
    live_at: datetime | None
    retired_at: datetime | None


@dataclass(frozen=True)
class Flip:
    """What one evaluation of the flip decided: a new live generation, or a generation given up."""

    generation: str
    outcome: str  # live or failed
    warmed: tuple[str, ...]  # replicas that had warmed it
    dropped: tuple[str, ...]  # healthy replicas that had not, past the timeout
    stale: tuple[str, ...]  # replicas whose heartbeat stopped (not waited for)


def stage(conn: Any, manifest: ChecksumManifest, published_by: str) -> None:
    """Register a generation published to shared storage as staged, and tell the replicas."""
    with conn.transaction():
        conn.execute(
            f"INSERT INTO docs_mcp_generations (generation, manifest_sha256, total_bytes, state, published_by) "
            f"VALUES (%s, %s, %s, '{STAGED}', %s) ON CONFLICT (generation) DO NOTHING",
            (manifest.generation, manifest.sha256, manifest.total_bytes, published_by),
        )
        record_event(conn, STAGED, manifest.generation, published_by, {"bytes": manifest.total_bytes})
        conn.execute("SELECT pg_notify(%s, %s)", (FLEET_CHANNEL, f"{STAGED}:{manifest.generation}"))


def generations(conn: Any, *states: str) -> list[Generation]:
    """The registry's generations in ``states`` (all when none given), newest first."""
    where = "WHERE state = ANY(%s)" if states else ""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM docs_mcp_generations {where} ORDER BY staged_at DESC, generation DESC",
        (list(states),) if states else (),
    ).fetchall()
    return [Generation(*row) for row in rows]


def live(conn: Any) -> Generation | None:
    """The live generation, or None before the first flip."""
    found = generations(conn, LIVE)
    return found[0] if found else None


def try_flip(conn: Any, *, warm_timeout: float, heartbeat_ttl: float) -> Flip | None:
    """Flip the live pointer to the newest staged generation if every healthy replica has warmed it.

    Healthy: a heartbeat within ``heartbeat_ttl`` seconds and not dropped. Past ``warm_timeout``
    seconds since staging, the laggards are dropped and the flip goes ahead, unless no healthy
    replica warmed it at all: then the generation failed. Without healthy replicas (a first
    deployment) the flip is immediate. Older staged generations are retired unserved.
    Returns None when there is nothing to do yet or another process is deciding.
    """
    with conn.transaction():
        (mine,) = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (SWAP_LOCK,)).fetchone()
        if not mine:
            return None
        row = conn.execute(
            f"SELECT generation, clock_timestamp() - staged_at > make_interval(secs => %s) FROM docs_mcp_generations "
            f"WHERE state = '{STAGED}' ORDER BY staged_at DESC, generation DESC LIMIT 1",
            (warm_timeout,),
        ).fetchone()
        if row is None:
            return None
        generation, timed_out = row
        replicas = conn.execute(
            """SELECT replica, %(g)s = ANY(warmed), heartbeat_at > clock_timestamp() - make_interval(secs => %(ttl)s),
                      dropped_for IS NULL
               FROM docs_mcp_replicas WHERE heartbeat_at > clock_timestamp() - interval '1 hour' ORDER BY replica""",
            {"g": generation, "ttl": heartbeat_ttl},
        ).fetchall()
        healthy = [(name, warm) for name, warm, fresh, kept in replicas if fresh and kept]
        warmed = tuple(name for name, warm in healthy if warm)
        waiting = tuple(name for name, warm in healthy if not warm)
        stale = tuple(name for name, warm, fresh, kept in replicas if not fresh and not warm)
        if waiting and not timed_out:
            return None
        if healthy and not warmed:
            return _fail(conn, Flip(generation, FAILED, warmed, waiting, stale))
        return _make_live(conn, Flip(generation, LIVE, warmed, waiting, stale))


def _make_live(conn: Any, flip: Flip) -> Flip:
    conn.execute(
        f"UPDATE docs_mcp_generations SET state = '{RETIRED}', retired_at = clock_timestamp() "
        f"WHERE state IN ('{LIVE}', '{STAGED}') AND generation <> %s",
        (flip.generation,),
    )
    conn.execute(
        f"UPDATE docs_mcp_generations SET state = '{LIVE}', live_at = clock_timestamp() WHERE generation = %s",
        (flip.generation,),
    )
    if flip.dropped:
        conn.execute(
            "UPDATE docs_mcp_replicas SET dropped_for = %s WHERE replica = ANY(%s)",
            (flip.generation, list(flip.dropped)),
        )
        for replica in flip.dropped:
            record_event(conn, "dropped", flip.generation, replica, {"reason": "not warmed within fleet.warm_timeout"})
    record_event(
        conn, LIVE, flip.generation, None, {"warmed": flip.warmed, "dropped": flip.dropped, "stale": flip.stale}
    )
    conn.execute("SELECT pg_notify(%s, %s)", (FLEET_CHANNEL, f"{LIVE}:{flip.generation}"))
    return flip


def _fail(conn: Any, flip: Flip) -> Flip:
    conn.execute(
        f"UPDATE docs_mcp_generations SET state = '{FAILED}', retired_at = clock_timestamp() WHERE generation = %s",
        (flip.generation,),
    )
    record_event(conn, FAILED, flip.generation, None, {"waiting": flip.dropped})
    conn.execute("SELECT pg_notify(%s, %s)", (FLEET_CHANNEL, f"{FAILED}:{flip.generation}"))
    return flip


def prune(conn: Any, storage: SharedStorage, *, cursor_lifetime: float, heartbeat_ttl: float) -> list[str]:
    """Delete from shared storage and the registry the generations nobody may need any more.

    A generation goes once it is retired (or failed) for longer than the cursor lifetime and no
    replica with a fresh heartbeat serves it or holds it warm (by reference and by age).
    """
    doomed = [
        name
        for (name,) in conn.execute(
            f"""SELECT g.generation FROM docs_mcp_generations g
            WHERE g.state IN ('{RETIRED}', '{FAILED}') AND g.retired_at < clock_timestamp() - make_interval(secs => %(life)s)
              AND NOT EXISTS (SELECT 1 FROM docs_mcp_replicas r
                              WHERE r.heartbeat_at > clock_timestamp() - make_interval(secs => %(ttl)s)
                                AND (r.serving = g.generation OR g.generation = ANY(r.warmed)))
            ORDER BY g.generation""",
            {"life": cursor_lifetime, "ttl": heartbeat_ttl},
        ).fetchall()
    ]
    for name in doomed:
        storage.delete(name)
        with conn.transaction():
            conn.execute("DELETE FROM docs_mcp_generations WHERE generation = %s", (name,))
            record_event(conn, "pruned", name)
    return doomed
