"""A training run's wall time, summed over its sessions (a resumed run adds to it)."""

from __future__ import annotations

import json
from pathlib import Path

TIMING_FILE = "train_seconds.json"


def add_train_seconds(run_dir: Path, seconds: float) -> None:
    path = run_dir / TIMING_FILE
    path.write_text(json.dumps({"seconds": train_seconds(run_dir) + seconds}))


def train_seconds(run_dir: Path) -> float:
    """Seconds recorded so far (0 when none)."""
    path = run_dir / TIMING_FILE
    return float(json.loads(path.read_text())["seconds"]) if path.is_file() else 0.0
