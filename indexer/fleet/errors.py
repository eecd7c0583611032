"""Errors of the fleet: the control plane (PostgreSQL), shared storage and verification of copies."""

from __future__ import annotations

from docs_mcp.indexer.errors import IndexerError


class FleetError(IndexerError):
    """Base of every fleet error."""


class ControlPlaneError(FleetError):
    """PostgreSQL cannot be reached or refused a statement."""


class StorageError(FleetError):
    """Shared storage cannot be read or written, or holds no such generation."""


class ChecksumError(FleetError):
    """A copy of a generation does not match its manifest (a file is missing, short, or altered)."""


class BuildLockedError(FleetError):
    """Another machine holds the fleet's build lock."""
