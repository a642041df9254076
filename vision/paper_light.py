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
# a card whose light is still this uneven once evened is refused: a shadow over part of it whose
# paper fell under PAPER_FROM was left as it was, and the back read as another deck (a green
# pump half in shadow at 55 % of the light, and one in a soft shadow down to 50 %: 0.57 and
# 0.81 once evened, their cards then counted as blue pump; enroll review, stop 78). Photos of
# backs in even light, dim, with glare or blurred read 0.90-0.98 once evened; a shadow at 60 %
# 0.90
STILL_UNEVEN_BELOW: Final = 0.85
# ... where this share of the card at least is unsaturated, as paper is: under a warm, dim lamp
# its white paper sits on the saturation line, 6-12 % of the card was, the light read on so
# little paper was as uneven as a shadow's, and three photos of 80 % gradients were refused.
# Cards in shadow read 94-98 % (a paper share in its place, 19-34 % of a card
# 85 % in shadow, told it "does not look like a card back" instead)
PAPER_MEASURED_FROM: Final = 0.3
# glare: every channel this bright is white to the last bit (not 255: JPEG rings round it)
WHITE_FROM: Final = 250
# glare said from this share of the drawing: the eight rendered backs at 85 and 95 % light,
# glare spots over their drawings (80 in all, stop 59) read under 0.9 alike to their own
# drawings in 7 of the 16 whiting out a fifth of the drawing or more, 5 of the 64 under it;
# light strong enough to clip one side of the card (16) read 0.99-1.0 and measured 0.03 at most
GLARE_NOTE_FROM: Final = 0.2
# a card whose drawing is not found at all is said to be whited out by the light from this
# share of it white to the last bit (a rendered back's drawing takes a fifth to a third of it)
CLIPPED_CARD_FROM: Final = 0.1
ALL_WHITE_FROM: Final = 0.97  # ... and not said over this much: no light whites out a whole card
WHOLE_PAPER_FROM: Final = 0.5  # white over more of the card: its paper is (a scan, an export)
# ... unless this much of the card is paper short of white: then light whited out the rest. A
# scan whose paper is white to the last bit leaves 2-4 % of it short, at its drawing's edges
# (the eight rendered backs, their light raised 10-40 %, and JPEG); a photo with glare over
# 57 % of a card left 42 % of its paper grey, and was stored unsaid, its drawing half gone
PAPER_LEFT_FROM: Final = 0.15
PAPER_GREY_FROM: Final = 180  # ... paper that light left short of white is this light at least
# ... and the light's white shades off into it: next to the white (RING's inner width), the
# paper's median is this near white at least. A glare photo's was 249; an export of a deck of
# one's own, white with a flat grey frame (225), was taken for glare over 69 % of its drawing
SHADED_FROM: Final = WHITE_FROM - 10
EDGE_BAND: Final = 0.03  # of the card's width: white reaching it is paper in strong light
RING: Final = (0.01, 0.04)  # of the card's width: the paper around a white patch, from and to
RING_PAPER_BELOW: Final = WHITE_FROM  # the paper around a glare spot is not white itself
SPECK: Final = 0.0005  # of the card's area: a white patch smaller is noise


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
    """The share of a card's drawing under glare: patches white to the last bit in every
    channel, brighter than the paper around them, on the drawing's region (the hull of its
    ink) and away from the card's edge. Paper clipped by strong light is clipped around too,
    and keeps its ink; a glare spot on a glossy back is a highlight of its own, and where it
    lies on the drawing the ink is lost. 0.0 for a card whose paper is white to the last bit
    all over (a scan, an export)."""
    glare = _glare(card_bgr)
    if glare is None:
        return 0.0
    region = _drawing_region(card_bgr)
    if not region.any():
        return 0.0
    return float((glare & region).sum() / region.sum())


def paper_grey(card_bgr: np.ndarray) -> float:
    """How light a photographed card's paper is: its median grey (0-255; paper covers most of a
    back), 255.0 for no pixels."""
    if not card_bgr.size:
        return 255.0
    grey = card_bgr if card_bgr.ndim == 2 else cv2.cvtColor(card_bgr, cv2.COLOR_BGR2GRAY)
    return float(np.median(grey))


def clipped_white(card_bgr: np.ndarray) -> float:
    """The share of a card white to the last bit, for a card whose drawing is not found at
    all: glare, or light strong enough to clip the paper, over the drawing leaves no ink to
    find it by (a spot reaching the card's edge is not told from paper in strong light here:
    either way the light is what to change)."""
    if card_bgr.ndim != 3 or card_bgr.shape[2] != 3 or not card_bgr.size:
        return 0.0
    share = float((card_bgr.min(axis=2) >= WHITE_FROM).mean())
    # white to the last bit all over is a picture with no light to change (a blank export, a
    # scan of white paper): light falls off somewhere on a card it whites out
    return 0.0 if share >= ALL_WHITE_FROM else share


def _glare(card_bgr: np.ndarray) -> np.ndarray | None:
    """Where glare whites a card out (a mask), or None for a card white to the last bit over
    more than WHOLE_PAPER_FROM of it (a scan's paper, an export's). Where light whites out
    so much of a photographed card, some of its paper is left short of white
    (PAPER_LEFT_FROM): all the white is then the light's."""
    if card_bgr.ndim != 3 or card_bgr.shape[2] != 3 or not card_bgr.size:
        return None
    least = card_bgr.min(axis=2)
    white = (least >= WHITE_FROM).astype(np.uint8)
    if white.mean() > WHOLE_PAPER_FROM:
        light = _light_paper(card_bgr)
        lit = _paper_short_of_white(light, least) >= PAPER_LEFT_FROM
        return white > 0 if lit and _shades_into_white(light, least, white) else None
    height, width = white.shape
    side = min(height, width)
    band = max(2, round(side * EDGE_BAND))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=8)
    paper = _paper(card_bgr)
    near, far = (
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1,) * 2)
        for k in (max(1, round(side * RING[0])), max(2, round(side * RING[1])))
    )
    glare = np.zeros(white.shape, bool)
    for label in range(1, count):
        x, y, w, h, area = stats[label]
        if area < side * side * SPECK or x < band or y < band:
            continue  # (a speck of noise; a patch reaching the card's edge: paper in strong light)
        if x + w > width - band or y + h > height - band:
            continue
        blob = (labels[y : y + h, x : x + w] == label).astype(np.uint8)
        pad = RING[1] * side
        y0, y1 = max(0, int(y - pad)), min(height, int(y + h + pad) + 1)
        x0, x1 = max(0, int(x - pad)), min(width, int(x + w + pad) + 1)
        patch = np.zeros((y1 - y0, x1 - x0), np.uint8)
        patch[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = blob
        ring = (cv2.dilate(patch, far) > 0) & ~(cv2.dilate(patch, near) > 0)
        ring &= paper[y0:y1, x0:x1]
        if ring.any() and np.median(least[y0:y1, x0:x1][ring]) < RING_PAPER_BELOW:
            glare[y0:y1, x0:x1] |= patch > 0
    return glare


def _light_paper(card_bgr: np.ndarray) -> np.ndarray:
    """Where a card is paper (unsaturated) light enough to be left short of white by light
    (PAPER_GREY_FROM), or white itself (a mask)."""
    hsv = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2HSV)
    return (hsv[..., 1] < PAPER_SATURATION_BELOW) & (hsv[..., 2] >= PAPER_GREY_FROM)


def _paper_short_of_white(light: np.ndarray, least: np.ndarray) -> float:
    """The share of a card that is light paper (`_light_paper`) but not white to the last
    bit (`least`: each pixel's darkest channel)."""
    return float((light & (least < WHITE_FROM)).mean())


def _shades_into_white(light: np.ndarray, least: np.ndarray, white: np.ndarray) -> bool:
    """Whether the light paper (`_light_paper`) next to a card's white is nearly white itself
    (SHADED_FROM): light falls off, where a print's tint beside white paper is a step."""
    side = min(white.shape)
    near = max(1, round(side * RING[0]))
    beside = (cv2.dilate(white, np.ones((2 * near + 1,) * 2, np.uint8)) > 0) & (white == 0)
    beside &= light
    return bool(beside.any()) and float(np.median(least[beside])) >= SHADED_FROM


def uneven_once_evened(card_bgr: np.ndarray) -> float | None:
    """The evenness of a card's light (`light_over`), where the card, its light evened
    (`evenly_lit`), is still too uneven to be stored (STILL_UNEVEN_BELOW) and enough of it is
    unsaturated, as paper is, to tell (PAPER_MEASURED_FROM); None where it is not."""
    evenness = light_over(card_bgr)[1]
    saturation = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2HSV)[..., 1]
    measured = float((saturation < PAPER_SATURATION_BELOW).mean())
    if evenness >= STILL_UNEVEN_BELOW or measured < PAPER_MEASURED_FROM:
        return None
    return evenness


def _paper(card_bgr: np.ndarray) -> np.ndarray:
    """The card's paper: unsaturated and near its brightest (as `light_over` reads it)."""
    hsv = cv2.cvtColor(card_bgr, cv2.COLOR_BGR2HSV)
    value = hsv[..., 2].astype(np.float32)
    top = float(np.percentile(value, 95))
    return (value >= PAPER_FROM * top) & (hsv[..., 1] < PAPER_SATURATION_BELOW)


def _drawing_region(card_bgr: np.ndarray) -> np.ndarray:
    """Where the drawing lies: the convex hull of its ink, a little widened."""
    from blitzcam.vision.references import drawing_mask

    ink = drawing_mask(card_bgr)
    points = cv2.findNonZero(ink.astype(np.uint8))
    region = np.zeros(ink.shape, np.uint8)
    if points is None:
        return region.astype(bool)
    cv2.fillConvexPoly(region, cv2.convexHull(points), 1)
    grow = max(1, round(min(ink.shape) * 0.02))
    region = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1,) * 2))
    return region.astype(bool)
