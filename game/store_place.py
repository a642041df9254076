"""What a failure of SQLite says of the place a match database is in, in words: a read-only
file or folder, a full disk, this user's quota, another program's lock; and which file a path
names now (a database deleted, moved or replaced while open).

SQLite says "disk I/O error" for most of these; the store asks the place itself (free space, a
probe write) so that its refusals name the cause a user can act on.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import stat
from contextlib import suppress
from pathlib import Path
from typing import Final

# SQLite's primary result codes that say the place, not the file, is the problem
# not SQLite's: a write refused for this user's disk quota or file-size limit, which SQLite says
# as "disk I/O error" on a disk with room (a lab's or a network home folder's quota: else said as a
# failing disk, and even reading refused)
OVER_LIMIT: Final = -13
UNWRITABLE: Final = frozenset({3, 8, 13, 14, OVER_LIMIT})  # where the file may still be read
PLACE_SAYS: Final = {
    OVER_LIMIT: "this user's disk quota or file-size limit is reached",
    3: "no permission",  # SQLITE_PERM
    5: "another program holds it and did not let go",  # SQLITE_BUSY
    8: "the file or its folder is read-only",  # SQLITE_READONLY
    10: "the disk could not read or write it",  # SQLITE_IOERR
    13: "the disk is full",  # SQLITE_FULL
    14: "the file or its folder cannot be opened for writing",  # SQLITE_CANTOPEN
}


# a failed file operation's errno as the SQLite code that says the same of the place
_ERRNO_AS_CODE: Final = {
    errno.EROFS: 8,
    errno.EACCES: 3,
    errno.EPERM: 3,
    errno.ENOSPC: 13,
    errno.EDQUOT: OVER_LIMIT,
    errno.EFBIG: OVER_LIMIT,
}
PROBE_BYTES: Final = 64 << 10  # what a failed write's cause is asked with: SQLite's pages
PROBE_MOST: Final = 1 << 30  # a larger write (a backup's) is asked about with this much

FULL_BELOW_BYTES: Final = 1 << 20  # free space under which a failed write is the full disk's
READ_ONLY_FILE: Final = "the file is read-only"
SIDE_FILES: Final = ("-wal", "-shm")  # what SQLite keeps beside a write-ahead-log database


def file_identity(path: Path) -> tuple[int, int] | None:
    """Which file `path` names now (device and inode; Windows' file index), None when none
    is there: a database deleted, moved or replaced while open is told by it."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def read_only_side_files(path: Path) -> str | None:
    """Why the files SQLite keeps beside `path` refuse every change, where they are there but
    read-only (left so by a read-only use of the file, or a copy); None where they do not.
    (SQLite's refusal names only the file, writable by then.)"""
    sides = [path.with_name(path.name + suffix) for suffix in SIDE_FILES]
    named = [side.name for side in sides if _refuses_writes(side)]
    if not named:
        return None
    are, them = ("are", "them") if len(named) > 1 else ("is", "it")
    return (
        f"{' and '.join(named)} beside it {are} read-only (make {them} writable as the file is; "
        "a -wal file may hold its newest rounds, keep it)"
    )


def _refuses_writes(side: Path) -> bool:
    """Whether the file `side` is there and cannot be opened to write. One that goes meanwhile
    is none: SQLite takes its -wal and -shm away as the last connection closes, and another
    blitzcam's command ending as this one opened was "read-only" (34 of 6,000 opens of two
    processes at once)."""
    try:
        # (a file only, opened without waiting: a FIFO of that name held every command)
        if not stat.S_ISREG(os.lstat(side).st_mode):
            return False
        os.close(os.open(side, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0)))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except PermissionError:
        return True
    except OSError:
        return False  # (SQLite's own open says what is wrong)
    return False


def log_holds_changes(path: Path) -> bool:
    """Whether the write-ahead log beside `path` holds anything (a checkpoint that failed on an
    empty one left no change out of the file)."""
    try:
        return path.with_name(path.name + "-wal").stat().st_size > 0
    except FileNotFoundError:
        return False
    except OSError:
        return True  # (it cannot be told: said as it may)


def _disk_is_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent).free < FULL_BELOW_BYTES
    except OSError:
        return False


def place_code(path: Path, exc: BaseException, *, needs: int = PROBE_BYTES) -> int | None:
    """The SQLite primary result code of a failure (an OSError's errno taken as the code that
    says the same: a read-only medium, no permission, a full disk); "disk I/O error" on a full
    disk is the full disk's. `needs`: the bytes the failed write was to put there, which the
    probe writes (a whole copy's: a quota or file-size limit with 64 KiB left to it passed a
    small probe, and the backup before an upgrade was said to fail as a failing disk)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = _ERRNO_AS_CODE.get(getattr(exc, "errno", None) or 0) if code is None else code & 0xFF
    if primary == 10 and _disk_is_full(path):  # SQLITE_IOERR
        primary = 13
    elif primary == 10:
        primary = _ERRNO_AS_CODE.get(write_refused(path.parent, size=needs) or 0, primary)
    return primary


def no_room(path: Path, exc: sqlite3.Error) -> str:
    """SQLite's words for a failed change, with the place's where it is a full disk or this
    user's quota (its "disk I/O error" says nothing of either where a round is saved)."""
    code = place_code(path, exc)
    return f"{PLACE_SAYS[code]} ({exc})" if code in (13, OVER_LIMIT) else str(exc)


def write_refused(folder: Path, *, size: int = PROBE_BYTES) -> int | None:
    """The errno of a write of `size` bytes (up to PROBE_MOST) to a file made in `folder` (and
    removed), None where it was written: what SQLite's "disk I/O error" leaves unsaid."""
    import tempfile

    chunk = bytes(min(size, 1 << 20))
    try:
        with tempfile.TemporaryFile(dir=folder) as probe:
            written = 0
            while written < min(size, PROBE_MOST):  # (zeros written, not a hole: a quota
                written += probe.write(chunk)  # counts only the blocks a file holds)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return exc.errno
    return None


def remove_if_empty(path: Path) -> None:
    """Takes away the empty file a failed first opening made (on a full disk, say): left, it
    would be taken for a store cut to nothing, and refused ever after."""
    with suppress(OSError):
        if path.stat().st_size == 0:
            path.unlink()
