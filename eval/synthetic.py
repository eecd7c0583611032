"""Synthetic markdown corpora of a given number of chunks, reproducible from a seed, for benchmarks.

Words come from a seeded pseudo-word vocabulary drawn with a Zipf-like skew, so term
frequencies look like prose; sections carry identifiers (CamelCase classes, snake_case
functions, ``...Error`` names) and some code blocks; SDK folders carry a ``language``
taxonomy through manifests, so filtered searches are exercised too.  Every file is
chunked at h2, so a file with ``s`` sections yields ``s + 1`` chunks (with its preamble).
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docs_mcp.indexer.serving.arrays import Vectors

LANGUAGES = ("go", "python", "typescript")
_SYLLABLES = tuple(c + v for c in "bcdfghklmnprstvz" for v in ("a", "e", "i", "o", "u", "ai", "ou"))
_VOCABULARY = 6000
_SECTIONS = (4, 12)  # sections per file, inclusive
_VECTOR_BLOCK = 65_536
_DRAW_BLOCK = 1 << 20  # words drawn at once
_NOISE_BANK = 1024  # noise vectors SyntheticQueries draws from
# The noise bank's own random stream: drawn from the fill's seed alone, its "noise" was the fill's folder and
# page topics, so every query also pointed at a second page and a folder far away (recall@50 of the
# calibrated approximate index measured 0.85 on such queries, 0.998 on independent noise).
_QUERY_STREAM = 1


@dataclass(frozen=True)
class SyntheticCorpus:
    """Where a corpus was written, how many files and chunks it has, and queries to time on it."""

    root: Path
    files: int
    chunks: int
    queries: tuple[str, ...]


class _Words:
    """A seeded vocabulary with skewed draws, plus identifiers built from it."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        words: set[str] = set()
        while len(words) < _VOCABULARY:
            words.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        rng.shuffle(self.words)
        # Zipf-like, flattened head.  Words are drawn by numpy in blocks and handed out in order:
        # one Python-level draw per word made a million chunks take minutes to write.
        weights = 1.0 / (np.arange(len(self.words)) + 10.0)
        self._draws = np.random.default_rng(rng.getrandbits(64))
        self._p = weights / weights.sum()
        self._drawn: list[str] = []
        self._next = 0

    def some(self, n: int) -> list[str]:
        if self._next + n > len(self._drawn):
            self._drawn = [self.words[i] for i in self._draws.choice(len(self.words), size=_DRAW_BLOCK, p=self._p)]
            self._next = 0
        self._next += n
        return self._drawn[self._next - n : self._next]

    def identifier(self) -> str:
        parts = self.some(self.rng.randint(2, 3))
        kind = self.rng.random()
        if kind < 0.4:
            return "".join(p.title() for p in parts)
        if kind < 0.7:
            return "_".join(parts)
        return "".join(p.title() for p in parts[:2]) + "Error"

    def sentence(self) -> str:
        words = self.some(self.rng.randint(8, 16))
        if self.rng.random() < 0.35:
            words.insert(self.rng.randrange(len(words)), f"`{self.identifier()}`")
        return _capitalized(" ".join(words)) + "."


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _section(words: _Words, title: str) -> str:
    paragraphs = [
        " ".join(words.sentence() for _ in range(words.rng.randint(2, 4))) for _ in range(words.rng.randint(1, 2))
    ]
    if words.rng.random() < 0.3:
        name = words.identifier()
        paragraphs.append(f"```python\nresult = client.{name}({words.some(1)[0]}=True)\n```")
    return f"## {title}\n\n" + "\n\n".join(paragraphs) + "\n"


def _file(words: _Words, sections: int) -> tuple[str, list[str]]:
    """A markdown page and the query-like phrases drawn from it."""
    title = " ".join(words.some(2)).title()
    parts = [f"# {title}\n\n{words.sentence()} {words.sentence()}\n"]
    phrases = []
    for _ in range(sections):
        heading = _capitalized(" ".join(words.some(words.rng.randint(2, 4))))
        if words.rng.random() < 0.25:
            heading += f" with `{words.identifier()}`"
        parts.append(_section(words, heading))
        phrases.append(heading.replace("`", ""))
    return "\n".join(parts), phrases


def _layout(chunks: int, rng: random.Random) -> Iterator[int]:
    """Section counts per file, summing (with one preamble chunk per file) to exactly ``chunks``."""
    remaining = chunks
    while remaining > 0:
        if remaining <= _SECTIONS[1] + 1:
            yield remaining - 1
            return
        sections = rng.randint(*_SECTIONS)
        yield sections
        remaining -= sections + 1


def generate_corpus(root: Path, chunks: int, seed: int = 0, queries: int = 200) -> SyntheticCorpus:
    """Write a corpus of exactly ``chunks`` chunks (at least 1) under ``root``; same seed, same bytes.

    Raises:
        ValueError: ``chunks`` is below 1.
        OSError: ``root`` cannot be written.
    """
    if chunks < 1:
        raise ValueError(f"a synthetic corpus needs at least 1 chunk, got {chunks}")
    rng = random.Random(f"docs-mcp-synthetic-{seed}")
    words = _Words(rng)
    root.mkdir(parents=True, exist_ok=True)
    (root / ".docs-mcp.json").write_text(
        json.dumps({"version": "1", "strategy": {"chunk_by": "h2"}, "metadata": {"scope": "guide"}})
    )
    for language in LANGUAGES:
        manifest = {"version": "1", "strategy": {"chunk_by": "h2"}, "metadata": {"scope": "sdk", "language": language}}
        (root / "sdk" / language).mkdir(parents=True, exist_ok=True)
        (root / "sdk" / language / ".docs-mcp.json").write_text(json.dumps(manifest))
    phrases: list[str] = []
    files = 0
    for files, sections in enumerate(_layout(chunks, rng), 1):
        folder = f"sdk/{rng.choice(LANGUAGES)}" if rng.random() < 0.4 else f"guides/{rng.choice(words.words[:40])}"
        text, found = _file(words, sections)
        path = root / folder / f"page-{files:06d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        phrases.extend(found)
    return SyntheticCorpus(root, files, chunks, _queries(rng, words, phrases, queries))


def _queries(rng: random.Random, words: _Words, phrases: list[str], n: int) -> tuple[str, ...]:
    """Half headings as written, half 2-4 vocabulary words (the paraphrase-like case)."""
    picked = []
    for i in range(n):
        if i % 2 == 0 and phrases:
            picked.append(rng.choice(phrases))
        else:
            picked.append(" ".join(words.some(rng.randint(2, 4))))
    return tuple(picked)


def fill_random_vectors(index_dir: Path, seed: int = 0) -> int:
    """Give every chunk of a full-text-only index one random unit vector, as if the default model had.

    For benchmarks only: the vectors go straight into the serving arrays (not the DuckDB
    vectors table) under the default model's identity, so the storage and search paths
    are measured at full size without the hour the model would take.  Real embeddings
    cluster by topic, so each chunk's vector is the sum of three random unit vectors: its
    folder's, its page's and its own (cosine 2/3 between chunks of a page, 1/3 within a
    folder, ~0 across folders).  A generation past vector_index.ANN_MIN_WINDOWS gets its
    approximate index too.  Returns the count.

    Raises:
        IndexNotFoundError, IndexFormatError, IndexLockedError: from the indexer.
        ModelLoadError: the default model (whose identity is borrowed) cannot be loaded.
    """
    import orjson

    from docs_mcp.indexer.index_file import connect, current_generation, flush
    from docs_mcp.indexer.models.loading import load_embedder
    from docs_mcp.indexer.schema import CHUNKS_TABLE, DB_FILE, META_TABLE
    from docs_mcp.indexer.serving.writer import write_vector_arrays

    identity = load_embedder("default").identity
    folder = index_dir / current_generation(index_dir)
    conn = connect(folder / DB_FILE, read_only=False)
    try:
        paths = conn.execute(f"SELECT filepath FROM {CHUNKS_TABLE} ORDER BY id").fetchnumpy()["filepath"]
        _, file_codes = np.unique(paths, return_inverse=True)
        _, folder_codes = np.unique([path.rsplit("/", 1)[0] for path in paths], return_inverse=True)
        vectors = _topic_vectors(folder_codes, file_codes, identity.dimensions, np.random.default_rng(seed))
        rows = np.arange(len(paths), dtype=np.int64)
        write_vector_arrays(folder, Vectors(vectors, rows, rows))
        conn.execute(
            f"UPDATE {META_TABLE} SET value = ? WHERE key = 'model'", [orjson.dumps(identity.__dict__).decode()]
        )
        conn.execute("CHECKPOINT")
    finally:
        conn.close()
    # As a build flushes a generation before it goes live: otherwise the disk still writes the vectors
    # back (3 GB at 1M) while the next bench step times its searches.
    flush(folder)
    return len(paths)


def _topic_vectors(
    folder_codes: np.ndarray, file_codes: np.ndarray, dimensions: int, rng: np.random.Generator
) -> np.ndarray:
    """Unit(folder topic + page topic + own noise) per chunk, in blocks so peak memory stays near the result's."""
    folders = _unit(rng.standard_normal((int(folder_codes.max()) + 1, dimensions), dtype=np.float32))
    pages = _unit(rng.standard_normal((int(file_codes.max()) + 1, dimensions), dtype=np.float32))
    vectors = np.empty((len(file_codes), dimensions), dtype=np.float32)
    for start in range(0, len(file_codes), _VECTOR_BLOCK):
        block = slice(start, start + _VECTOR_BLOCK)
        noise = _unit(rng.standard_normal((len(file_codes[block]), dimensions), dtype=np.float32))
        vectors[block] = _unit(folders[folder_codes[block]] + pages[file_codes[block]] + noise)
    return vectors


class SyntheticQueries:
    """Query vectors for an index filled by ``fill_random_vectors``, without a model.

    A query stands for one chunk (picked by a hash of its text, so the same query gets
    the same vector): that chunk's vector plus as much noise, like a question about it.
    The noise comes from a bank drawn once (independent of the corpus' topic vectors) and the chunk's vector is read from the file,
    not through a mapping (which would make the process's RSS grow by a page-cache folio
    per query), so the benchmark times and measures the search, not this stand-in.
    """

    def __init__(self, serving: Path, seed: int = 0) -> None:
        """``serving``: the generation's serving-array folder (vector_starts.npy, and vectors.npy or, past
        ANN_MIN_WINDOWS, the approximate index's ivf_vectors.npy with each window's row in it)."""
        chunk_ordered = (serving / "vectors.npy").exists()
        self._file = serving / ("vectors.npy" if chunk_ordered else "ivf_vectors.npy")
        mapped = np.load(self._file, mmap_mode="r")
        self._offset, self._dimensions = mapped.offset, mapped.shape[1]
        del mapped
        self._starts = np.load(serving / "vector_starts.npy")
        self._rows = None if chunk_ordered else np.load(serving / "ivf_window_rows.npy")
        self._noise = _unit(
            np.random.default_rng([seed, _QUERY_STREAM]).standard_normal(
                (_NOISE_BANK, self._dimensions), dtype=np.float32
            )
        )

    def embed_query(self, text: str) -> np.ndarray:
        digest = zlib.crc32(text.encode())
        window = int(self._starts[digest % len(self._starts)])
        row = window if self._rows is None else int(self._rows[window])
        vector = np.fromfile(
            self._file, dtype=np.float32, count=self._dimensions, offset=self._offset + 4 * self._dimensions * row
        )
        return _unit(vector + self._noise[digest // len(self._starts) % _NOISE_BANK])[0]


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.atleast_2d(vectors)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
