"""Read a whole docs folder into chunks: discovery, manifests, front matter, chunking, taxonomy.

This is the pure half of indexing; nothing here writes. One bad file never stops a scan:
it becomes a :class:`Problem` and the scan goes on.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from docs_mcp.indexer.chunking import Page, chunk_page
from docs_mcp.indexer.discover import MARKDOWN_SUFFIXES, discover
from docs_mcp.indexer.errors import CorpusNotFoundError, ManifestError
from docs_mcp.indexer.frontmatter import read_front_matter
from docs_mcp.indexer.manifest import KeyConfig, Manifest, load_manifest, resolve
from docs_mcp.indexer.records import Chunk, CorpusScan, Problem
from docs_mcp.indexer.taxonomy import discover_taxonomy, load_corpus_metadata, merge_configs

METADATA_NAME = "metadata.json"


def scan_corpus(root: Path, *, metadata_file: Path | None = None) -> CorpusScan:
    """Chunk every markdown page under ``root`` and collect titles, taxonomy and problems.

    ``metadata_file`` (corpus description and taxonomy descriptions) defaults to
    ``root/metadata.json``, else ``root/../metadata.json``, when present.

    Raises:
        CorpusNotFoundError: ``root`` is missing, not a folder, or holds no markdown.
        ManifestError: ``metadata_file`` was given but does not exist.
    """
    root = Path(root)
    found = discover(root)
    problems = list(found.problems)
    if not found.pages:
        raise CorpusNotFoundError(
            f"no markdown files ({', '.join('*' + s for s in MARKDOWN_SUFFIXES)}) under {root}.",
            "Point docs-mcp at the folder that holds your documentation.",
        )
    manifests = _load_manifests(found.manifests, root, problems)
    description, configs = _corpus_metadata(root, metadata_file, problems)
    chunks: list[Chunk] = []
    files: dict[str, str] = {}
    skipped: list[str] = []
    for rel, path in found.pages.items():
        page_chunks = _scan_page(rel, path, _nearest(manifests, rel), problems)
        if page_chunks:
            chunks.extend(page_chunks)
            files[rel] = page_chunks[0].title
        else:
            skipped.append(rel)
    configs = merge_configs(configs, (m.taxonomy for m in manifests.values()))
    return CorpusScan(
        root=str(root),
        chunks=tuple(chunks),
        files=files,
        taxonomy=discover_taxonomy(chunks, configs),
        corpus_description=description or f"{root.resolve().name} documentation",
        problems=tuple(problems),
        skipped=tuple(skipped),
    )


def _scan_page(rel: str, path: Path, manifest: Manifest | None, problems: list[Problem]) -> tuple[Chunk, ...]:
    text = _read_text(rel, path, problems)
    if text is None:
        return ()
    if not text.strip():
        problems.append(Problem(rel, "file is empty; skipped it. Add content or delete the file.", "warning"))
        return ()
    front = read_front_matter(text)
    problems.extend(Problem(rel, warning, "warning") for warning in front.warnings)
    strategy, metadata = resolve(manifest, rel)
    if front.chunk_by_hint:
        strategy = replace(strategy, chunk_by=front.chunk_by_hint)
    strategy = front.strategy or strategy
    metadata.update(front.metadata)
    # No chunk from a page with front matter only (a site generator's redirect or section stub): it is
    # skipped without a problem, so --strict accepts such sites, and the build summary counts it.
    return chunk_page(Page(rel, strategy, metadata, front.title), front.body)


def _read_text(rel: str, path: Path, problems: list[Problem]) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(rel, f"cannot read the file ({exc.strerror}); skipped it. Check its permissions."))
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(
            Problem(rel, f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); skipped it. Re-save it as UTF-8.")
        )
        return None
    # Offsets into the page (chunk content) are taken after line ends are normalised, as mistune needs.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _load_manifests(paths: dict[str, Path], root: Path, problems: list[Problem]) -> dict[str, Manifest]:
    manifests = {}
    for folder, path in sorted(paths.items()):
        try:
            manifests[folder] = load_manifest(path, folder)
        except ManifestError as exc:
            rel = path.relative_to(root).as_posix()
            # Its folder falls back to the next manifest up, so its files still get indexed.
            problems.append(Problem(rel, f"{exc.message} Ignored this manifest. {exc.hint}".strip()))
    return manifests


def _nearest(manifests: dict[str, Manifest], rel: str) -> Manifest | None:
    folder = rel.rpartition("/")[0]
    while True:
        if folder in manifests:
            return manifests[folder]
        if not folder:
            return None
        folder = folder.rpartition("/")[0]


def _corpus_metadata(root: Path, given: Path | None, problems: list[Problem]) -> tuple[str, dict[str, KeyConfig]]:
    if given is not None and not given.is_file():
        raise ManifestError(f"metadata file {given} does not exist.", "Pass an existing metadata.json, or leave the option out.")
    path = given or next((p for p in (root / METADATA_NAME, root.parent / METADATA_NAME) if p.is_file()), None)
    if path is None:
        return "", {}
    try:
        return load_corpus_metadata(path)
    except ManifestError as exc:
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        problems.append(Problem(shown, f"{exc.message} Ignored it. {exc.hint}".strip()))
        return "", {}
