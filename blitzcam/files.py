"""Writing files whole or not at all, for every part of blitzcam.

A crash, a kill or a full disk while writing leaves either the old file or the new one, never
half of one: the bytes go to a unique temporary sibling, are flushed to disk, then renamed over
the target (rename is atomic within a folder). The new file gets the old one's permissions, or
those any new file gets (0o666 less the umask), not the owner-only ones of a temporary file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TextIO

from blitzcam.errors import WrittenThenInterrupted
from blitzcam.paths import folder_not_there, resolved


def _umask() -> int:
    # read once, at import: setting it to read it is process-wide, so not while threads write
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_umask()


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return NEW_FILE_MODE


def _fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` survive a power cut (best effort: not every platform can)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_STREAM_LINK = re.compile(r"/(?:proc/self|dev)/fd/(\d+)")


def _stream_fd(path: Path) -> int | None:
    """The descriptor `path` names when it is one of this process's streams (/dev/stdout,
    /dev/fd/3, /proc/self/fd/1): written through, it keeps the shell's redirection (a log
    appended to is not replaced, a pipe reads it)."""
    names = [str(path)]
    if path.is_symlink():
        names.append(str(path.readlink()))
    for name in names:
        if match := _STREAM_LINK.fullmatch(name):
            return int(match.group(1))
    return None


def note_stream(written: Path) -> TextIO:
    """Where a command says it wrote `written`: standard output for a file, standard error
    for a stream, device or pipe (after a document sent to /dev/stdout, the line on standard
    output made it no document: JSON with a line after it)."""
    try:
        regular = _stream_fd(Path(written)) is None and stat.S_ISREG(Path(written).stat().st_mode)
    except OSError:
        regular = False
    return sys.stdout if regular else sys.stderr


def output_to_nowhere(stream: TextIO | None = None) -> None:
    """Standard output (or `stream`) sent to the null device from here on: a reader gone away
    (`| head`) or a full disk, whose buffered rest would fail again as Python exits ("Exception
    ignored ...", and another exit status than the one said)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), (stream or sys.stdout).fileno())


def _write_through(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _link_not_followed(path: Path) -> str | None:
    """Why `path`, a link in a shared folder that only its owners may delete from (sticky and
    writable by all: /tmp) made by neither this user nor the folder's owner, is not followed;
    None for any other path. The system refuses `>` through such a link (Linux's
    protected_symlinks), and a write that resolves the link itself would write where another
    user's link points."""
    if os.name != "posix" or not path.is_symlink():
        return None
    try:
        folder, made_by = path.parent.stat(), path.lstat().st_uid
    except OSError:
        return None  # (gone meanwhile: the write says what it finds)
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and made_by not in (os.geteuid(), folder.st_uid):
        return "a link another user made in a shared folder, not followed: give another name"
    return None


def write_bytes_atomic(path: Path, data: bytes, *, private: bool = False) -> None:
    """Write `data` to `path` whole or not at all (see the module). A stream of this process
    (/dev/stdout), a device or a named pipe is written through instead: replaced by a file it
    would be lost (/dev/null turned into a file, a reader of a pipe given nothing). `private`:
    the file readable by its owner alone (it may hold a password)."""
    path = Path(path)
    if (refused := _link_not_followed(path)) is not None:  # (before anything follows it)
        raise PermissionError(errno.EACCES, refused, str(path))
    stream = _stream_fd(path)
    if stream is not None:
        _write_through(stream, data)
        return
    try:
        kind = path.stat().st_mode
    except FileNotFoundError:
        kind = stat.S_IFREG  # (a dangling link: the file it names is made)
    if stat.S_ISCHR(kind) or stat.S_ISFIFO(kind):
        with path.open("wb") as handle:
            handle.write(data)
        return
    if path.is_symlink():  # write the file the link points to; the link stays a link
        path = resolved(path)
    if stat.S_ISREG(kind) and path.exists():
        # the rename below needs only the folder's permission: a write-protected file was
        # replaced all the same, where `cp` or `>` would have said no (opened for writing, not
        # truncated: the refusal is the system's own, "Read-only file system" included)
        os.close(os.open(path, os.O_WRONLY))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            mode = _mode_for(path) & (0o700 if private else 0o7777)
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
            else:  # (Windows before Python 3.13: every write raised, and counting with it)
                Path(tmp).chmod(mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
        _fsync_folder(path.parent)
    except KeyboardInterrupt:
        if not os.path.lexists(tmp):  # renamed: the new file is there (the old one is gone)
            raise WrittenThenInterrupted() from None
        Path(tmp).unlink(missing_ok=True)
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def why_unwritable(path: Path) -> str | None:
    """Why `write_bytes_atomic(path, ...)` would be refused now, as a phrase to follow the
    path's name; None when it would not be. For commands that check their output before long
    work, so a refusal comes first rather than after it."""
    path = Path(path)
    if (refused := _link_not_followed(path)) is not None:
        return refused
    if _stream_fd(path) is not None:
        return None
    if path.is_dir():
        return "is a folder, not a file"
    if path.exists() and not (path.is_file() or path.is_char_device() or path.is_fifo()):
        return "is in the way (not a file)"
    if not path.parent.is_dir():
        # (a folder on the way that is a link to a drive not plugged in is said as one:
        # "no such folder" named a name `ls` lists)
        return folder_not_there(path)
    try:
        real = resolved(path)  # a link: what gets written is the file it leads to
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a loop of links, not a file"
        return f"cannot tell where it leads ({exc.strerror or exc})"
    if real != path.absolute() and not real.parent.is_dir():
        return f"a link to {real}, in no folder that is there"
    if real.exists() and not real.is_file():
        return None if real.is_char_device() or real.is_fifo() else "is in the way (not a file)"
    if not os.access(real.parent, os.W_OK | os.X_OK):
        return f"cannot write in the folder {real.parent}"
    if real.is_file():  # refused as the write itself would refuse it (see write_bytes_atomic)
        try:
            os.close(os.open(real, os.O_WRONLY))
        except OSError as exc:
            return f"cannot write it: {exc.strerror or exc}"
    return None


def write_text_atomic(path: Path, text: str, *, private: bool = False) -> None:
    write_bytes_atomic(path, text.encode("utf-8"), private=private)


def copy_file_atomic(source: Path, target: Path) -> None:
    write_bytes_atomic(target, Path(source).read_bytes())


@contextmanager
def staged(target: Path) -> Iterator[Path]:
    """A hidden sibling of `target` to build it in; it replaces `target` when the block ends
    without an error and is removed either way.

    For files that belong together (a model's weights and their export): build the one that
    can fail staged and write the others inside the block, so a failure part-way (an export
    that fails) leaves the old set whole instead of a new file beside an old one."""
    target = Path(target)
    path = target.with_name(f".{target.name}.staged")
    try:
        yield path
        if path.exists():
            path.chmod(_mode_for(target))
        path.replace(target)
    finally:
        path.unlink(missing_ok=True)


def sha256_of(path: Path) -> str:
    """A file's SHA-256, hex, read a mebibyte at a time (the model card names each model
    file by it)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


SQLITE_BESIDE = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database


def database_in_the_way(target: Path, store: Path) -> str | None:
    """Why an export must not write `target`: it is the match store `store`, a file SQLite
    keeps beside it, or any other SQLite database (`export matches.sqlite3` wrote 787 bytes of
    JSON over every match; the app's export did so too, to a store named like a JSON file).
    None when it may be written. OSError for a path that cannot be followed (a loop of links)."""
    store, target = resolved(store), resolved(target)
    beside = {store, *(store.with_name(store.name + end) for end in SQLITE_BESIDE)}
    # a database's own files (-wal, -shm, -journal) carry no header: told by the one beside
    owner = next(
        (target.with_name(target.name.removesuffix(end)) for end in SQLITE_BESIDE
         if target.name.endswith(end)),
        target,
    )  # fmt: skip
    if target in beside or _is_sqlite_file(owner):
        return (
            "is a database, not overwritten (the match store, or one like it): choose another name"
        )
    return None


def _is_sqlite_file(path: Path) -> bool:
    """A regular file that starts as an SQLite database does; only a regular file is opened
    (reading /dev/stdout or a named pipe to look would wait for ever)."""
    try:
        if not path.is_file():
            return False
        with path.open("rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:  # unreadable: the write says why
        return False


# what a file manager leaves in a folder looked at (macOS Finder's .DS_Store and ._ copies,
# Windows Explorer's Thumbs.db and desktop.ini): no one's work, in a folder blitzcam writes
_FILE_MANAGERS: Final = re.compile(r"\.DS_Store|\._.*|Thumbs\.db|desktop\.ini", re.IGNORECASE)


def file_managers_own(name: str) -> bool:
    """Whether a file of this name is one a file manager leaves (see _FILE_MANAGERS)."""
    return _FILE_MANAGERS.fullmatch(name) is not None
