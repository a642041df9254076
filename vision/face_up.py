"""Telling a face-up card from a back at enrollment: a face is one strong colour to its edges.

A Dutch Blitz face is a card of one strong colour (red, blue, yellow or green) with its number
and white figures on it; a back is white paper with one drawing. Photographed for enrollment, a
face was refused for the wrong reason ("its outline is dented": the white figures were taken for
the card, or "no card found" on a white table), or, a yellow one bright enough to be taken for
paper, would have been stored as a deck's back. What a person needs to hear is: turn it over.

Measured on the generator's art (300 px wide): the faces of every colour and number are 0.89
strong colour; the eight built-in backs 0.03-0.06, 700 random backs of every art family at most
0.15 (solid silhouettes). A colour cast of 25 % per channel gives white paper a saturation of
0.4, under STRONG_SATURATION.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

# HSV saturation and value (0-255) of a face's colour as a camera sees it: the faces' colours are
# 0.82-0.93 saturated, and stay over 0.5 dimmed, blurred and compressed
STRONG_SATURATION: Final = 128
STRONG_VALUE: Final = 50
FACE_COLOUR_SHARE: Final = 0.5  # of a card's area in strong colour: a face (backs 0.15 at most)
# a strong-colour shape is a card lying in the picture when it fills this much of its oriented
# box (the white figures inside it are holes its outline keeps), is at least this share of the
# picture, and is shaped as a card seen from above or slanted (40 degrees: 1.06 and its outline
# 0.86 of its box; lying across at 40: 2.18)
FILLS_ITS_BOX: Final = 0.8
LEAST_SHARE: Final = 0.02
CARD_SHAPED: Final = (1.0, 2.4)
# ... and holds white figures and numbers: this share of its outline, light and not its colour
# (the faces 0.10-0.13; a coloured sheet of paper, a book or a box beside a back is taken for a
# face otherwise, and "turn it over" said of the back: 128 of 128)
FIGURES_SHARE: Final = (0.04, 0.4)
FIGURE_VALUE: Final = 150  # HSV value (0-255) of a white figure, at the least
# of the picture's long side: a shape or corner this near an edge runs off it, lies on it (the
# card finder's line too)
EDGE_MARGIN: Final = 0.004
# a card's own white (its brightest pixels, this top share) is made white before its colour is
# read: a camera's cast of 40 % under dim light makes white paper strong colour (76 of 348 backs
# refused as faces), where a face's figures come back white and its field stays
WHITE_TOP: Final = 0.05
MOST_GAIN: Final = 2.5  # a channel brought up at most this much
LONG_SIDE: Final = 640  # the picture is looked at this long: plenty for a card of 2 % of it
HUES: Final = 180  # OpenCV's hue circle, 2 degrees a step
# steps either side of a field's hue (a face's field lies within 3 of its own; a red face's
# 178-179 and a wooden table's 11-14 are fields apart)
HUE_SPREAD: Final = 5
PEAK_SPREAD: Final = 2  # ... and either side of a hue, its count taken to find the commonest
MOST_FIELDS: Final = 4  # colours looked at, commonest first
ONE_HUE: Final = 0.8  # of a face's colour within HUE_SPREAD of its middle hue, at the least

# A face-up box the detector finds is a face only where its colour is one hue, as a face's
# field is: colour noise (a busy tablecloth, a picture of static) gave 191 "face-up cards",
# blurred noise 277, confetti on white 7, a 1-bit dithered table with no colour at all 56, and
# the app asked to flip each. `face_box_one_hue` of the faces the detector found on 180
# generated scenes (seeds 4242, 4343 of late rounds and 4444 of wider art: every light of the
# envelope) and the demo tables: 0.48-1.00 (466, 1 % under 0.55); of the boxes on those
# pictures: 0.00-0.24 (626).
FACE_BOX_ONE_HUE: Final = 0.35
FACE_BOX_SIDE: Final = 40  # px: a face box is looked at this size (a face is 20-120 px across)
# a box's coloured pixels: this share of its 90th-percentile saturation or more (a dim or
# washed-out picture's faces are far under STRONG_SATURATION: 0 of a face's pixels in one)
# and this value or more (black has no hue)
FACE_BOX_COLOURED: Final = 0.5
FACE_BOX_LEAST_VALUE: Final = 20

FACE_UP: Final = (
    "this is a card's face, not its back (a card of one strong colour with its number): turn "
    "it over and photograph the back"
)


def _as_bgr(image: np.ndarray) -> np.ndarray:
    """`image` in three channels (a grey picture has no colour; BGRA's alpha is dropped)."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image[..., :3] if image.shape[2] > 3 else image


def _strong(hsv: np.ndarray) -> np.ndarray:
    """Where a picture (in HSV) is a strong colour, as a face's field is (a mask)."""
    return (hsv[..., 1] >= STRONG_SATURATION) & (hsv[..., 2] >= STRONG_VALUE)


def _hues_apart(hues: np.ndarray, hue: int) -> np.ndarray:
    """How far each of `hues` lies from `hue`, round the hue circle."""
    apart = np.abs(hues.astype(np.int16) - hue)
    return np.minimum(apart, HUES - apart)


def is_face(card_bgr: np.ndarray) -> bool:
    """Whether a card, rectified, is a face: mostly strong colour once its own white is white,
    with white figures on it (a plain coloured sheet taken for the card is none)."""
    if card_bgr.size == 0:
        return False
    hsv = cv2.cvtColor(white_balanced(_as_bgr(card_bgr)), cv2.COLOR_BGR2HSV)
    colour = _strong(hsv)
    figures = float(((hsv[..., 2] >= FIGURE_VALUE) & ~colour).mean())
    if colour.mean() < FACE_COLOUR_SHARE or not FIGURES_SHARE[0] <= figures <= FIGURES_SHARE[1]:
        return False
    # (one colour: a picture of noise is strong colour of every hue)
    hues = hsv[..., 0][colour]
    return float((_hues_apart(hues, int(np.median(hues))) <= HUE_SPREAD).mean()) >= ONE_HUE


def face_box_one_hue(frame_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """For each box (`corners`, (n, 4, 2) frame pixels), the largest share of its coloured
    pixels (FACE_BOX_COLOURED, FACE_BOX_LEAST_VALUE) whose hues lie within HUE_SPREAD steps of
    one hue: near 1 for a face-up card, whatever the light; 0 where nothing in it has a colour.
    Read all at once (colour noise brings the detector 191-277 boxes, each read alone 0.26 ms)."""
    n, side = len(corners), FACE_BOX_SIDE
    if n == 0:
        return np.zeros(0, np.float32)
    square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    patches = np.stack(
        [
            cv2.warpPerspective(frame_bgr, cv2.getPerspectiveTransform(box, square), (side, side))
            for box in np.asarray(corners, np.float32)
        ]
    )
    hsv = cv2.cvtColor(patches.reshape(n * side, side, 3), cv2.COLOR_BGR2HSV).reshape(n, -1, 3)
    hue, saturation, value = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    least = np.maximum(1.0, FACE_BOX_COLOURED * np.percentile(saturation, 90, axis=1))
    coloured = (saturation >= least[:, None]) & (value >= FACE_BOX_LEAST_VALUE)
    counts = np.zeros((n, HUES), np.int64)
    rows = np.broadcast_to(np.arange(n)[:, None], hue.shape)
    np.add.at(counts, (rows[coloured], hue[coloured]), 1)
    found = coloured.sum(axis=1)
    shares = _around(counts, HUE_SPREAD).max(axis=1) / np.maximum(found, 1)
    return np.where(found > 0, shares, 0.0).astype(np.float32)


def _around(counts: np.ndarray, spread: int) -> np.ndarray:
    """Each hue's count summed with its `spread` neighbours either side, round the hue circle
    (the last axis)."""
    wrapped = np.concatenate([counts[..., -spread:], counts, counts[..., :spread]], axis=-1)
    summed = np.cumsum(wrapped, axis=-1)
    summed = np.concatenate([np.zeros_like(summed[..., :1]), summed], axis=-1)
    return summed[..., 2 * spread + 1 :] - summed[..., : -2 * spread - 1]


def white_balanced(card_bgr: np.ndarray) -> np.ndarray:
    """`card_bgr` with each channel scaled so that its brightest pixels (WHITE_TOP, by their
    brightest channel) are grey: a card's paper or a face's figures are white."""
    pixels = card_bgr.reshape(-1, 3).astype(np.float32)
    brightest = pixels.max(axis=1)
    top = pixels[brightest >= np.quantile(brightest, 1 - WHITE_TOP)]
    white = np.maximum(top.mean(axis=0), 1.0)
    gains = np.clip(white.max() / white, 1.0, MOST_GAIN)
    return np.clip(card_bgr * gains, 0, 255).astype(np.uint8)


def face_up_cards(image_bgr: np.ndarray) -> list[np.ndarray]:
    """The outlines (in the picture's pixels) of the face-up cards lying in it: card-shaped
    fields of one strong colour, whole inside it (a coloured cloth runs off it), that are
    mostly that colour and hold white figures."""
    h, w = image_bgr.shape[:2]
    if min(h, w) == 0:
        return []
    scale = min(1.0, LONG_SIDE / max(h, w))
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    image_bgr = _as_bgr(image_bgr)
    small = cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA) if scale < 1 else image_bgr
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    light = hsv[..., 2] >= FIGURE_VALUE
    found = (_card_shaped_field(field, light) for field in _colour_fields(hsv))
    return [outline / scale for outline in found if outline is not None]


def _colour_fields(hsv: np.ndarray) -> list[np.ndarray]:
    """Masks of a picture's (in HSV) strong colours, one a hue (HUE_SPREAD either side of each
    of the commonest hues, down to LEAST_SHARE of the picture): a red face on a brown wooden
    table is two fields, where strong colour alone made them one shape running off it."""
    hue = hsv[..., 0]
    strong = _strong(hsv)
    counts = np.bincount(hue[strong].ravel(), minlength=HUES)[:HUES]
    fields = []
    for _ in range(MOST_FIELDS):
        around = _around(counts, PEAK_SPREAD)
        peak = int(np.argmax(around))
        if around[peak] < LEAST_SHARE * hue.size:
            break
        fields.append(strong & (_hues_apart(hue, peak) <= HUE_SPREAD))
        counts[(peak + np.arange(-HUE_SPREAD, HUE_SPREAD + 1)) % HUES] = 0
    return fields


def _card_shaped_field(field: np.ndarray, light: np.ndarray) -> np.ndarray | None:
    """The outline of a card lying in one colour's field, if one does: a shape whole inside
    the picture, filling its oriented box, shaped as a card, mostly that colour, with white
    figures in it (`light`: where the picture is light)."""
    opened = cv2.morphologyEx(field.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    h, w = field.shape
    margin = EDGE_MARGIN * max(h, w)
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        area = cv2.contourArea(contour)
        if area < LEAST_SHARE * field.size:
            break
        x, y, bw, bh = cv2.boundingRect(contour)
        if x < margin or y < margin or x + bw > w - margin or y + bh > h - margin:
            continue  # a coloured table or cloth, not a card lying on it
        (_, _), (side_a, side_b), _ = cv2.minAreaRect(contour)
        if min(side_a, side_b) < 1 or area < FILLS_ITS_BOX * side_a * side_b:
            continue
        if not CARD_SHAPED[0] <= max(side_a, side_b) / min(side_a, side_b) <= CARD_SHAPED[1]:
            continue
        inside = np.zeros_like(opened)
        cv2.drawContours(inside, [contour], -1, 1, thickness=cv2.FILLED)
        inside = inside > 0
        figures = float((light[inside] & ~field[inside]).mean())
        if field[inside].mean() >= FACE_COLOUR_SHARE and (
            FIGURES_SHARE[0] <= figures <= FIGURES_SHARE[1]
        ):
            return contour.reshape(-1, 2).astype(np.float32)
    return None
