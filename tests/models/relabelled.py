"""Four generated scenes whose ground truth the tests write again in another tool's format
(labelme, YOLO): scored, the same report figure for figure."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def generated_scenes(folder: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Generate the four scenes into `folder`; each scene's ground-truth file and its record."""
    from blitzcam.datasets.generate import GenerateRequest, generate_dataset

    generate_dataset(
        GenerateRequest(out=folder, n=4, seed=59, res=(1280, 720), workers=1, progress=False)
    )
    for path in sorted((folder / "scenes").glob("*/*.json")):
        yield path, json.loads(path.read_text())
