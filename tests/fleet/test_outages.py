"""The fleet across a PostgreSQL restart and a killed publish: a real PostgreSQL stopped and started, real `docs-mcp
publish` processes stopped or killed at a named step (issue 37)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from fleet_harness import DOCS_MCP, environ
from services import wait_until
from test_control_plane import build

from docs_mcp.indexer.fleet import generations
from docs_mcp.indexer.fleet.control import ReplicaState, connect, ensure_schema, heartbeat
from docs_mcp.indexer.fleet.publish import FlipPolicy, publish
from docs_mcp.indexer.fleet.storage import LEFTOVER_SECONDS, DirectoryStorage
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.fleet.replica import FleetSettings, ReplicaAgent


class _Beating:
    """Another replica's heartbeat, every 0.2 s, serving ``generation``, until stopped (cut off by the outage)."""

    def __init__(self, database: str, name: str, generation: str) -> None:
        self.conn = connect(database)
        self.stopped = threading.Event()
        self.state = ReplicaState(name, "", generation, (generation,))
        heartbeat(self.conn, self.state)
        self.thread = threading.Thread(target=self._beat, daemon=True)
        self.thread.start()

    def _beat(self) -> None:
        while not self.stopped.wait(0.2):  # the heartbeat's period, not a synchronization
            heartbeat(self.conn, self.state)

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)
        self.conn.close()


def test_after_a_postgres_restart_the_first_replica_back_waits_for_the_others_before_flipping(
    postgres: Any, database: str, tmp_path: Path
) -> None:
    storage = DirectoryStorage(tmp_path / "shared")
    settings = FleetSettings(
        database, tmp_path / "shared", "first-back", heartbeat=1, warm_timeout=600, cursor_lifetime=60
    )
    policy = FlipPolicy(settings.warm_timeout, settings.heartbeat_ttl)
    conn = connect(database)
    ensure_schema(conn)
    builder = build(tmp_path, "one")
    first = publish(builder, storage, conn, publisher="test", policy=policy).generation
    agent = ReplicaAgent(settings, tmp_path / "first-back")
    agent.bootstrap()
    live = LiveIndex(tmp_path / "first-back", warm="bm25", retain=60)
    agent.start(live, name="first-back", url="")
    other = _Beating(database, "other", first)
    try:
        build(tmp_path, "two", extra="second", out=builder)
        second = publish(builder, storage, conn, publisher="test", policy=policy, wait=False).generation
        wait_until(lambda: second in live.held(), "the agent to warm the new generation")
        assert generations.live(conn).generation == first  # "other" has not warmed it
        conn.close()
        other.stop()  # cut off by the outage like the agent; it comes back later than the agent
        postgres.primary.stop()
        wait_until(lambda: agent.check().get("control_plane") == "unreachable", "the agent to lose PostgreSQL")
        passes = agent.passes
        postgres.primary.start()
        wait_until(lambda: agent.passes > passes + 1, "the agent's first passes after the outage")
        conn = connect(database)
        assert generations.live(conn).generation == first, "flipped without the replica cut off by the same outage"
        heartbeat(conn, ReplicaState("other", "", first, (first, second)))  # back, and warm
        wait_until(
            lambda: generations.live(conn).generation == second, "the flip once every healthy replica has warmed it"
        )
    finally:
        agent.stop()
        live.close()
        conn.close()


def _stopped(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


def _publish(builder: Path, database: str, shared: Path, fault: str = "", **settings: str) -> subprocess.Popen[str]:
    env = environ(
        DOCS_MCP_DATABASE_URL=database, DOCS_MCP_FLEET_STORAGE=str(shared), DOCS_MCP_TEST_FAULT=fault, **settings
    )
    return subprocess.Popen(
        [*DOCS_MCP, "publish", "--index", str(builder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=builder.parent,
    )


def test_a_publish_that_loses_postgres_while_waiting_reports_the_flip_committed_meanwhile(
    postgres: Any, database: str, tmp_path: Path
) -> None:
    builder = build(tmp_path, "one")
    publishing = _publish(builder, database, tmp_path / "shared", "publish-staged:sigstop")
    try:
        wait_until(lambda: _stopped(publishing.pid), "the publish to stop once it has staged")
        postgres.primary.stop()
        postgres.primary.start()
        conn = connect(database)
        flip = generations.try_flip(
            conn, warm_timeout=300, heartbeat_ttl=15
        )  # another process decides: no replica to wait for
        conn.close()
        assert flip is not None and flip.outcome == "live"
    finally:
        os.kill(publishing.pid, signal.SIGCONT)
    out, err = publishing.communicate(timeout=180)
    assert publishing.returncode == 0, err
    assert out.strip() == flip.generation and f"{flip.generation} is live" in err and "Traceback" not in err


def test_a_publish_whose_postgres_stays_away_says_the_generation_is_staged_and_how_to_check(
    postgres: Any, database: str, tmp_path: Path
) -> None:
    builder = build(tmp_path, "one")
    publishing = _publish(
        builder,
        database,
        tmp_path / "shared",
        "publish-staged:sigstop",
        DOCS_MCP_WARM_TIMEOUT="1",
        DOCS_MCP_FLEET_HEARTBEAT="1",
    )  # the shortest wait there is
    try:
        wait_until(lambda: _stopped(publishing.pid), "the publish to stop once it has staged")
        postgres.primary.stop()
        os.kill(publishing.pid, signal.SIGCONT)
        out, err = publishing.communicate(timeout=180)
    finally:
        postgres.primary.start()
    assert publishing.returncode == 1 and out == "" and "Traceback" not in err
    assert "error: Lost the control plane while waiting for generation " in err and "It is staged" in err
    assert "hint: When PostgreSQL answers again, `docs-mcp fleet status` shows whether " in err


def test_a_killed_publish_leaves_no_copy_on_shared_storage_for_ever(
    postgres: Any, database: str, tmp_path: Path
) -> None:
    builder = build(tmp_path, "one")
    shared = tmp_path / "shared"
    killed = _publish(builder, database, shared, "publish-copy:sigkill")
    killed.communicate(timeout=180)
    assert killed.returncode == -signal.SIGKILL
    (left,) = shared.glob(".incoming-*")
    writing = shared / ".incoming-20991231T000000Z-00000000-1"  # another publisher's copy, still being written
    (writing / "serving").mkdir(parents=True)
    (writing / "serving" / "part").write_bytes(b"just written")
    long_ago = time.time() - 2 * LEFTOVER_SECONDS  # the killed copy has not changed for this long
    for path in (left, *left.rglob("*")):
        os.utime(path, (long_ago, long_ago))
    again = _publish(builder, database, shared)
    out, err = again.communicate(timeout=180)
    assert again.returncode == 0, err
    assert not left.exists() and writing.is_dir()
    assert sorted(p.name for p in shared.iterdir()) == sorted([out.strip(), writing.name])
