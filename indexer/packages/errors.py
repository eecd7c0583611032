"""Errors of package registries, each with what to do next.

    IndexerError
    ├── PackageSpecError     a package spec, manifest entry or version that cannot be read
    ├── PackageNotFoundError the registry has no such package, or not that version
    ├── PackageFetchError    the registry or an archive cannot be read (offline, refused, too large)
    └── SyncIncompleteError  `sync --strict`: some dependencies have no documentation in the index
"""

from __future__ import annotations

from docs_mcp.indexer.errors import IndexerError


class PackageSpecError(IndexerError):
    """A package spec, a manifest entry or a version that cannot be read."""

    exit_code = 2


class PackageNotFoundError(IndexerError):
    """The registry has no such package, or no such version of it."""


class PackageFetchError(IndexerError):
    """The registry or an archive cannot be read (offline, refused, too large, not an archive)."""


class SyncIncompleteError(IndexerError):
    """``sync --strict``: some dependencies could not be indexed (the others were)."""
