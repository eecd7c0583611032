"""A full disk while writing an index: recognised in every form it takes, and said in one error with its fix.

The disk can fill at any step of a build, and each step reports it its own way: an OSError
with ENOSPC or EDQUOT (the staging file, a CURRENT swap), numpy's short write ("8192
requested and 0 written", no errno), shutil's Error listing failed copies (the hybrid
generation's copy), DuckDB's IOException or FATAL error ("No space left on device"). Every
one becomes an IndexWriteError that names the disk and what to free. The generation being
written is deleted (generation.py) and CURRENT was never replaced: the live index is untouched.
"""

from __future__ import annotations

import errno
import re
import shutil
from pathlib import Path

from docs_mcp.indexer.errors import IndexWriteError

FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
# The strerror texts of those errnos, and numpy's short write, as they appear inside other errors' messages.
_FULL_TEXT = re.compile(
    r"No space left on device|Disk quota exceeded|\[Errno (?:28|122)\]|\d+ requested and \d+ written", re.IGNORECASE
)


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (an OSError, a shutil.Error of failed copies, a DuckDB error) means the disk is full."""
    if isinstance(error, OSError) and error.errno in FULL_ERRNOS:
        return True
    return bool(_FULL_TEXT.search(str(error)))


def disk_full_error(index_dir: Path, live: str | None, *, went_live: bool = False) -> IndexWriteError:
    """The error a build that filled the disk of ``index_dir`` reports; ``live`` is the generation served now,
    ``went_live`` whether this build made it live (its full text) before the disk filled."""
    index_dir = Path(index_dir)
    if went_live:  # the CLI adds that full-text search of the new docs is live
        kept = "its vectors were not written"
    else:
        kept = f"the live index (generation {live}) is untouched" if live else "no index was left behind"
    try:
        free = (
            f"{shutil.disk_usage(index_dir if index_dir.exists() else index_dir.parent).free / 2**20:,.0f} MiB free now"
        )
    except OSError:
        free = "its free space unknown"
    size = _live_size(index_dir, live)
    beside = f"beside the live one, which takes {size / 2**20:,.1f} MiB" if size else "in full"
    return IndexWriteError(
        f"The disk holding {index_dir} is full ({free}): the new index could not be {'finished' if went_live else 'written'}; {kept}.",
        f"Free space on that disk (a build writes the new index {beside}), or pass --out a folder on another disk, "
        "then run the same command again.",
    )


def _live_size(index_dir: Path, live: str | None) -> int:
    if not live:
        return 0
    try:
        return sum(path.stat().st_size for path in (index_dir / live).rglob("*") if path.is_file())
    except OSError:
        return 0
