"""A photographed card back lit evenly again: a shadow across it (a phone, a hand, the lamp's
edge) divided out before the back is stored as a deck's reference; glare, which no division
brings back, measured so that it can be said.

A reference stored shadowed read as another deck: a green pump photographed half in a phone's
shadow (60 % of the light) read 0.21 alike to blitzcam's own green pump, nearer red buggy, and
every green pump on a table beside blue pumps was then counted as blue pump. The light over the
card is worked out from its paper alone (the unsaturated pixels near the brightest; ink, of any
size, is left out and the light over it filled in from the paper around it), and only a card
whose light is clearly uneven is corrected: a scan, an exported back or a card in even light is
stored as it is.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

# paper: at least this share of the card's bright paper value, and unsaturated (HSV, 0-255)
PAPER_FROM: Final = 0.55
PAPER_SATURATION_BELOW: Final = 80
LIGHT_SIGMA: Final = 0.05  # of the card's width: how smoothly the light is taken to vary
# the light's 2nd percentile over its 98th: rendered backs of every art family, evenly lit,
# read 0.95-1.0; photos under a room's uneven light 0.79-0.87, half in a phone's shadow 0.58
UNEVEN_BELOW: Final = 0.9
MAX_GAIN: Final = 2.5  # a shadow darker than this is refused before (its edge dents the card)
# glare: every channel this bright is white to the last bit (not 255: JPEG rings round it)
WHITE_FROM: Final = 250
# glare said from this share of the card: the eight rendered backs at 82 % light, a glare spot
# on each (48 in all, stop 59) read 0.99-1.0 alike to their own drawings without it; whiting
# out up to 5 % of the card 0.92-1.0 (0.85-0.88 for two on a drawing's key lines), 7-8 %
# 0.75-0.99 (one nearer another deck), 17 % 0.65-0.96
GLARE_NOTE_FROM: Final = 0.06
WHOLE_PAPER_FROM: Final = 0.5  # white over more of the card: its paper is (a scan, an export)


def light_over(card_bgr: np.ndarray) -> tuple[np.ndarray, float]:
    """The light over a card (its paper's brightness, smoothed, per pixel) and its evenness:
    the light's 2nd percentile over its 98th (1.0: even)."""
    hsv = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2HSV)
    value = hsv[..., 2].astype(np.float32)
    top = float(np.percentile(value, 95))
    paper = ((value >= PAPER_FROM * top) & (hsv[..., 1] < PAPER_SATURATION_BELOW)).astype(
        np.float32
    )
    sigma = max(2.0, card_bgr.shape[1] * LIGHT_SIGMA)
    # normalised convolution: the paper's brightness spread over the ink it does not cover
    weight = cv2.GaussianBlur(paper, (0, 0), sigma)
    light = cv2.GaussianBlur(value * paper, (0, 0), sigma) / np.maximum(weight, 1e-3)
    seen = weight > 0.02
    if not seen.any():
        return np.full(value.shape, max(top, 1.0), np.float32), 1.0
    light = np.where(seen, light, top)
    low, high = np.percentile(light[seen], (2, 98))
    return light, float(low / max(high, 1.0))


def evenly_lit(card_bgr: np.ndarray) -> tuple[np.ndarray, bool]:
    """`card_bgr` with the unevenness of its light divided out, and whether it was: a card
    lit evenly enough (UNEVEN_BELOW) comes back as it is."""
    if card_bgr.ndim != 3 or card_bgr.shape[2] != 3:  # (a BGR card only: rectify's)
        return card_bgr, False
    light, evenness = light_over(card_bgr)
    if evenness >= UNEVEN_BELOW:
        return card_bgr, False
    paper = float(np.percentile(light, 98))
    gain = np.clip(paper / np.maximum(light, 1.0), 1.0, MAX_GAIN)
    if not (gain > 1.0).any():  # (a black card reads as uneven, and nothing lifts it)
        return card_bgr, False
    lit = card_bgr.astype(np.float32) * gain[..., None]
    return np.clip(np.round(lit), 0, 255).astype(np.uint8), True


def whited_out(card_bgr: np.ndarray) -> float:
    """The share of a card white to the last bit where its paper is not: glare on a glossy
    back, a lamp's hot spot, where the ink is lost. 0.0 for a card whose paper itself is white
    to the last bit (a scan, an exported back, an overexposed photo): no glare to tell then."""
    if card_bgr.ndim != 3 or card_bgr.shape[2] != 3 or not card_bgr.size:
        return 0.0
    share = float((card_bgr.min(axis=2) >= WHITE_FROM).mean())  # (white: not a bright colour)
    return 0.0 if share > WHOLE_PAPER_FROM else share
