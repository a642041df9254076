"""A pickle that runs code when loaded, as a crafted .pt in a run folder could: the loaders of
checkpoints must refuse it without running it (it would create ./planted)."""

from __future__ import annotations

from pathlib import Path

MARK = "planted"


class Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch {MARK}",)


def was_run(folder: Path) -> bool:
    return (folder / MARK).exists()
