"""The argparse type of every file and folder argument."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final


def path_argument(text: str) -> Path:
    """A path as typed, a leading ~ made the home folder (`--data=~/scenes` reaches no shell
    that would: some options took it, others said "no such folder"); an empty one is a bad
    argument (Path("") is the current folder, so `decks export ""` wrote the eight backs
    there)."""
    from blitzcam.paths import expand_home

    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return expand_home(Path(text))


def folder_argument(text: str) -> Path:
    """As `path_argument`, for a folder a command writes files into: `-` as typed is refused
    (as elsewhere it is standard output, which cannot take a folder's files: `decks export -`
    made a folder named -; ./- is still one)."""
    if text == "-":
        raise argparse.ArgumentTypeError(
            "- names no folder: standard output cannot take files (a folder named - is ./-)"
        )
    return path_argument(text)


# `-` as typed: standard input or output. One object, told apart by identity: a file named
# `-` is still reached as ./- (Path("./-") == Path("-"), and read standard input)
STANDARD_STREAM: Final = Path("-")
STANDARD_INPUT: Final = "standard input"  # how `-` read is said in messages


def path_or_stream(text: str) -> Path:
    """As `path_argument`, but `-` itself is STANDARD_STREAM (see `is_stream`)."""
    return STANDARD_STREAM if text == "-" else path_argument(text)


def is_stream(path: Path) -> bool:
    """Whether `path` was typed as `-` (not ./- nor a folder's -)."""
    return path is STANDARD_STREAM


def check_piped(option: str, example: str, *, what: str = "a picture") -> None:
    """UserError when `-` (standard input) is to be read and nothing can be piped in: a
    terminal waited for ever, saying nothing; a closed one was a traceback. `example`: the
    command with `what` piped in."""
    import sys

    from blitzcam.errors import UserError

    if sys.stdin is None or sys.stdin.isatty():
        which = "closed" if sys.stdin is None else "a terminal"
        raise UserError(
            f"{option}: - reads {what} from standard input, which is {which}: pipe one in "
            f"(`{example}`)"
        )


_WILDCARDS: Final = frozenset("*?[")


def as_the_shell_expands(typed: list[str], *, platform: str | None = None) -> list[str]:
    """File names as a POSIX shell gives them: on Windows, whose shells pass `photos\\*.jpg`
    on as typed, each that names no file and holds a wildcard is the files it matches, in
    order (kept as typed where none does, as a shell keeps it, so it is said "no such file").
    Elsewhere `typed` as it is: a name with a `*` in it there is the shell's to expand."""
    import glob
    import os
    import sys

    if (platform or sys.platform) != "win32":
        return list(typed)
    names: list[str] = []
    for text in typed:
        if _WILDCARDS.isdisjoint(text) or os.path.lexists(text):
            names.append(text)
            continue
        # (the pattern whole, as typed, drive and folders included: Path.glob takes only the
        # part under a folder it is asked of)
        names += sorted(glob.glob(os.path.expanduser(text))) or [text]  # noqa: PTH111, PTH207
    return names
