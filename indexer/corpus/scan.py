"""Read a whole docs folder into chunks: discovery, manifests, formats, front matter, chunking, taxonomy.

This is the pure half of indexing; nothing here writes. One bad file never stops a scan:
it becomes a :class:`Problem` and the scan goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePosixPath

from docs_mcp.indexer.corpus.charsets import declared_encoding, html_text
from docs_mcp.indexer.corpus.chunking import Page, chunk_page
from docs_mcp.indexer.corpus.code_includes import expand_code_includes
from docs_mcp.indexer.corpus.discover import METADATA_NAME, Found, discover
from docs_mcp.indexer.corpus.file_rules import FileRules, Judge
from docs_mcp.indexer.corpus.formats import CONVERTERS, HTML, PAGE_SUFFIXES, FormatError, convert, is_markdown
from docs_mcp.indexer.corpus.frontmatter import read_front_matter
from docs_mcp.indexer.corpus.manifest import MANIFEST_NAME, KeyConfig, Manifest, load_manifest, resolve
from docs_mcp.indexer.corpus.readable_name import documentation_of, readable_name
from docs_mcp.indexer.corpus.skip_report import describe_skipped
from docs_mcp.indexer.corpus.taxonomy import discover_taxonomy, load_corpus_metadata, merge_configs
from docs_mcp.indexer.errors import CorpusNotFoundError, ManifestError
from docs_mcp.indexer.records import Chunk, CorpusScan, Problem

__all__ = ["METADATA_NAME", "scan_corpus"]


def scan_corpus(
    root: Path,
    *,
    metadata_file: Path | None = None,
    rules: FileRules | None = None,
    on_page: Callable[[int, int], None] | None = None,
) -> CorpusScan:
    """Chunk every documentation page under ``root`` and collect titles, taxonomy, problems and what was skipped.

    ``metadata_file`` (corpus description and taxonomy descriptions) defaults to
    ``root/metadata.json``, else ``root/../metadata.json``, when present. ``rules`` (include and
    exclude globs, .gitignore, default skips) add to the root manifest's globs. ``on_page`` gets the pages
    read and in all after each page (the Python documentation's 527 HTML pages take two minutes of CPU).

    Raises:
        CorpusNotFoundError: ``root`` is missing, not a folder, or holds no documentation page.
        ManifestError: ``metadata_file`` was given but does not exist.
    """
    root = Path(root)
    found = discover(root, (rules or FileRules()).merged(*_root_globs(root)))
    problems = list(found.problems)
    manifests = _load_manifests(found.manifests, root, problems)
    found = _nested_globs(found, manifests)
    if not found.pages:
        raise CorpusNotFoundError(
            f"no documentation pages ({', '.join('*' + s for s in PAGE_SUFFIXES)}) under {root}; "
            f"{describe_skipped(found.skipped, found.other_files) or 'the folder is empty'}.",
            "Point docs-mcp at the folder that holds your documentation, or change --include/--exclude.",
        )
    description, configs = _corpus_metadata(root, metadata_file, problems)
    chunks: list[Chunk] = []
    files: dict[str, str] = {}
    skipped: list[str] = []
    for number, (rel, path) in enumerate(found.pages.items(), 1):
        page_chunks = _scan_page(rel, path, root, _nearest(manifests, rel), problems)
        if on_page:
            on_page(number, len(found.pages))
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
        corpus_description=description or documentation_of(readable_name(root)),
        problems=tuple(problems),
        skipped=tuple(skipped),
        skipped_files=found.skipped,
        other_files=found.other_files,
    )


def _scan_page(
    rel: str, path: Path, root: Path, manifest: Manifest | None, problems: list[Problem]
) -> tuple[Chunk, ...]:
    text = _read_text(rel, path, problems)
    if text is None:
        return ()
    if not text.strip():
        problems.append(Problem(rel, "file is empty; skipped it. Add content or delete the file.", "warning"))
        return ()
    if not is_markdown(rel):
        return _scan_converted(rel, path, root, text, manifest, problems)
    front = read_front_matter(text)
    problems.extend(Problem(rel, warning, "warning") for warning in front.warnings)
    strategy, metadata = resolve(manifest, rel)
    if front.chunk_by_hint:
        strategy = replace(strategy, chunk_by=front.chunk_by_hint)
    strategy = front.strategy or strategy
    metadata.update(front.metadata)
    # No chunk from a page with front matter only (a site generator's redirect or section stub): it is
    # skipped without a problem, so --strict accepts such sites, and the build summary counts it.
    return chunk_page(Page(rel, strategy, metadata, front.title), expand_code_includes(front.body, path, root))


def _scan_converted(
    rel: str, path: Path, root: Path, text: str, manifest: Manifest | None, problems: list[Problem]
) -> tuple[Chunk, ...]:
    """A reStructuredText, HTML or notebook page: converted to markdown, then chunked as markdown is."""
    try:
        converted = convert(rel, path, root, text)
    except FormatError as error:
        problems.append(Problem(rel, f"{error}; skipped it. Fix the file or exclude it (--exclude)."))
        return ()
    problems.extend(Problem(rel, warning, "warning") for warning in converted.warnings)
    strategy, metadata = resolve(manifest, rel)
    # A page with no text (an HTML redirect stub, an empty notebook) gives no chunk: counted as skipped.
    return chunk_page(Page(rel, strategy, metadata, converted.title), converted.markdown)


def _read_text(rel: str, path: Path, problems: list[Problem]) -> str | None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        problems.append(Problem(rel, f"cannot read the file ({exc.strerror}); skipped it. Check its permissions."))
        return None
    html = CONVERTERS.get(PurePosixPath(rel).suffix.lower()) is HTML
    try:
        # HTML may say its encoding (a byte order mark, <meta charset>, an XML declaration); other formats are UTF-8.
        text = html_text(data) if html and declared_encoding(data) else data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where = f"byte {exc.object[exc.start]:#04x} at offset {exc.start}"
        fix = (
            'Re-save it as UTF-8, or declare its encoding (<meta charset="windows-1252">).'
            if html
            else "Re-save it as UTF-8."
        )
        problems.append(
            Problem(rel, f"not UTF-8 text ({where}){' and no charset declared' if html else ''}; skipped it. {fix}")
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


def _root_globs(root: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The root manifest's (include, exclude) globs, read before the walk: they may open a skipped folder.

    A manifest that does not load gives none; the scan reports its problem.
    """
    path = root / MANIFEST_NAME
    if not path.is_file():
        return (), ()
    try:
        manifest = load_manifest(path, "")
    except ManifestError:
        return (), ()
    return manifest.include, manifest.exclude


def _nested_globs(found: Found, manifests: dict[str, Manifest]) -> Found:
    """``found`` less the pages a manifest below the root excludes (its globs are relative to its folder)."""
    nested = {
        folder: manifest for folder, manifest in manifests.items() if folder and (manifest.include or manifest.exclude)
    }
    if not nested:
        return found
    skipped = dict(found.skipped)
    pages = {}
    for rel, path in found.pages.items():
        manifest = _nearest(nested, rel)
        reason = None
        if manifest is not None:
            judge = Judge(Path(), FileRules(manifest.include, manifest.exclude, gitignore=False, skip_defaults=False))
            reason = judge.file(rel[len(manifest.folder) + 1 :])
        if reason:
            skipped[reason] = skipped.get(reason, 0) + 1
        else:
            pages[rel] = path
    return replace(found, pages=pages, skipped=dict(sorted(skipped.items())))


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
        raise ManifestError(
            f"metadata file {given} does not exist.", "Pass an existing metadata.json, or leave the option out."
        )
    path = given or next((p for p in (root / METADATA_NAME, root.parent / METADATA_NAME) if p.is_file()), None)
    if path is None:
        return "", {}
    try:
        return load_corpus_metadata(path)
    except ManifestError as exc:
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        problems.append(Problem(shown, f"{exc.message} Ignored it. {exc.hint}".strip()))
        return "", {}
