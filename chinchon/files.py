"""The program's own files: written whole or not at all, read within limits, regular files only.

A report, a save or a model is a regular file. A FIFO, a device or a
directory at its path is refused, never read without end nor replaced: as
root, writing a report to ``/dev/null`` would otherwise replace the device.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import time
from pathlib import Path

from chinchon.i18n import _

__all__ = ["MOST_BYTES", "STALE_SECONDS", "read_text", "sync_folder", "write_temporary", "write_whole"]

MOST_BYTES = 64 * 1024 * 1024
"""The largest file the program reads (64 MiB): a long match's record is well under a megabyte."""

STALE_SECONDS = 600.0
"""A temporary file this old (ten minutes) was left by a process that died: the next write removes it."""


def _not_regular(path: Path) -> OSError:
    return OSError(errno.EINVAL, _("not a regular file"), str(path))


def read_text(path: str | Path, most: int | None = None) -> str:
    """The text (UTF-8) of a regular file of at most ``most`` bytes (default :data:`MOST_BYTES`).

    Raises:
        OSError: the file cannot be read, is not a regular file (a FIFO is not waited on), or is larger.
        UnicodeDecodeError: the file is not UTF-8.
    """
    # O_NONBLOCK: opening a FIFO to read would otherwise wait for a writer.
    most = MOST_BYTES if most is None else most
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise _not_regular(Path(path))
        data = file.read(most + 1)
    if len(data) > most:
        raise OSError(errno.EFBIG, _("larger than {most} MiB").format(most=most // (1024 * 1024) or 1), str(path))
    return data.decode("utf-8")


def _target(path: str | Path) -> Path:
    """The file a write to ``path`` replaces (a symbolic link's target).

    Raises:
        OSError: the file is there but read-only, or not a regular file.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        raise _not_regular(target)
    if not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(target))
    return target


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of ``target`` that a killed process left (older than :data:`STALE_SECONDS`)."""
    limit = time.time() - STALE_SECONDS
    for left in target.parent.glob(f".{target.name}.*.tmp"):
        try:
            if left.lstat().st_mtime < limit:
                left.unlink()
        except OSError:
            pass  # gone already, or not ours to remove: the write goes on


def write_temporary(path: str | Path, text: str) -> tuple[Path, Path]:
    """Write ``text`` to a new temporary file beside ``path``, on the disk (fsync): ``(temporary, target)``.

    The caller moves it over the target with ``os.replace`` (or removes it). The
    temporary file gets the target's permissions, or the umask's for a new file.

    Raises:
        OSError: the file cannot be written (a read-only file, or not a regular file); no temporary is left.
    """
    target = _target(path)
    _remove_stale(target)
    temporary = target.parent / f".{target.name}.{secrets.token_hex(8)}.tmp"
    # os.open applies the umask, as open() would; mkstemp would make the file private (0600).
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as output:
            output.write(text)
            output.flush()
            os.fsync(output.fileno())
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return temporary, target


def sync_folder(folder: Path) -> None:
    """Put a folder's entries (a rename into it) on the disk, where the system allows it."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass  # some systems cannot sync a folder; the rename itself is still atomic
    finally:
        os.close(handle)


def write_whole(path: str | Path, text: str) -> None:
    """Write a file whole or not at all: a failed write leaves the old file as it was, and no temporary file.

    A new file gets the usual permissions (the umask's); a file written again keeps its own, and
    a symbolic link is written through (its target is replaced). What is not a regular file is
    refused.

    Raises:
        OSError: the file cannot be written (a read-only file, or not a regular file, included).
    """
    temporary, target = write_temporary(path, text)
    try:
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    sync_folder(target.parent)
