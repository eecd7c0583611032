"""The files `docs-mcp setup` reads and writes: inside their root folder, bounded, replaced atomically, one run at a time.

- Each file has a root: the project folder for a project's files, the home folder (or the folder a
  client's variable names, such as ``CODEX_HOME``) for a user's.  A file is read or written only where
  it really lies inside its root: a link that leads out (a cloned repository's ``CLAUDE.md ->
  ../.bashrc``) is refused before anything is read; a link inside (``CLAUDE.md -> AGENTS.md``) is
  followed, and the file it names is the one edited.
- Only a regular file of at most MAX_BYTES is read (a FIFO would block, a huge file would take minutes).
- A write goes to a temporary file beside the real one, renamed over it: a reader sees the old file or
  the new one, never half of one.  The file keeps its permissions; a new one gets the umask's.
- A run holds an exclusive lock on each root folder from its first read to its last write, so runs at
  the same time take turns and none loses what another wrote.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from docs_mcp.server.errors import ConfigFileError

MAX_BYTES = 32 * 1024 * 1024  # Claude Code's ~/.claude.json grows with its history: a few MB is common


def root_of(path: Path, roots: Iterable[Path]) -> Path:
    """The first of ``roots`` that holds ``path`` (by name, before any link is followed), else its folder."""
    return next((root for root in roots if path.is_relative_to(root)), path.parent)


def real_path(path: Path, root: Path) -> Path:
    """Where ``path`` really is, links followed.

    Raises:
        ConfigFileError: a link on the way leads out of ``root``.
    """
    real = path.resolve()
    if not real.is_relative_to(root.resolve()):
        raise ConfigFileError(
            str(path), f"leads out of {root} through a link (to {real})",
            f"`docs-mcp setup` edits files only inside {root} and follows no link out of it: replace the link with a "
            "file of its own (or remove it), then run setup again; nothing was written.",
        )  # fmt: skip
    return real


def read(path: Path, root: Path) -> str | None:
    """The text of ``path``, or None when there is no file.

    Raises:
        ConfigFileError: it leads out of ``root``, is not a regular file, is too large, cannot be read or is not UTF-8.
    """
    real = real_path(path, root)
    try:
        info = real.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ConfigFileError(
                str(path),
                "is not a regular file",
                "Move it aside (setup edits only regular files) and run setup again; nothing was written.",
            )
        if info.st_size > MAX_BYTES:
            raise ConfigFileError(
                str(path), f"is larger than {MAX_BYTES // 2**20} MiB, more than a client's config holds",
                "Check the file (or move it aside) and run setup again, or write the entry by hand; nothing was written.",
            )  # fmt: skip
        with real.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigFileError(
            str(path), f"cannot be read ({error.strerror or error})", "Check its permissions and run setup again."
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigFileError(
            str(path), "is not UTF-8 text", "Save it as UTF-8 and run setup again; nothing was written."
        ) from None


def write(path: Path, root: Path, text: str) -> None:
    """Replace the file ``path`` names (links inside ``root`` followed) with ``text``, atomically, keeping its mode."""
    real = real_path(path, root)
    real.parent.mkdir(parents=True, exist_ok=True)
    mode = real.stat().st_mode & 0o7777 if real.exists() else _new_file_mode()
    handle, temporary = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode("utf-8"))
        os.chmod(temporary, mode)
        os.replace(temporary, real)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def delete(path: Path, root: Path) -> None:
    """Delete the file ``path`` names (a link to it stays, as it was before the file was made), and the folders
    left empty, up to ``root``."""
    real, top = real_path(path, root), root.resolve()
    real.unlink()
    folder = real.parent
    while folder != top and folder.is_relative_to(top):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


@contextmanager
def locked(folders: Iterable[Path]) -> Iterator[None]:
    """Hold an exclusive lock on each existing folder (in one order, so two runs never wait on each other)."""
    with ExitStack() as stack:
        for folder in sorted({folder.resolve() for folder in folders if folder.is_dir()}):
            descriptor = os.open(folder, os.O_RDONLY)
            stack.callback(os.close, descriptor)
            _lock(descriptor)
        yield


def _lock(descriptor: int) -> None:
    """An exclusive flock, released when the descriptor closes or the process dies.

    Best effort: where the platform (Windows) or the file system (NFS without locks) has none, runs are not
    serialised, as before locking existed, rather than refused.
    """
    try:
        import fcntl
    except ImportError:
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
    except OSError:
        return


def _new_file_mode() -> int:
    """The mode a new file gets from the umask (mkstemp makes its files private)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask
