"""`vision.identify.identify` with its lines given as keywords, as the tests vary them one or two
at a time (each an `IdentifyLines` field; the others at their shipped defaults)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from blitzcam.vision.detections import Detections
from blitzcam.vision.identify import IdentifyLines
from blitzcam.vision.identify import identify as identify_by_lines


def identify(
    *args: Any,
    in_play: Collection[int] | None = None,
    look_alikes: Collection[tuple[int, int]] = (),
    **lines: Any,
) -> Detections:
    return identify_by_lines(
        *args, lines=IdentifyLines(**lines), in_play=in_play, look_alikes=look_alikes
    )
