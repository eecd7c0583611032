"""`docs-mcp keys` and `docs-mcp config` as an administrator types them (real subprocesses)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

KEY_FORMAT = re.compile(r"dm_[A-Za-z0-9_-]{40}")


def test_create_prints_only_the_key_on_stdout_and_the_rest_on_stderr(index_dir: Path, cli) -> None:
    done = cli("keys", "create", "alice", "--rate", "30", "--index", str(index_dir))
    assert done.returncode == 0, done.stderr
    assert KEY_FORMAT.fullmatch(done.stdout.strip())
    assert "Created key 'alice' (rate 30/min, burst server default)" in done.stderr
    assert "only time the key is shown" in done.stderr
    assert (index_dir / "keys.sqlite").is_file()


def test_list_shows_names_prefixes_limits_and_status_never_keys(tmp_path: Path, cli) -> None:
    store = tmp_path / "elsewhere" / "keys.sqlite"
    keys = [
        cli("keys", "create", name, "--store", str(store), *extra).stdout.strip()
        for name, extra in (("alice", ("--project", "backend")), ("ci-bot", ()))
    ]
    assert cli("keys", "revoke", "ci-bot", "--store", str(store)).returncode == 0
    table = cli("keys", "list", "--store", str(store)).stdout.splitlines()
    assert table[0].split() == ["NAME", "KEY", "PROJECT", "RATE/MIN", "BURST", "CREATED", "STATUS"]
    assert table[1].startswith("alice") and table[1].endswith("active") and keys[0][:7] + "..." in table[1]
    assert table[1].split()[2] == "backend" and table[2].split()[2] == "-"
    assert table[2].startswith("ci-bot") and "revoked " in table[2]
    assert not any(key in "\n".join(table) for key in keys)


def test_the_store_can_come_from_the_environment(tmp_path: Path, cli, clean_env) -> None:
    store = tmp_path / "env-store.sqlite"
    done = cli("keys", "create", "alice", env=clean_env(DOCS_MCP_KEY_STORE=str(store)))
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT name FROM keys").fetchall() == [("alice",)]


def test_mistakes_are_one_line_with_a_hint_and_no_traceback(index_dir: Path, tmp_path: Path, cli) -> None:
    index = str(index_dir)
    for args, expected in [
        (("keys", "create", "bad name", "--index", index), "Key name 'bad name' is invalid."),
        (("keys", "revoke", "nobody", "--index", index), "No active key named 'nobody'."),
        (
            ("keys", "create", "alice", "--rate", "0", "--index", index),
            "'--rate'",
        ),  # typer's own message: only the option is checked
        (("keys", "create", "alice", "--rate", "9" * 23, "--index", index), "'--rate'"),
    ]:
        done = cli(*args)
        assert done.returncode != 0 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert cli("keys", "create", "alice", "--index", index).returncode == 0
    duplicate = cli("keys", "create", "alice", "--index", index)
    assert duplicate.returncode == 1
    assert "error: An active key named 'alice' already exists." in duplicate.stderr
    assert "hint: Revoke it first (`docs-mcp keys revoke alice`)" in duplicate.stderr


def test_config_show_says_where_each_value_comes_from(tmp_path: Path, cli, clean_env) -> None:
    config = tmp_path / "team.toml"
    config.write_text("[server]\nport = 4000\n", encoding="utf-8")
    shown = cli("config", "show", "--config", str(config), env=clean_env(DOCS_MCP_LOG_FORMAT="pretty")).stdout
    assert f"server.port = 4000  # file {config}" in shown
    assert "logging.format = 'pretty'  # env" in shown
    assert "rate_limit.burst = 10  # default" in shown
    bad = cli("config", "show", env=clean_env(DOCS_MCP_RATE_BURST="many"))
    assert bad.returncode == 2 and "$DOCS_MCP_RATE_BURST = 'many' (env)" in bad.stderr


def test_config_example_is_the_documented_file(cli) -> None:
    example = cli("config", "example").stdout
    assert example.startswith("# docs-mcp.toml") and "[rate_limit]" in example and "DOCS_MCP_REDIS_URL" in example


def test_a_public_address_without_allowed_hosts_needs_allow_any_host(index_dir: Path, cli, servers) -> None:
    refused = cli("serve", "--transport", "http", "--index", str(index_dir), "--host", "0.0.0.0", "--port", "0")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "error: Refusing to serve 0.0.0.0 with http.allowed_hosts empty" in refused.stderr
    assert "--allow-any-host" in refused.stderr and "http.allowed_hosts" in refused.stderr
    server = servers.start(index_dir, "--host", "0.0.0.0", "--allow-any-host")
    assert server.wait_for(lambda r: "Host header not checked" in r.get("msg", ""))["level"] == "warning"


def test_keys_for_a_folder_without_an_index_yet_come_with_a_note(tmp_path: Path, cli) -> None:
    folder = tmp_path / "typo"  # keys may come before the first build, so a typo is only noticed if we say so
    done = cli("keys", "create", "alice", "--index", str(folder))
    assert done.returncode == 0 and (folder / "keys.sqlite").is_file()
    assert f"note: {folder} holds no index yet; `docs-mcp serve --index {folder}` finds these keys" in done.stderr
