"""The one record that flows through vision/: a frame's detections as parallel numpy columns.

Stages never mutate it: identification returns a copy with the deck columns filled in and says
which rows count, masks and index arrays return new records. Oriented boxes are ultralytics'
`xywhr` (centre, size, angle in radians) in frame pixels; `corners` are the same boxes as four
points each.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Final

import numpy as np

UNKNOWN_DECK: Final = -1  # deck index of a back that matched no reference (or was not identified)
UNKNOWN_NAME: Final = "unknown"  # how such a back is named in output: no deck may be called so


def obb_corners(obb: np.ndarray) -> np.ndarray:
    """(n,5) xywhr -> (n,4,2) corner points, in the order ultralytics' xywhr2xyxyxyxy uses."""
    obb = np.asarray(obb, dtype=np.float32).reshape(-1, 5)
    ctr = obb[:, None, :2]
    cos, sin = np.cos(obb[:, 4:5]), np.sin(obb[:, 4:5])
    half_w, half_h = obb[:, 2:3] / 2, obb[:, 3:4] / 2
    vec1 = np.concatenate([half_w * cos, half_w * sin], axis=1)[:, None, :]
    vec2 = np.concatenate([-half_h * sin, half_h * cos], axis=1)[:, None, :]
    signs1 = np.array([1, 1, -1, -1], dtype=np.float32)[None, :, None]
    signs2 = np.array([1, -1, -1, 1], dtype=np.float32)[None, :, None]
    return (ctr + signs1 * vec1 + signs2 * vec2).astype(np.float32)


def _column(name: str, value: np.ndarray, n: int, dtype: type, tail: tuple[int, ...] = ()) -> None:
    expected = (n, *tail)
    if value.shape != expected:
        raise ValueError(f"Detections.{name}: expected shape {expected}, got {value.shape}")
    if value.dtype != dtype:
        raise ValueError(f"Detections.{name}: expected dtype {np.dtype(dtype)}, got {value.dtype}")


@dataclass(frozen=True, slots=True, eq=False)
class Detections:
    """All detections of one frame. Build with `from_obb` or `empty`, not by filling arrays."""

    obb: np.ndarray  # (n,5) float32 xywhr, frame pixels
    corners: np.ndarray  # (n,4,2) float32, frame pixels
    confidence: np.ndarray  # (n,) float32 detector score
    class_id: np.ndarray  # (n,) int64 detector class (names in `class_names`)
    deck: np.ndarray  # (n,) int64 index into `deck_names`, UNKNOWN_DECK when not identified
    similarity: np.ndarray  # (n,) float32 identity score of `deck` (nan when not identified)
    # (n,) bool: the row counts (a back to its deck or as unknown, a face as face-up); the
    # detector's boxes all do until identification, which also sees the ones it doubts
    counted: np.ndarray
    class_names: tuple[str, ...] = ("back", "face")
    deck_names: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.confidence)
        _column("obb", self.obb, n, np.float32, (5,))
        _column("corners", self.corners, n, np.float32, (4, 2))
        _column("confidence", self.confidence, n, np.float32)
        _column("class_id", self.class_id, n, np.int64)
        _column("deck", self.deck, n, np.int64)
        _column("similarity", self.similarity, n, np.float32)
        _column("counted", self.counted, n, np.bool_)
        if n and (self.class_id.min() < 0 or self.class_id.max() >= len(self.class_names)):
            raise ValueError(
                f"Detections.class_id: expected values in [0, {len(self.class_names)}), "
                f"got {self.class_id.min()}..{self.class_id.max()}"
            )
        if n and (self.deck.min() < UNKNOWN_DECK or self.deck.max() >= len(self.deck_names)):
            raise ValueError(
                f"Detections.deck: expected values in [-1, {len(self.deck_names)}), "
                f"got {self.deck.min()}..{self.deck.max()}"
            )
        for name in ("obb", "corners", "confidence", "class_id", "deck", "similarity", "counted"):
            column = getattr(self, name)
            if column.flags.writeable:
                # an array the caller still holds (from_obb takes it as it is): the record
                # keeps its own copy, or a later write by the caller would change it
                column = column.copy()
                object.__setattr__(self, name, column)
            column.flags.writeable = False

    @classmethod
    def from_obb(
        cls,
        obb: np.ndarray,
        confidence: np.ndarray,
        class_id: np.ndarray,
        *,
        class_names: tuple[str, ...] = ("back", "face"),
    ) -> Detections:
        """A record of unidentified detections from xywhr boxes, scores and class ids."""
        obb = np.ascontiguousarray(obb, dtype=np.float32).reshape(-1, 5)
        n = len(obb)
        return cls(
            obb=obb,
            corners=obb_corners(obb),
            confidence=np.asarray(confidence, dtype=np.float32).reshape(n),
            class_id=np.asarray(class_id, dtype=np.int64).reshape(n),
            deck=np.full(n, UNKNOWN_DECK, dtype=np.int64),
            similarity=np.full(n, np.nan, dtype=np.float32),
            counted=np.ones(n, dtype=bool),
            class_names=tuple(class_names),
        )

    @classmethod
    def empty(cls, *, class_names: tuple[str, ...] = ("back", "face")) -> Detections:
        return cls.from_obb(
            np.zeros((0, 5), np.float32), np.zeros(0), np.zeros(0), class_names=class_names
        )

    def __len__(self) -> int:
        return len(self.confidence)

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> Detections:
        """A new record with the rows selected by a boolean mask, an index array or a slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        if not isinstance(index, slice):
            # an empty list would be float64, which numpy does not index with
            index = np.asarray(index) if len(index) else np.zeros(0, np.intp)
        if isinstance(index, np.ndarray) and index.dtype == bool and index.shape != (len(self),):
            raise ValueError(f"Detections mask: expected shape ({len(self)},), got {index.shape}")
        return dataclasses.replace(
            self,
            obb=self.obb[index],
            corners=self.corners[index],
            confidence=self.confidence[index],
            class_id=self.class_id[index],
            deck=self.deck[index],
            similarity=self.similarity[index],
            counted=self.counted[index],
        )

    def with_boxes(self, obb: np.ndarray) -> Detections:
        """A copy with every row's box replaced by the row of `obb` (xywhr, frame pixels), the
        corners drawn again from it: the same detections, seen in another frame's pixels."""
        obb = np.ascontiguousarray(obb, dtype=np.float32).reshape(-1, 5)
        return dataclasses.replace(self, obb=obb, corners=obb_corners(obb))

    def with_decks(
        self,
        deck: np.ndarray,
        similarity: np.ndarray,
        deck_names: tuple[str, ...],
        counted: np.ndarray | None = None,
    ) -> Detections:
        """A copy with the identity columns filled in (identification's output), and with
        `counted` replaced when given."""
        return dataclasses.replace(
            self,
            deck=np.asarray(deck, dtype=np.int64).reshape(len(self)),
            similarity=np.asarray(similarity, dtype=np.float32).reshape(len(self)),
            deck_names=tuple(deck_names),
            counted=self.counted
            if counted is None
            else np.asarray(counted, dtype=bool).reshape(len(self)),
        )

    def of_class(self, name: str) -> np.ndarray:
        """Mask of the rows whose detector class is `name` (all False if the model lacks it)."""
        if name not in self.class_names:
            return np.zeros(len(self), dtype=bool)
        return self.class_id == self.class_names.index(name)

    @property
    def xyxy(self) -> np.ndarray:
        """(n,4) axis-aligned bounds of the oriented boxes."""
        if not len(self):
            return np.zeros((0, 4), np.float32)
        return np.concatenate([self.corners.min(axis=1), self.corners.max(axis=1)], axis=1)

    def deck_name(self, row: int) -> str:
        index = int(self.deck[row])
        return self.deck_names[index] if index != UNKNOWN_DECK else UNKNOWN_NAME
