"""The fleet's control plane against a real PostgreSQL: manifests, shared storage, the registry's flip, the build lock, keys."""

from __future__ import annotations

import shutil
import sys
import threading
import traceback
from pathlib import Path
from typing import Any

import pytest
from services import wait_until

from docs_mcp.indexer import build_index
from docs_mcp.indexer.errors import BuildLockedError, ChecksumError, ControlPlaneError, StorageError
from docs_mcp.indexer.fleet import generations
from docs_mcp.indexer.fleet.checksum_manifest import ChecksumManifest, build_manifest
from docs_mcp.indexer.fleet.control import BUILD_LOCK, ReplicaState, build_lock, connect, ensure_schema, heartbeat
from docs_mcp.indexer.fleet.publish import FlipPolicy, publish
from docs_mcp.indexer.fleet.storage import DirectoryStorage, pull_generation
from docs_mcp.indexer.index_file import current_generation
from docs_mcp.server.core.live_index import LiveIndex
from docs_mcp.server.fleet.replica import FleetSettings, ReplicaAgent
from docs_mcp.server.team.errors import KeyExistsError, KeyNotFoundError
from docs_mcp.server.team.postgres_keys import PostgresKeyStore, PostgresKeyVerifier

PAGES = {
    "guides/a.md": "# Alpha\n\nThe alpha widget.\n\n## Setup\n\nInstall the alpha widget.\n",
    "guides/b.md": "# Bravo\n\nThe bravo widget.\n",
}


def build(tmp_path: Path, name: str, extra: str = "", embeddings: str = "none", out: Path | None = None) -> Path:
    docs = tmp_path / f"docs-{name}"
    for relative, text in {**PAGES, "guides/extra.md": f"# Extra\n\n{extra or name}\n"}.items():
        (docs / relative).parent.mkdir(parents=True, exist_ok=True)
        (docs / relative).write_text(text, encoding="utf-8")
    out = out or tmp_path / "builder"
    build_index(docs, out, embeddings=embeddings)
    return out


@pytest.fixture
def conn(database: str) -> Any:
    connection = connect(database)
    ensure_schema(connection)
    yield connection
    connection.close()


def test_a_pulled_copy_is_verified_byte_for_byte(tmp_path: Path) -> None:
    builder = build(tmp_path, "one")
    folder = builder / current_generation(builder)
    manifest = build_manifest(folder)
    assert {e.path for e in manifest.files} >= {"index.duckdb", "metadata.json", "serving/manifest.json"}
    storage = DirectoryStorage(tmp_path / "shared")
    storage.put(folder, manifest)
    again = ChecksumManifest.from_bytes(storage.manifest_bytes(manifest.generation), manifest.sha256)
    assert again == manifest and storage.generations() == [manifest.generation]

    replica = tmp_path / "replica"
    replica.mkdir()
    pulled = pull_generation(storage, again, replica)
    assert build_manifest(pulled).files == manifest.files

    shutil.rmtree(pulled)
    damaged = tmp_path / "shared" / manifest.generation / "serving" / "manifest.json"
    damaged.write_bytes(damaged.read_bytes()[:-1] + b" ")  # same size, one byte changed
    with pytest.raises(ChecksumError, match="serving/manifest.json .* fails its checksum"):
        pull_generation(storage, again, replica)
    assert [p.name for p in replica.iterdir()] == []  # nothing half-copied left behind
    with pytest.raises(ChecksumError, match="does not match the registry"):
        ChecksumManifest.from_bytes(storage.manifest_bytes(manifest.generation), "0" * 64)
    with pytest.raises(ChecksumError, match="outside the generation"):
        ChecksumManifest.from_bytes(b'{"generation": "g", "files": [{"path": "../x", "size": 1, "sha256": "0"}]}')
    with pytest.raises(StorageError, match="not a generation name"):
        storage.open("../../etc", "passwd")


def _replica(conn: Any, name: str, warmed: tuple[str, ...], *, silent: bool = False) -> None:
    heartbeat(conn, ReplicaState(name, "", None, warmed))
    if silent:
        conn.execute(
            "UPDATE docs_mcp_replicas SET heartbeat_at = clock_timestamp() - interval '1 minute' WHERE replica = %s",
            (name,),
        )


def _stage(conn: Any, tmp_path: Path, name: str) -> str:
    builder = build(tmp_path, name, out=tmp_path / f"builder-{name}")
    manifest = build_manifest(builder / current_generation(builder))
    generations.stage(conn, manifest, "test")
    return manifest.generation


def test_the_flip_waits_for_every_healthy_replica(conn: Any, tmp_path: Path) -> None:
    first = _stage(conn, tmp_path, "first")
    assert generations.try_flip(conn, warm_timeout=60, heartbeat_ttl=3).outcome == "live"  # nobody to wait for
    second = _stage(conn, tmp_path, "second")
    _replica(conn, "r1", (first, second))
    _replica(conn, "r2", (first,))
    _replica(conn, "gone", (first,), silent=True)
    assert generations.try_flip(conn, warm_timeout=60, heartbeat_ttl=3) is None  # r2 has not warmed it
    assert generations.live(conn).generation == first
    _replica(conn, "r2", (first, second))
    flip = generations.try_flip(conn, warm_timeout=60, heartbeat_ttl=3)
    assert (flip.outcome, flip.warmed, flip.dropped, flip.stale) == ("live", ("r1", "r2"), (), ("gone",))
    states = {g.generation: g.state for g in generations.generations(conn)}
    assert states == {first: "retired", second: "live"}


def test_a_laggard_past_the_timeout_is_dropped_and_rejoins_when_it_serves_the_live_generation(
    conn: Any, tmp_path: Path
) -> None:
    first = _stage(conn, tmp_path, "first")
    generations.try_flip(conn, warm_timeout=60, heartbeat_ttl=3)
    second = _stage(conn, tmp_path, "second")
    _replica(conn, "fast", (first, second))
    _replica(conn, "slow", (first,))
    flip = generations.try_flip(conn, warm_timeout=0, heartbeat_ttl=3)
    assert (flip.outcome, flip.dropped) == ("live", ("slow",))
    assert heartbeat(conn, ReplicaState("slow", "", first, (first,))) == second  # still dropped
    assert heartbeat(conn, ReplicaState("slow", "", second, (second,))) is None  # caught up
    third = _stage(conn, tmp_path, "third")
    _replica(conn, "fast", (second,))
    assert generations.try_flip(conn, warm_timeout=0, heartbeat_ttl=3).outcome == "failed"  # nobody warmed it
    assert generations.live(conn).generation == second and {
        g.state for g in generations.generations(conn, "failed")
    } == {"failed"}
    assert third in {g.generation for g in generations.generations(conn, "failed")}


def test_a_heartbeat_racing_the_flip_that_drops_its_replica_keeps_it_dropped(
    conn: Any, database: str, tmp_path: Path
) -> None:
    # The flip marks the laggard while the laggard's heartbeat waits on that row: the heartbeat's statement
    # began before the flip committed, when the laggard's generation was still the live one.
    first = _stage(conn, tmp_path, "first")
    generations.try_flip(conn, warm_timeout=60, heartbeat_ttl=3)
    second = _stage(conn, tmp_path, "second")
    _replica(conn, "fast", (first, second))
    heartbeat(conn, ReplicaState("slow", "", first, (first,)))
    other = connect(database)
    returned: list[str | None] = []
    with conn.transaction():
        flip = generations.try_flip(conn, warm_timeout=0, heartbeat_ttl=3)
        assert (flip.outcome, flip.dropped) == ("live", ("slow",))
        racing = threading.Thread(
            target=lambda: returned.append(heartbeat(other, ReplicaState("slow", "", first, (first,))))
        )
        racing.start()
        wait_until(
            lambda: conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                (other.info.backend_pid,),
            ).fetchone()[0],
            "the heartbeat to wait on the flip's lock",
        )
    racing.join(timeout=60)
    other.close()
    assert returned == [second]  # still dropped: it serves the generation it missed the flip from
    assert heartbeat(conn, ReplicaState("slow", "", first, (first,))) == second
    third = _stage(conn, tmp_path, "third")
    assert heartbeat(conn, ReplicaState("slow", "", third, (third,))) is None  # serving a newer one than it missed


def test_the_build_lock_is_held_by_one_builder_and_freed_when_it_dies(database: str) -> None:
    first, second = connect(database), connect(database)
    ensure_schema(first)
    with build_lock(first, "builder-1"):
        with pytest.raises(BuildLockedError, match="Another builder"):
            with build_lock(second, "builder-2"):
                pass
    with build_lock(second, "builder-2"):
        pass
    first.execute("SELECT pg_advisory_lock(%s)", (BUILD_LOCK,))
    first.close()  # a builder killed while holding it: its session ends (the server notices a moment later)

    def takes_it() -> bool:
        try:
            with build_lock(second, "builder-2"):
                return True
        except BuildLockedError:
            return False

    wait_until(takes_it, "the dead builder's lock to be released", timeout=30)
    second.close()


def test_a_progressive_build_publishes_once_and_pruning_goes_by_reference_and_age(conn: Any, tmp_path: Path) -> None:
    storage = DirectoryStorage(tmp_path / "shared")
    builder = build(tmp_path, "one", embeddings="default")  # progressive: full text live, then hybrid
    policy = FlipPolicy(warm_timeout=60, heartbeat_ttl=3)
    report = publish(builder, storage, conn, publisher="test", policy=policy)
    assert report.outcome == "live" and report.swap_seconds is not None
    assert storage.generations() == [report.generation]
    hybrid = (tmp_path / "shared" / report.generation / "metadata.json").read_text()
    assert '"embedding": null' not in hybrid  # the final generation, with its vectors
    assert publish(builder, storage, conn, publisher="test", policy=policy).outcome == "already-live"
    staged = conn.execute("SELECT count(*) FROM docs_mcp_events WHERE event = 'staged'").fetchone()[0]
    assert staged == 1

    build(tmp_path, "two", extra="changed", embeddings="none", out=builder)
    second = publish(builder, storage, conn, publisher="test", policy=policy)
    _replica(conn, "holder", (report.generation,))  # still holds the old one
    assert generations.prune(conn, storage, cursor_lifetime=0, heartbeat_ttl=3) == []
    assert generations.prune(conn, storage, cursor_lifetime=3600, heartbeat_ttl=3) == []
    _replica(conn, "holder", (second.generation,))
    assert generations.prune(conn, storage, cursor_lifetime=0, heartbeat_ttl=3) == [report.generation]
    assert storage.generations() == [second.generation]


def test_keys_in_postgres_reach_every_verifier_at_once(database: str) -> None:
    store = PostgresKeyStore(database)
    record, alice = store.create("alice", rate=10)
    verifiers = [
        PostgresKeyVerifier(database, poll=3600),
        PostgresKeyVerifier(database, poll=3600),
    ]  # no fallback poll here
    try:
        assert [v.verify(alice).name for v in verifiers] == ["alice", "alice"]
        _, bob = store.create("bob")
        assert [v.verify(bob).name for v in verifiers] == ["bob", "bob"]  # created after they loaded: looked up
        with pytest.raises(KeyExistsError):
            store.create("bob")
        store.revoke("alice")
        wait_until(lambda: all(v.verify(alice) is None for v in verifiers), "the revocation's notification", timeout=10)
        with pytest.raises(KeyNotFoundError):
            store.revoke("alice")
        assert [k.name for k in store.list()] == ["alice", "bob"] and store.list()[0].revoked_at
        assert [v.active_count() for v in verifiers] == [1, 1]
        assert verifiers[0].verify("dm_" + "x" * 40) is None and verifiers[0].verify("not a key") is None
    finally:
        for verifier in verifiers:
            verifier.close()


def test_an_unreachable_control_plane_is_a_clear_error_without_the_password() -> None:
    with pytest.raises(ControlPlaneError) as caught:
        connect("postgresql://admin:hunter2-secret@127.0.0.1:1/docs?connect_timeout=2")
    assert "hunter2-secret" not in str(caught.value) and "fleet.database_url" in caught.value.hint


class _Unreachable(DirectoryStorage):
    """Shared storage that a replica cannot read (a lost mount) until ``fixed`` is set."""

    fixed = threading.Event()

    def manifest_bytes(self, generation: str) -> bytes:
        if not self.fixed.is_set():
            raise StorageError("shared storage is not mounted", "mount it")
        return super().manifest_bytes(generation)


def _agent_state(agent: ReplicaAgent, conn: Any) -> str:
    """What a replica agent is doing now, for a failure message: its passes, its view, its row, its thread's stack."""
    thread = agent._thread
    frame = sys._current_frames().get(thread.ident) if thread is not None and thread.ident is not None else None
    row = conn.execute(
        "SELECT serving, warmed, dropped_for, clock_timestamp() - heartbeat_at FROM docs_mcp_replicas "
        "WHERE replica = %s",
        (agent.name,),
    ).fetchone()
    stack = "".join(traceback.format_stack(frame)) if frame is not None else "(no thread)"
    return (
        f"passes={agent.passes} alive={thread is not None and thread.is_alive()} check={agent.check()} "
        f"registry={[(g.generation, g.state) for g in generations.generations(conn)]} row={row}\n{stack}"
    )


def test_replicas_warm_before_the_flip_and_a_laggard_leaves_health_until_it_catches_up(
    database: str, tmp_path: Path
) -> None:
    storage_dir = tmp_path / "shared"
    conn = connect(database)
    ensure_schema(conn)
    settings = FleetSettings(database, storage_dir, heartbeat=1, warm_timeout=2, cursor_lifetime=60)
    policy = FlipPolicy(settings.warm_timeout, settings.heartbeat_ttl)
    builder = build(tmp_path, "one")
    first = publish(builder, DirectoryStorage(storage_dir), conn, publisher="test", policy=policy).generation
    agents, lives = [], []
    for name, storage in (("steady", None), ("laggard", _Unreachable(storage_dir))):
        agent = ReplicaAgent(FleetSettings(database, storage_dir, name, 1, 2, 60), tmp_path / name, storage)
        agent.bootstrap() if storage is None else (
            _Unreachable.fixed.set(),
            agent.bootstrap(),
            _Unreachable.fixed.clear(),
        )
        live = LiveIndex(tmp_path / name, warm="bm25", retain=60)
        agent.start(live, name=name, url="")
        agents.append(agent)
        lives.append(live)
    try:
        wait_until(lambda: conn.execute("SELECT count(*) FROM docs_mcp_replicas").fetchone()[0] == 2, "both heartbeats")
        build(tmp_path, "two", extra="second", out=builder)
        report = publish(builder, DirectoryStorage(storage_dir), conn, publisher="test", policy=policy)
        assert (report.outcome, report.warmed, report.dropped) == ("live", ("steady",), ("laggard",))
        wait_until(lambda: lives[0].current().generation == report.generation, "the steady replica to serve it")
        assert lives[0].held() == (report.generation, first)  # the old one stays open for its cursors
        wait_until(
            lambda: agents[1].check()["status"] == "unavailable",
            "the laggard to leave /healthz",
            timeout=60,
            explain=lambda: _agent_state(agents[1], conn),
        )
        assert "missed the flip" in agents[1].check()["error"] and lives[1].current().generation == first
        _Unreachable.fixed.set()
        wait_until(
            lambda: agents[1].check()["status"] == "ok" and lives[1].current().generation == report.generation,
            "the laggard to catch up",
        )
    finally:
        for agent, live in zip(agents, lives):
            agent.stop()
            live.close()
        conn.close()
