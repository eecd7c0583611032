"""docs-mcp.toml + DOCS_MCP_* + flags: precedence, parsing, and one clear error for bad values."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from docs_mcp.server.team.errors import ConfigError
from docs_mcp.server.team.server_settings import OPTIONS, example_toml, load_settings


@pytest.fixture(autouse=True)
def _no_local_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ./docs-mcp.toml is read when present: run from an empty folder.
    monkeypatch.chdir(tmp_path)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_is_set() -> None:
    settings = load_settings(environ={})
    assert settings.values == {option.key: option.default for option in OPTIONS}
    assert set(settings.sources.values()) == {"default"}
    assert settings.key_store == Path(".docs-mcp") / "keys.sqlite"


def test_flags_beat_env_beat_file_beat_defaults(tmp_path: Path) -> None:
    file = write(tmp_path / "team.toml", "[server]\nport = 4000\nhost = '0.0.0.0'\n[rate_limit]\nburst = 7\n")
    env = {"DOCS_MCP_PORT": "5000", "DOCS_MCP_HOST": "10.0.0.1"}

    settings = load_settings({"server.port": 6000, "server.host": None}, config_file=file, environ=env)

    assert (settings["server.port"], settings.sources["server.port"]) == (6000, "flag")
    assert (settings["server.host"], settings.sources["server.host"]) == ("10.0.0.1", "env")
    assert (settings["rate_limit.burst"], settings.sources["rate_limit.burst"]) == (7, f"file {file}")
    assert (settings["rate_limit.requests_per_minute"], settings.sources["rate_limit.requests_per_minute"]) == (
        60,
        "default",
    )


def test_local_file_and_config_env_are_found(tmp_path: Path) -> None:
    write(tmp_path / "docs-mcp.toml", "[server]\nport = 4001\n")
    assert load_settings(environ={})["server.port"] == 4001
    other = write(tmp_path / "other.toml", "[server]\nport = 4002\n")
    assert load_settings(environ={"DOCS_MCP_CONFIG": str(other)})["server.port"] == 4002


def test_env_lists_are_comma_separated_and_empty_env_means_unset() -> None:
    settings = load_settings(
        environ={"DOCS_MCP_CORS_ORIGINS": "https://a.example, https://b.example", "DOCS_MCP_PORT": ""}
    )
    assert settings["http.cors_origins"] == ("https://a.example", "https://b.example")
    assert settings.sources["server.port"] == "default"


def test_key_store_follows_the_index_unless_set() -> None:
    assert load_settings({"server.index": "/srv/docs"}, environ={}).key_store == Path("/srv/docs/keys.sqlite")
    settings = load_settings({"server.index": "/srv/docs"}, environ={"DOCS_MCP_KEY_STORE": "/etc/docs-mcp/keys.sqlite"})
    assert settings.key_store == Path("/etc/docs-mcp/keys.sqlite")


def test_every_invalid_value_is_reported_in_one_error(tmp_path: Path) -> None:
    file = write(tmp_path / "team.toml", "[rate_limit]\nburst = 0\n[logging]\nformat = 'xml'\n")
    with pytest.raises(ConfigError) as caught:
        load_settings({"server.port": 70000}, config_file=file, environ={"DOCS_MCP_RATE_LIMIT": "fast"})
    message = caught.value.message
    assert "rate_limit.burst = 0" in message and "expected an integer from 1 to 1000000" in message
    assert "logging.format = 'xml'" in message and "expected one of json, pretty" in message
    assert "$DOCS_MCP_RATE_LIMIT = 'fast' (env)" in message
    assert "server.port = 70000 (flag)" in message
    assert "docs-mcp config example" in caught.value.hint
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[server]\nprot = 1\n", "unknown keys: server.prot"),
        ("[server\n", "cannot be read"),
        ("[server]\nport = true\n", "expected an integer"),
        ("[http]\nallowed_hosts = [1]\n", "expected a list of strings"),
        ("transport = 'http'\n", "unknown keys: transport"),
    ],
)
def test_bad_files_are_one_clear_error(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        load_settings(config_file=write(tmp_path / "team.toml", text), environ={})


def test_a_named_file_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(config_file=tmp_path / "missing.toml", environ={})


def test_the_example_documents_every_key_and_parses_back_to_the_defaults(tmp_path: Path) -> None:
    text = example_toml()
    for option in OPTIONS:
        assert option.env in text and option.key.split(".")[1] in text
    document = tomllib.loads(text)
    assert sum(len(table) for table in document.values()) == len(OPTIONS)
    settings = load_settings(config_file=write(tmp_path / "example.toml", text), environ={})
    assert settings.values == {option.key: option.default for option in OPTIONS}


def test_the_example_matches_its_snapshot(snapshot) -> None:  # type: ignore[no-untyped-def]
    assert example_toml() == snapshot
