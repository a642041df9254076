"""What OpenCV and its decoder libraries print, kept off the terminal: OpenCV's own log lines
(`quiet_opencv`), and the lines libpng and libjpeg write to the process's stderr themselves
(`decoder_lines`), caught so that a failure is said once, as an error naming its file."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Final

import cv2

_QUIET_LOCK = threading.Lock()
_quiet_holders = 0  # threads inside quiet_opencv now
_loud_level: int | None = None  # the level to restore when the last one leaves


@contextmanager
def quiet_opencv() -> Iterator[None]:
    """OpenCV's own log lines (a decoder's or a capture's complaints) kept off the terminal:
    what went wrong is said once, as an error naming the file or source.

    The level is process-wide and the app's threads overlap here (the worker opening a stream
    for seconds while the window decodes an image): each saving and restoring it alone could
    restore "silent" for good, so the first one in saves it and the last one out restores it."""
    global _quiet_holders, _loud_level
    with _QUIET_LOCK:
        if _quiet_holders == 0:
            _loud_level = cv2.utils.logging.getLogLevel()
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        _quiet_holders += 1
    try:
        yield
    finally:
        with _QUIET_LOCK:
            _quiet_holders -= 1
            if _quiet_holders == 0 and _loud_level is not None:
                cv2.utils.logging.setLogLevel(_loud_level)


_STDERR_LOCK = threading.Lock()  # one thread at a time has the process's stderr caught


LIBPNG_LINES: Final = ("libpng ",)
# how libjpeg's lines begin (jerror.h), which OpenCV's decoder lets it write to the process's
# stderr, naming no file, for a JPEG the strict read before could not judge (simplejpeg refused
# its header: "Could not determine subsampling level")
LIBJPEG_LINES: Final = (
    "Corrupt JPEG data",
    "Premature end of JPEG file",
    "Warning: unknown",
    "Invalid JPEG file structure",
    "Invalid SOS parameters",
    "Bogus ",
    "Unsupported marker type",
    "Not a JPEG file",
    "Huffman table",
    "Quantization table",
)


@contextmanager
def decoder_lines(into: list[str], lines_of: tuple[str, ...] | None) -> Iterator[None]:
    """A decoder library's lines, those that begin as `lines_of` (LIBPNG_LINES: `libpng error:
    IDAT: CRC error`; LIBJPEG_LINES), into `into` instead of onto the terminal, where they named
    no file: the library writes them to the process's stderr itself. Anything else written
    there meanwhile (another thread's) is written back after. Nothing is caught where
    `lines_of` is None, or without a stderr."""
    if lines_of is None:
        yield
        return
    with _STDERR_LOCK, ExitStack() as closing:
        try:
            caught = closing.enter_context(tempfile.TemporaryFile())
            sys.stderr.flush()
            kept = os.dup(2)
        except (OSError, ValueError, AttributeError):
            # no usable temp folder or free descriptor, no stderr (a GUI launcher's): decoded
            # all the same, libpng's lines left where they go
            yield
            return
        try:
            os.dup2(caught.fileno(), 2)  # (inside: an interrupt here still gives fd 2 back)
            yield
        finally:
            os.dup2(kept, 2)
            os.close(kept)
            caught.seek(0)
            lines = caught.read().decode("utf-8", "replace").splitlines()
            # (another thread's own "libpng " line, written in these few milliseconds, is
            # taken for this file's: rare, and only ever said as part of an error)
            into.extend(line for line in lines if line.startswith(lines_of))
            others = [line for line in lines if not line.startswith(lines_of)]
            if others and sys.stderr is not None:
                sys.stderr.write("\n".join(others) + "\n")
