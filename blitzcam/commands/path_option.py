"""The argparse type of every file and folder argument."""

from __future__ import annotations

import argparse
from pathlib import Path


def path_argument(text: str) -> Path:
    """A path as typed, a leading ~ made the home folder (`--data=~/scenes` reaches no shell
    that would: some options took it, others said "no such folder"); an empty one is a bad
    argument (Path("") is the current folder, so `decks export ""` wrote the eight backs
    there)."""
    from blitzcam.paths import expand_home

    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return expand_home(Path(text))
