"""API keys: format, digest-only storage, revocation seen by a running verifier, and store errors."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from docs_mcp.server.team.errors import KeyExistsError, KeyNotFoundError, KeyStoreError
from docs_mcp.server.team.keys import KeyStore, KeyVerifier, digest_key, generate_key

KEY_FORMAT = re.compile(r"dm_[A-Za-z0-9_-]{40}")


@pytest.fixture
def store(tmp_path: Path) -> KeyStore:
    return KeyStore(tmp_path / "index" / "keys.sqlite")


def test_keys_are_dm_and_40_base64url_characters_and_never_repeat() -> None:
    keys = {generate_key() for _ in range(200)}
    assert len(keys) == 200
    assert all(KEY_FORMAT.fullmatch(key) for key in keys)


def test_only_the_sha256_digest_is_stored(store: KeyStore) -> None:
    record, key = store.create("alice", rate=120, burst=20)
    assert (record.name, record.rate, record.burst, record.hint) == ("alice", 120, 20, key[:7])
    raw = store.path.read_bytes()
    assert key.encode() not in raw and key[3:].encode() not in raw
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("SELECT digest FROM keys").fetchall() == [(digest_key(key),)]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_a_running_verifier_sees_keys_created_and_revoked_by_another_process(store: KeyStore) -> None:
    verifier = KeyVerifier(store.path)
    assert verifier.verify(generate_key()) is None  # no store yet: nothing is valid
    _, key = store.create("alice")
    assert verifier.verify(key) is not None and verifier.verify(key).name == "alice"  # type: ignore[union-attr]
    store.revoke("alice")
    assert verifier.verify(key) is None
    assert verifier.active_count() == 0


def test_a_name_is_unique_among_active_keys_and_reusable_after_revocation(store: KeyStore) -> None:
    _, old = store.create("alice")
    with pytest.raises(KeyExistsError, match="alice") as caught:
        store.create("alice")
    assert "keys revoke alice" in caught.value.hint
    store.revoke("alice")
    _, new = store.create("alice")
    verifier = KeyVerifier(store.path)
    assert verifier.verify(old) is None
    assert verifier.verify(new) is not None
    assert [(r.name, r.revoked_at is None) for r in store.list()] == [("alice", False), ("alice", True)]


@pytest.mark.parametrize(
    "presented", ["", "dm_", "pc_" + "a" * 40, "dm_" + "a" * 39, "dm_" + "a" * 41, "dm_" + "*" * 40]
)
def test_malformed_keys_are_refused(store: KeyStore, presented: str) -> None:
    store.create("alice")
    assert KeyVerifier(store.path).verify(presented) is None


@pytest.mark.parametrize("name", ["", "-dash-first", "with space", "x" * 65, "slash/name"])
def test_invalid_names_are_refused_with_the_rule(store: KeyStore, name: str) -> None:
    with pytest.raises(KeyStoreError, match="invalid") as caught:
        store.create(name)
    assert "1-64 letters" in caught.value.hint


def test_revoking_an_unknown_name_says_how_to_list(store: KeyStore) -> None:
    with pytest.raises(KeyNotFoundError, match="bob"):
        store.revoke("bob")  # no store file yet
    store.create("alice")
    with pytest.raises(KeyNotFoundError, match="bob") as caught:
        store.revoke("bob")
    assert "keys list" in caught.value.hint


def test_a_corrupt_store_is_a_key_store_error_not_a_traceback(store: KeyStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(KeyStoreError, match="cannot be used"):
        store.create("alice")
    with pytest.raises(KeyStoreError, match="cannot be used"):
        KeyVerifier(store.path).verify(generate_key())


def test_a_key_belongs_to_a_project_which_the_verifier_reports(store: KeyStore) -> None:
    _, key = store.create("alice", project="backend")
    assert KeyVerifier(store.path).verify(key).project == "backend"
    with pytest.raises(KeyStoreError, match="Project 'no good' is invalid"):
        store.create("bob", project="no good")


def test_a_store_from_before_projects_is_read_as_is_and_migrated_on_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "keys.sqlite"
    key = generate_key()
    with sqlite3.connect(path) as conn:  # the first release's schema: no project column
        conn.execute(
            "CREATE TABLE keys (id INTEGER PRIMARY KEY, name TEXT NOT NULL, digest BLOB NOT NULL UNIQUE, "
            "hint TEXT NOT NULL, rate INTEGER, burst INTEGER, created_at TEXT NOT NULL, revoked_at TEXT)"
        )
        conn.execute(
            "INSERT INTO keys (name, digest, hint, created_at) VALUES ('old', ?, 'dm_abcd', '2026-01-01')",
            (digest_key(key),),
        )
    verifier = KeyVerifier(path)
    assert (verifier.verify(key).name, verifier.verify(key).project) == ("old", None)
    KeyStore(path).create("new", project="backend")
    assert [(k.name, k.project) for k in KeyStore(path).list()] == [("old", None), ("new", "backend")]
    assert verifier.verify(key).project is None  # the running verifier sees the migrated table


def test_a_store_replaced_by_another_file_is_read_again(store: KeyStore, tmp_path: Path) -> None:
    """A backup restored over the store: keys revoked since the backup are valid again, keys made since are gone."""
    _, alice = store.create("alice")
    backup = tmp_path / "backup.sqlite"
    shutil.copy(store.path, backup)
    _, bob = store.create("bob")
    store.revoke("alice")
    verifier = KeyVerifier(store.path)
    assert (verifier.verify(alice), verifier.verify(bob).name) == (None, "bob")
    os.replace(backup, store.path)  # a new inode in the store's place
    assert (verifier.verify(alice).name, verifier.verify(bob)) == ("alice", None)


def test_a_mounted_secret_updated_by_a_symlink_swap_is_read_again(tmp_path: Path) -> None:
    """Kubernetes updates a mounted secret by swapping the ..data symlink to a new folder."""
    first, second = tmp_path / "v1", tmp_path / "v2"
    _, old = KeyStore(first / "keys.sqlite").create("old")
    _, new = KeyStore(second / "keys.sqlite").create("new")
    (tmp_path / "..data").symlink_to(first)
    (tmp_path / "keys.sqlite").symlink_to(tmp_path / "..data" / "keys.sqlite")
    verifier = KeyVerifier(tmp_path / "keys.sqlite")
    assert verifier.verify(old).name == "old" and verifier.verify(new) is None
    (tmp_path / "..data.tmp").symlink_to(second)
    os.replace(tmp_path / "..data.tmp", tmp_path / "..data")
    assert verifier.verify(old) is None and verifier.verify(new).name == "new"


def test_a_store_that_is_gone_refuses_every_key_with_a_key_store_error_until_it_is_back(
    store: KeyStore, tmp_path: Path
) -> None:
    _, key = store.create("alice")
    verifier = KeyVerifier(store.path)
    assert verifier.verify(key).name == "alice"
    shutil.move(store.path, tmp_path / "aside.sqlite")
    with pytest.raises(KeyStoreError, match="is gone") as gone:
        verifier.verify(key)
    assert "Restore the file" in gone.value.hint
    with pytest.raises(KeyStoreError):
        verifier.active_count()  # what /healthz reads: the store is unavailable
    shutil.move(tmp_path / "aside.sqlite", store.path)
    assert verifier.verify(key).name == "alice"


def test_a_store_never_created_refuses_keys_without_an_error(tmp_path: Path) -> None:
    verifier = KeyVerifier(tmp_path / "none.sqlite")
    assert (verifier.verify(generate_key()), verifier.active_count()) == (None, 0)


def test_a_running_server_says_the_key_store_is_unavailable_once_it_is_gone(index_dir: Path, servers, new_key) -> None:
    import httpx

    key = new_key(index_dir, "alice")
    server = servers.start(index_dir)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    assert httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=60).status_code == 200
    (index_dir / "keys.sqlite").rename(index_dir / "keys.aside")
    health = httpx.get(f"{server.url}/healthz", timeout=60)
    assert (health.status_code, health.json()["checks"]["keys"]["status"]) == (503, "unavailable")
    assert httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=60).status_code == 503
    (index_dir / "keys.aside").rename(index_dir / "keys.sqlite")
    assert httpx.get(f"{server.url}/healthz", timeout=60).status_code == 200
    assert httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=60).status_code == 200
