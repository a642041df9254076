"""Whether the detector boxes each card of an enrolled back once. A back whose drawing is in
parts set apart (a title over a figure) is boxed once a part, and each card of it counted as
many times: an owl with "OWL" written over it was counted 40 times where 19 lay, and 113 where
63 (enroll review, stop 78). The detector learnt drawings of one piece; enrollment lays copies
of the stored back on a plain table at the sizes cards are counted at, and says so where it
sees them boxed more than once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import cv2
import numpy as np

if TYPE_CHECKING:
    from blitzcam.vision.detector import Detector

SCENE: Final = (1280, 720)  # the frame the copies lie in (the detector's own input width)
# the copies' widths, px: 4.4-8.1 % of the frame, where counted cards lie; each laid upright and
# turned a quarter, three times over
WIDTHS: Final = (56, 72, 88, 104)
COPIES: Final = 12
TABLE_BGR: Final = (60, 72, 64)
# a back said to be boxed in parts when this many of the copies are (stop 78: the owl with its
# title 3 and 5 of 12, a photo of it turned over 1, with glare 5; the eight decks and the owl
# without its title 0, photos of them 0 but a green pump's with glare, 5: the eight decks,
# drawn in one piece, are not tried)
SPLIT_FROM: Final = 3


def boxes_on_each_card(card_bgr: np.ndarray, detector: Detector, count_from: float) -> list[int]:
    """How many backs at `count_from` or more the detector finds on each of COPIES copies of
    `card_bgr` (a rectified back) laid on a plain table of SCENE."""
    scene = np.full((SCENE[1], SCENE[0], 3), TABLE_BGR, np.uint8)
    turned = np.ascontiguousarray(np.rot90(card_bgr))
    laid = []
    for i in range(COPIES):
        card = card_bgr if i % 2 == 0 else turned
        across = WIDTHS[i % len(WIDTHS)]  # (the card's width: its short side)
        height, width = card.shape[:2]
        scale = across / min(height, width)
        size = (round(width * scale), round(height * scale))
        x, y = 60 + (i % 4) * 300, 60 + (i // 4) * 220
        scene[y : y + size[1], x : x + size[0]] = cv2.resize(
            card, size, interpolation=cv2.INTER_AREA
        )
        laid.append((x, y, *size))
    found = detector.detect(scene)
    backs = found.of_class("back") & (found.confidence >= count_from)
    centres = found.obb[backs][:, :2]
    return [
        int(((centres >= (x, y)) & (centres < (x + w, y + h))).all(axis=1).sum())
        for x, y, w, h in laid
    ]


def parts_note(counts: list[int]) -> str | None:
    """Advice where SPLIT_FROM copies or more were boxed more than once (`boxes_on_each_card`)."""
    split = [n for n in counts if n > 1]
    if len(split) < SPLIT_FROM:
        return None
    return (
        f"blitzcam finds {max(split)} drawings on some cards of this back ({len(split)} of "
        f"{len(counts)} laid out to try it): a drawing in parts set apart, such as a title over "
        "a figure, is counted once a part, so its cards may be counted more than once; check this "
        "deck's counts before confirming a round (glare across the photo parts a drawing too: "
        "then enroll it again without)"
    )


def split_note(stored: np.ndarray, detector: Detector, count_from: float) -> str | None:
    """`parts_note` of a stored back (BGR, as enrollment stores it)."""
    return parts_note(boxes_on_each_card(stored, detector, count_from))
