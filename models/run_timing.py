"""A training run's wall time, summed over its sessions (a resumed run adds to it)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from blitzcam.files import write_text_atomic

TIMING_FILE = "train_seconds.json"


def add_train_seconds(run_dir: Path, seconds: float) -> None:
    total = train_seconds(run_dir) + seconds
    # whole or not at all: a run killed mid-write keeps the last record
    write_text_atomic(run_dir / TIMING_FILE, json.dumps({"seconds": total}))


def train_seconds(run_dir: Path) -> float:
    """Seconds recorded so far (0 when none)."""
    path = run_dir / TIMING_FILE
    return float(json.loads(path.read_text(encoding="utf-8"))["seconds"]) if path.is_file() else 0.0


class RunClock:
    """Adds the time since its last lap to each of `run_dirs`' records at every `lap`.

    Lapped with each checkpoint, a run stopped by a kill loses only the time since its last
    checkpoint, which a resume does over again anyway.
    """

    def __init__(self, *run_dirs: Path) -> None:
        self.run_dirs = run_dirs
        self._mark = time.monotonic()

    def lap(self) -> None:
        now = time.monotonic()
        for run_dir in self.run_dirs:
            add_train_seconds(run_dir, now - self._mark)
        self._mark = now
