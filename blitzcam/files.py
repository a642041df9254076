"""Writing files whole or not at all, for every part of blitzcam.

A crash, a kill or a full disk while writing leaves either the old file or the new one, never
half of one: the bytes go to a unique temporary sibling, are flushed to disk, then renamed over
the target (rename is atomic within a folder).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def copy_file_atomic(source: Path, target: Path) -> None:
    write_bytes_atomic(target, Path(source).read_bytes())


def staged_path(target: Path) -> Path:
    """A hidden sibling to build `target` in before it replaces the real one (`Path.replace`).

    For files that belong together (a model's weights and their export): build each staged,
    and only when every one is built move them into place, so a failure part-way (an export
    that fails) leaves the old set whole instead of a new file beside an old one."""
    target = Path(target)
    return target.with_name(f".{target.name}.staged")
