"""The gateway's sections of the config file, and `docs-mcp upstream add/list/remove` editing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.server.gateway.config_file import add_upstream, remove_upstream
from docs_mcp.server.gateway.errors import GatewayConfigError
from docs_mcp.server.gateway.gateway_config import GatewaySettings, load_gateway_config
from docs_mcp.server.gateway.records import UpstreamSpec
from docs_mcp.server.team.server_settings import load_settings

TEAM_AND_GATEWAY = """\
# our team server
[server]
port = 4000  # behind the proxy

[gateway]
list_ttl = 5
search_url = "http://127.0.0.1:9/search"

[[upstream]]
name = "github"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "ghp_secret" }

[[upstream]]
name = "search"
url = "http://127.0.0.1:8931/mcp"
enabled = false

[tool_permissions.backend]
allow = ["github"]
deny = ["github:delete_*"]
"""


def docs_mcp(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )


def test_one_file_serves_team_mode_and_the_gateway(tmp_path: Path) -> None:
    path = tmp_path / "docs-mcp.toml"
    path.write_text(TEAM_AND_GATEWAY, encoding="utf-8")
    assert load_settings(config_file=path, environ={})["server.port"] == 4000  # team mode skips our sections
    config = load_gateway_config(path)
    assert config.upstreams == (
        UpstreamSpec("github", "npx", ("-y", "@modelcontextprotocol/server-github"), {"GITHUB_TOKEN": "ghp_secret"}),
        UpstreamSpec("search", url="http://127.0.0.1:8931/mcp", enabled=False),
    )
    assert [spec.name for spec in config.enabled] == ["github"]
    assert config.settings == GatewaySettings(list_ttl=5, search_url="http://127.0.0.1:9/search")
    assert config.permissions["backend"].permits("github:create_issue")
    assert not config.permissions["backend"].permits("github:delete_branch")
    assert not config.permissions["backend"].permits("slack:post_message")


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        '[gateway]\nlist_ttl = -1\nmode = "fuzzy"\ncolour = 1\n\n'
        '[[upstream]]\nname = "a:b"\ncommand = "x"\n\n'
        '[[upstream]]\nname = "both"\ncommand = "x"\nurl = "http://h"\n\n'
        '[[upstream]]\nname = "ok"\ncommand = "x"\nargs = "not a list"\n\n'
        '[[upstream]]\nname = "ok"\nurl = "ftp://h"\n\n'
        '[tool_permissions.p]\nallow = "github"\n',
        encoding="utf-8",
    )
    with pytest.raises(GatewayConfigError) as caught:
        load_gateway_config(path)
    message = caught.value.message
    for expected in (
        "gateway.list_ttl = -1: must be positive",
        "gateway.mode = 'fuzzy'",
        "gateway.colour: unknown key",
        "name 'a:b' must be",
        "(both): give exactly one of command",
        "(ok): args must be a list",
        "(ok): url must start with http",
        "upstream 'ok' is defined twice",
        "tool_permissions.p.allow",
    ):
        assert expected in message, expected
    assert caught.value.exit_code == 2


def test_add_and_remove_keep_the_rest_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "docs-mcp.toml"
    path.write_text(TEAM_AND_GATEWAY, encoding="utf-8")
    add_upstream(path, UpstreamSpec("db", "uvx", ("mcp-server-postgres", "postgres://localhost/app")))
    assert [spec.name for spec in load_gateway_config(path).upstreams] == ["github", "search", "db"]
    assert remove_upstream(path, "github").command == "npx"
    remove_upstream(path, "search")
    remove_upstream(path, "db")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# our team server\n[server]\nport = 4000  # behind the proxy\n")
    assert "[tool_permissions.backend]" in text and "[[upstream]]" not in text
    with pytest.raises(GatewayConfigError, match="No upstream named 'db'") as caught:
        remove_upstream(path, "db")
    assert caught.value.hint == "Configured upstreams: none."


def test_add_refuses_a_taken_name_and_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "docs-mcp.toml"
    path.write_text(TEAM_AND_GATEWAY, encoding="utf-8")
    with pytest.raises(GatewayConfigError, match="already exists"):
        add_upstream(path, UpstreamSpec("github", "other"))
    with pytest.raises(GatewayConfigError, match="must be 1-64 letters"):
        add_upstream(path, UpstreamSpec("no good", "x"))
    assert path.read_text(encoding="utf-8") == TEAM_AND_GATEWAY
    assert [p.name for p in tmp_path.iterdir()] == ["docs-mcp.toml"]  # no temporary file left behind


def test_the_upstream_commands_as_an_administrator_types_them(tmp_path: Path) -> None:
    added = docs_mcp(
        "upstream", "add", "github", "--env", "TOKEN=s3cret", "--", "npx", "-y", "@mcp/github", cwd=tmp_path
    )
    assert added.returncode == 0, added.stderr
    assert docs_mcp("upstream", "add", "search", "--url", "http://127.0.0.1:8931/mcp", cwd=tmp_path).returncode == 0
    listed = docs_mcp("upstream", "list", cwd=tmp_path)
    assert listed.stdout.splitlines()[1:] == [
        "github              stdio      yes      npx -y @mcp/github  (env: TOKEN)",
        "search              http       yes      http://127.0.0.1:8931/mcp",
    ]
    assert "s3cret" not in listed.stdout + listed.stderr + added.stderr
    assert docs_mcp("upstream", "remove", "github", cwd=tmp_path).returncode == 0
    both = docs_mcp("upstream", "add", "x", "--url", "http://h", "--", "cmd", cwd=tmp_path)
    assert both.returncode == 2 and "not both" in both.stderr and "Traceback" not in both.stderr
    assert load_gateway_config(tmp_path / "docs-mcp.toml").upstreams == (
        UpstreamSpec("search", url="http://127.0.0.1:8931/mcp"),
    )


def test_the_gateway_ranks_in_every_mode_the_server_has(tmp_path: Path) -> None:
    """The gateway's list of modes is the server's (Mode): fusion too, which the gateway once refused."""
    path = tmp_path / "docs-mcp.toml"
    path.write_text('[gateway]\nmode = "fusion"\n\n[[upstream]]\nname = "a"\ncommand = "x"\n', encoding="utf-8")
    assert load_gateway_config(path).settings.mode == "fusion"
    path.write_text('[gateway]\nmode = "fuzzy"\n\n[[upstream]]\nname = "a"\ncommand = "x"\n', encoding="utf-8")
    with pytest.raises(GatewayConfigError) as caught:
        load_gateway_config(path)
    assert "gateway.mode = 'fuzzy': expected hybrid, fusion, bm25 or vector" in caught.value.message
