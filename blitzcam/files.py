"""Writing files whole or not at all, for every part of blitzcam.

A crash, a kill or a full disk while writing leaves either the old file or the new one, never
half of one: the bytes go to a unique temporary sibling, are flushed to disk, then renamed over
the target (rename is atomic within a folder). The new file gets the old one's permissions, or
those any new file gets (0o666 less the umask), not the owner-only ones of a temporary file.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    if path.is_symlink():  # write the file the link points to; the link stays a link
        try:
            path = path.resolve()
        except RuntimeError:  # a loop of links (Python 3.11 says so this way): an OSError
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _mode_for(path))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


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
