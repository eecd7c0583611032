"""Team mode on a fleet: which key store and which replica agent the fleet.* settings ask for."""

from __future__ import annotations

from pathlib import Path

from docs_mcp.server.fleet.replica import FleetSettings, ReplicaAgent
from docs_mcp.server.team.errors import ConfigError
from docs_mcp.server.team.keys import KeyReader, KeyVerifier
from docs_mcp.server.team.server_settings import TeamSettings


def fleet_settings(settings: TeamSettings) -> FleetSettings | None:
    """The fleet.* settings, or None on one machine (no fleet.database_url).

    Raises:
        ConfigError: fleet.database_url is set without fleet.storage.
    """
    url = settings["fleet.database_url"]
    if not url:
        return None
    if not settings["fleet.storage"]:
        raise ConfigError(
            "fleet.database_url is set but fleet.storage is empty: replicas would have nowhere to pull generations from.",
            "Set fleet.storage (DOCS_MCP_FLEET_STORAGE) to the shared folder `docs-mcp publish` copies to.",
        )
    return FleetSettings(
        url,
        Path(settings["fleet.storage"]).expanduser(),
        settings["fleet.replica"],
        float(settings["fleet.heartbeat"]),
        float(settings["fleet.warm_timeout"]),
        float(settings["fleet.cursor_lifetime"]),
    )


def replica_agent(settings: TeamSettings) -> ReplicaAgent | None:
    """The agent that keeps this replica in step with the fleet, or None on one machine."""
    fleet = fleet_settings(settings)
    return ReplicaAgent(fleet, settings.index) if fleet else None


def open_key_reader(settings: TeamSettings) -> KeyReader:
    """The server's key store: PostgreSQL (keys.store or fleet.database_url), else the SQLite file.

    Raises:
        KeyStoreError: PostgreSQL does not answer (checked at start, not on the first request).
    """
    if settings.key_store_url:
        from docs_mcp.server.team.postgres_keys import PostgresKeyVerifier

        return PostgresKeyVerifier(settings.key_store_url)
    return KeyVerifier(settings.key_store)
