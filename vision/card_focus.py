"""How sharp a photographed back's drawing is: a photo out of focus stores a reference whose
soft lines read unlike the deck's cards on the table, which are then counted as another deck.

A green pump enrolled from a photo blurred by a Gaussian of 6 px (the card 520 px wide: a
fixed-focus webcam held close) read 0.64 alike to blitzcam's own drawing, nearer its own than
any other, so nothing said it; every green pump on the test tables then went to blue pump
(enroll review, stop 78). Sharpness is read as the steepest edges' slope over the drawing's
contrast, on the card drawn FOCUS_WIDTH wide: a sharp edge climbs its whole contrast in a
pixel or two, a blurred one over many.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

FOCUS_WIDTH: Final = 400  # px: the card is read at this width (a reference's own size)
STEEPEST: Final = 99.5  # the percentile of the edges' slopes read as the steepest
# a drawing softer than this is said (stored all the same: a back of one's own may be drawn
# soft). Measured on photos made from the eight decks' and an owl's backs (stop 78): sharp
# photos 1.2-6.5 (1.2 in very dim light, 1.7 with motion blur), and under Gaussian blur, the
# card about 500 px wide, green pump 3.7 / 2.0 / 0.89 / 0.58 / 0.42 / 0.33 at 1-6 px, the owl
# 2.9 / 0.86 / 0.44 / 0.30 at 1-4 px; the review's green pump counted right from one blurred 4
# px (0.58) and wrong from 6 px (0.33)
SOFT_BELOW: Final = 0.45


def drawing_sharpness(card_bgr: np.ndarray, *, seen_width: float | None = None) -> float:
    """The steepest slope of the card's edges (grey levels a pixel, its STEEPEST percentile, the
    card FOCUS_WIDTH wide, or `seen_width` where it was seen narrower: a card rectified larger
    than the photo held it has its edges spread by that, not by the lens) over its drawing's
    contrast (the 95th percentile of its grey less the 5th): 1 and more for a sharp photo,
    falling as it is blurred (SOFT_BELOW)."""
    grey = card_bgr if card_bgr.ndim == 2 else cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY)
    width = round(min(FOCUS_WIDTH, seen_width or FOCUS_WIDTH))
    height = max(1, round(grey.shape[0] * width / grey.shape[1]))
    interpolation = cv2.INTER_AREA if grey.shape[1] > width else cv2.INTER_LINEAR
    grey = cv2.resize(grey, (width, height), interpolation=interpolation).astype(np.float32)
    # (Sobel's 3 x 3 kernel weighs a step of one grey level 8)
    slope = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)) / 8
    low, high = np.percentile(grey, (5, 95))
    return float(np.percentile(slope, STEEPEST)) / max(float(high - low), 1.0)
