"""The record one synthetic scene flows through the generator as: image plus labelled objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

CLASS_BACK: Final = 0
CLASS_FACE: Final = 1
CLASS_NAMES: Final[dict[int, str]] = {CLASS_BACK: "back", CLASS_FACE: "face"}
UNKNOWN_DECK_PREFIX: Final = "unknown:"


@dataclass(frozen=True)
class SceneObject:
    """One labelled object: a back (its visible drawing) or a face-up card (its visible region).

    ``polygon`` is the oriented box, (4, 2) float32 in frame pixels (x right, y down, pixel
    edges at integers), already clipped to the frame. ``deck`` is the deck name of a back
    (``"unknown:<family>"`` for random art), None for a face. ``slot`` tells apart two decks of
    the same name in one scene (two random-art decks of one family). ``visible`` is the
    fraction of the drawing (back) or card (face) that shows in the frame. ``card`` is the
    whole card's outline in frame pixels (4, 2), hidden parts included, not clipped: what a
    whole-card label would be (kept to measure that alternative: benchmarks/label_overlap.py).
    """

    cls: int
    polygon: np.ndarray
    deck: str | None
    slot: int
    visible: float
    card: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.cls not in CLASS_NAMES:
            raise ValueError(f"class must be one of {sorted(CLASS_NAMES)}, got {self.cls}")
        if self.polygon.shape != (4, 2):
            raise ValueError(f"polygon must have shape (4, 2), got {self.polygon.shape}")


@dataclass(frozen=True)
class Scene:
    """One rendered frame: RGB image (H, W, 3) uint8, its objects, and what made it (meta)."""

    image: np.ndarray
    objects: tuple[SceneObject, ...]
    jpeg_quality: int
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.image.ndim != 3 or self.image.shape[2] != 3 or self.image.dtype != np.uint8:
            raise ValueError(
                f"image must be (H, W, 3) uint8, got {self.image.shape} {self.image.dtype}"
            )

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])
