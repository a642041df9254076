"""The one exception type the CLI turns into a one-line message and an exit code."""

from __future__ import annotations

import re
import unicodedata
from typing import Final


class UserError(Exception):
    """Bad input from the person or their files: shown as one line, never as a traceback."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


# what the command prints could not be written (a full disk, stdout closed): sysexits.h's
# EX_IOERR, apart from the contract's 1 (an image failed) and 2 (bad arguments)
OUTPUT_FAILED: Final = 74
# the match database was held by another program past the wait, nothing changed: sysexits.h's
# EX_TEMPFAIL, which tells a script that the same command may work when tried again
BUSY: Final = 75


class OutputError(UserError):
    """Standard output cannot be written."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"cannot write the output: {reason}", exit_code=OUTPUT_FAILED)


class Terminated(KeyboardInterrupt):
    """SIGTERM, unwound as Ctrl+C is (`worker_pool.sigterm_unwinds(as_interrupt=True)`): a
    training killed by `kill` or `timeout` said nothing of how it goes on."""


class SavedThenInterrupted(KeyboardInterrupt):
    """Ctrl+C that landed once a change was saved (a match's during the disk's sync, a deck's
    back while its look-alikes are checked): whoever reports the interrupt says the change is
    saved (re-entering it would enter it twice)."""


class WrittenThenInterrupted(KeyboardInterrupt):
    """Ctrl+C that landed once a file written whole had replaced the one before
    (`blitzcam.files.write_bytes_atomic`): a plain interrupt to whoever only wrote it (one file
    of several, a cache), saved to a caller whose whole change it is (`SavedThenInterrupted`)."""


def first_line(exc: BaseException, *, most: int = 200) -> str:
    """What a library's exception says, fit for a one-line message: its first line, without
    the terminal colour codes some put in (torch's weights-only refusal), at most `most`
    characters; its type's name when it says nothing."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    return text.splitlines()[0][:most] if text else type(exc).__name__


# where a library's words turn to advising its own user ("Use an official Ultralytics model",
# torch's "This file can still be loaded ... with weights_only set to False"): advice for a
# checkpoint's loader, which for a file blitzcam refused is to load it unsafely
_LIBRARY_ADVICE: Final = re.compile(
    r"(?<=[.;])\s+(?=(?:Use |Re-running |You can |you can |If you |This file can still |To load ))"
)


REASON_MOST: Final = 200  # a library's reason, in characters at most (`library_reason`)


def library_reason(exc: BaseException, path: object = None) -> str:
    """`first_line(exc)` for a message that names `path` itself: without the library's
    "ERROR ❌️" mark, the path said again as "it", and without the advice that follows."""
    text = re.sub(r"^ERROR\s*(?:[^\w\s/\\.~]+\s*)?", "", first_line(exc, most=400))
    if path is not None:
        text = text.replace(f"{path} ", "it ", 1)
    reason = _LIBRARY_ADVICE.split(text, maxsplit=1)[0]
    if len(reason) <= REASON_MOST:
        return reason
    # (cut at a word: "internal miniz e)" read as a word of its own)
    return reason[:REASON_MOST].rsplit(" ", 1)[0].rstrip(",;:") + "…"


# what a loader says of a shared library it cannot find or load (Linux, macOS, Windows)
_NOT_LOADED: Final = re.compile(
    r"cannot open shared object file|Library not loaded|image not found|DLL load failed",
)
# the system packages that hold what the wheels link to, where they are known to be missing
_SYSTEM_PACKAGES: Final = {
    "libGL.so": "libgl1",
    "libglib-2.0.so": "libglib2.0-0",
    "libgthread-2.0.so": "libglib2.0-0",
    "libEGL.so": "libegl1",
    "libxkbcommon.so": "libxkbcommon0",
    "libfontconfig.so": "libfontconfig1",
}


def system_library_missing(exc: ImportError) -> str | None:
    """One line saying which library of the system a module failed to load, and the Debian
    or Ubuntu package that holds it where known; None for any other ImportError (a bug, said
    as one)."""
    text = first_line(exc)
    if not _NOT_LOADED.search(text):
        return None
    package = next((p for lib, p in _SYSTEM_PACKAGES.items() if lib in text), None)
    hint = f" (on Debian or Ubuntu: apt install {package})" if package else ""
    module = f"{exc.name} " if exc.name else ""
    return f"a library of the system that {module}needs is missing: {text}{hint}"


def one_line(text: str) -> str:
    """`text` fit for one line of a terminal: what a terminal or a line reader acts on (a line
    break, an escape code, another control character) written as its escape (a file named so
    split a message in two, or coloured the terminal)."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


# the controls of direction that reorder what follows them on the line (an override, an
# embedding, an isolate): a file named with one turned the rest of its error around
_BIDI_CONTROLS: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def on_one_line(text: str) -> str:
    """`text` with what a terminal acts on (a line break, an escape code, another control
    character, a control of direction) written as its escape, and everything else as it is: a
    message naming a file called so split in two, or coloured the terminal, while a name's
    emoji joined by an invisible joiner must still show as one."""
    return "".join(
        ascii(ch)[1:-1]
        if ch in _BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
        else ch
        for ch in text
    )


def first_and_more(items: list[str]) -> str:
    """The first of `items` and how many more, as a message names what is in the way ("notes.txt
    and 2 more"; the first alone where it is the only one)."""
    return items[0] + (f" and {len(items) - 1} more" if len(items) > 1 else "")
