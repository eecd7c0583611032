"""Errors of the indexer, the index format, package registries and the fleet (see docs_mcp.errors for the tree)."""

from __future__ import annotations

from docs_mcp.errors import DocsMcpError


class IndexerError(DocsMcpError):
    """Base of every indexer error."""


class CorpusNotFoundError(IndexerError):
    """The docs folder does not exist, is not a folder, or holds no markdown."""


class ManifestError(IndexerError):
    """A .docs-mcp.json manifest or a front matter block is invalid."""


class CorpusProblemsError(IndexerError):
    """`--strict` was given and at least one input file had a problem."""


class IndexNotFoundError(IndexerError):
    """No index where one was expected."""


class IndexFormatError(IndexerError):
    """The index exists but is corrupt, or was written by an incompatible version."""


class IndexWriteError(IndexerError):
    """The index folder cannot be created or written (a file in the way, permissions, a read-only file system)."""


class IndexLockedError(IndexerError):
    """Another process holds the index for writing."""


class IndexChangedError(IndexerError):
    """Another writer swapped a generation in while a build was being planned from the previous one."""


class ExtensionLoadError(IndexerError):
    """A DuckDB extension package (fts) is missing or does not match the installed duckdb."""


class ModelLoadError(IndexerError):
    """The embedding model could not be found or loaded."""


class ModelMismatchError(IndexerError):
    """The index was built with a different embedding model than the one available."""


class LibraryError(IndexerError):
    """A library ID, library manifest block or library operation is invalid."""


# The fleet: the control plane (PostgreSQL), shared storage and verification of copies.


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


# Package registries (`docs-mcp sync` and `docs-mcp add pypi/...`), each with what to do next.


class PackageSpecError(IndexerError):
    """A package spec, a manifest entry or a version that cannot be read."""

    exit_code = 2


class PackageNotFoundError(IndexerError):
    """The registry has no such package, or no such version of it."""


class PackageFetchError(IndexerError):
    """The registry or an archive cannot be read (offline, refused, too large, not an archive)."""


class SyncIncompleteError(IndexerError):
    """``sync --strict``: some dependencies could not be indexed (the others were)."""
