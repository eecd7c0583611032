"""Writing small corpora for tests: one helper shared by every area's tests (tests/ is on sys.path)."""

from __future__ import annotations

from pathlib import Path


def write_corpus(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text) under ``root`` and return ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
