"""The argparse type of every file and folder argument."""

from __future__ import annotations

import argparse
from pathlib import Path


def path_argument(text: str) -> Path:
    """A path as typed; an empty one is a bad argument (Path("") is the current folder, so
    `decks export ""` wrote the eight backs there)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no file or folder")
    return Path(text)
