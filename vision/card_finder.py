"""Finding the one card back in a photo and warping it flat: the geometry of enrollment.

`card_in` finds the card: `find_cards` takes the bright contours as quadrilaterals, largest
first (a back is white paper on a darker table), and `card_problem` says what keeps a picture
from being enrolled (two cards, a card running off the picture, too small, too slanted to tell
its length from its width, judged by `card_perspective`); `rectify` warps the card flat and
upright with a perspective transform. No file or camera is touched here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, NamedTuple

import cv2
import numpy as np

from blitzcam.game.decks import CARD_ASPECT
from blitzcam.vision.card_perspective import (
    CARD_SHAPE_RANGE,
    could_be_a_card,
    long_sides_down,
    seen_card_ratio,
)
from blitzcam.vision.face_up import EDGE_MARGIN, FACE_UP, face_up_cards, is_face

CARD_WIDTH: Final = 400  # stored references are this wide, upright
MIN_CARD_AREA: Final = 0.02  # of the picture: smaller bright blobs are not the card
# a bright shape filling this much of the picture is the picture itself: a card-shaped picture
# (a scan, a tight crop, a back `blitzcam decks export` wrote) is taken as the card
WHOLE_PICTURE: Final = 0.98
# a card's 1.56 within 2.5 %: not a camera's 4:3, 3:2, 16:10 or 16:9 frame, whose picture of a
# card on a white table is bright to its edges too
WHOLE_CARD_SHAPE: Final = (CARD_ASPECT / 1.025, CARD_ASPECT * 1.025)
WHOLE_CARD_DRAWING: Final = 0.3  # of the card's width: a back's drawing is 0.35-0.65 of it
# a picture of this shape, bright to its edges with a drawing in its middle, is said to be a
# crop near a card's shape (taken whole only within WHOLE_CARD_SHAPE)
NEAR_CARD_SHAPE: Final = (1.40, 1.75)
# ... but one of card shape down to this share is likely the card seen from too far: said so
FAR_CARD_AREA: Final = 0.001
# a far bright shape this much squarer than a card is said to be perhaps one seen slanted (at
# 40° a card looks 1.20-1.22 times as long as wide); a square speck (1.0-1.1) is no card
SLANTED_SMALL_CARD: Final = (1.1, 1.3)
MIN_CARD_SIDE: Final = 120  # pixels across the card in the picture: less is stored blurred
SECOND_CARD_SHARE: Final = 0.5  # a second quadrilateral this large (of the card's area): two cards
# ... and a card-shaped one down to this share: a second card further off, or seen at a slant
# (one of 20-39 % of the card's area was taken, and the nearer card stored)
SECOND_CARD_SHAPED_SHARE: Final = 0.15
# ... and beside the largest bright shape, not on it, a card-shaped one down to this share: the
# card, the largest a sheet of paper (A4 is 1.41 long, a card's shape seen at a slant; a score
# sheet beside the card, the card 8-14 % of it, was stored as the deck's back, its text read as
# the drawing, and the deck's cards then counted to another)
BESIDE_CARD_SHAPED_SHARE: Final = 0.05
# One card's outline is convex, rounded corners and all: no dent in it deeper than this share
# of its width (cards photographed flat, perspective, shadows and face-up cards included:
# 0.01 at most). Two cards overlapping, even offset by 30 px of 300, or a card with a light
# thing touching it, are dented where the outlines meet (0.03-0.28); such a bright shape was
# stored as half of one card and half of the other.
MAX_DENT: Final = 0.02
# ... unless the dent is card in shadow, this share of the way from the table's grey up to the
# bright line: a phone's shadow over the card's edge at 45-55 % of the light reads 0.53-0.81
# (darker is refused: it is too near the table to tell); the notch of two cards overlapping,
# table, 0-0.19, and 0.31 for two stacked 30 px apart (its notch mostly the cards' blurred edge)
SHADOW_LIFT: Final = 0.42
# a bright shape running off the picture and filling more than this of it is most likely a
# light table with the card on it (a table lit unevenly, its bright part as light as the card:
# "the card runs off the edge" was said of a card in plain view)
LIGHT_TABLE_SHARE: Final = 0.4
# a bright shape from one edge of the picture to the opposite one (two corners within this of
# each, of the long side), smaller than this share of it and of no card's shape is no card but
# a stripe of the table (a card reaching two opposite edges covers a third of a 16:9 picture)
ACROSS_MARGIN: Final = 0.02
STRIPE_SHARE: Final = 0.25
FACE_CHECK_WIDTH: Final = 100  # a card found is looked at this wide for a face's colour
# a card's corner this share of its short side outside the picture (where its sides meet) was
# cut off by it: the card runs off the picture (less is a sliver of its rounded corner; a
# turned card cropped to its box has its corners on the picture's edges)
CUT_DEPTH: Final = 0.03
FINE_OUTLINE: Final = 0.005  # of the outline's length: drawn this finely, a cut corner shows
# a bright shape on the picture's very edge row or column, in the picture's own pixels, along
# more than this share of its short side runs off it: a card large in a phone's photo, tilted
# so that it runs past two opposite edges, leaves outline sides that meet inside the picture and
# would be stored squashed (1-7 % of it outside). A whole card a few pixels in leaves the
# edge row the table's; a corner that touches it, a few pixels of it
EDGE_RUN: Final = 0.1
# ... where the edge row is at least this share as bright as the row EDGE_DEPTH of its short
# side further in: a card cut by the edge is its paper there as further in (a lens's fall-off
# is gradual), a card blurred a pixel or two from the edge is darker at the edge
EDGE_AS_BRIGHT: Final = 0.9
EDGE_DEPTH: Final = 0.02


TWO_CARDS: Final = "more than one card in the picture: lay one back alone"
BESIDE_PAPER: Final = (
    "more than one card-like shape in the picture (the card beside a sheet of paper or a "
    "phone, or another card?): lay one back alone on a darker surface"
)
RUNS_OFF: Final = (
    "the card found runs off the edge of the picture: photograph the whole card, with some of "
    "the table around it"
)
PATTERNED_TABLE: Final = (
    "the bright shapes found run off the picture or have no card's outline: the table's pattern "
    "(wood grain, stripes), or cards cut by the picture's edge? lay one back alone, whole, on a "
    "plain darker surface"
)
TOUCHED_OFF_THE_EDGE: Final = (
    "the bright shape found runs off the edge of the picture and its outline is dented: a "
    "hand holding the card, or something light touching it? lay the card alone on the table, "
    "whole in the picture, with some of the table around it"
)
NOT_ONE_CARD: Final = (
    "the bright shape found is not one card's: its outline is dented (two cards overlapping, "
    "something light touching the card, a shadow across its edge, or no card at all but the "
    "table's pattern?): lay one back alone, evenly lit, on a plain surface"
)


class Bright(NamedTuple):
    """A bright shape found in a picture, as the quadrilateral taken for it."""

    corners: np.ndarray  # (4, 2) ordered tl, tr, br, bl, in the picture's pixels
    area: float  # of the shape itself, in the picture's pixels
    one_card: bool  # outlined as one card is: no dent in it (MAX_DENT) but card in shadow
    # no quadrilateral's shape at all (two cards crossing, a hand on one, a napkin): said only
    # when nothing else is found, and no rival to a card that is
    shapeless: bool = False
    cut: bool = False  # cut by the picture's edge (`_cut_by_the_picture`): it runs off it


def order_corners(points: np.ndarray) -> np.ndarray:
    """(4,2) points -> top-left, top-right, bottom-right, bottom-left."""
    points = np.asarray(points, np.float32).reshape(4, 2)
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise from the left in image coordinates
    start = np.argmin(ordered.sum(axis=1))  # top-left: smallest x + y
    return np.roll(ordered, -start, axis=0)


def find_cards(image_bgr: np.ndarray, *, min_area: float = MIN_CARD_AREA) -> list[Bright]:
    """Bright shapes of at least `min_area` of the picture taken as quadrilaterals, largest
    first."""
    small, scale, threshold, bright, ink = _bright_shapes(image_bgr)
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = min_area * bright.size
    cards = []
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
        area = cv2.contourArea(contour)
        if area > WHOLE_PICTURE * bright.size:
            if _is_the_card(ink):
                whole = float(image_bgr.shape[0] * image_bgr.shape[1])
                cards.append(Bright(_whole(image_bgr), whole, one_card=True))
            continue
        if area < area_min:
            continue
        hull = cv2.convexHull(contour)
        box = cv2.minAreaRect(hull)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(quad) != 4:  # rounded corners or a soft edge: fall back to the oriented box
            quad = cv2.boxPoints(box)
            if cv2.contourArea(hull) / max(1.0, float(np.prod(box[1]))) < 0.85:
                # no card's shape: two cards overlapping, a hand touching one (it was "no card
                # found" under a card in plain view); said as a shape that is not one card's
                corners = order_corners(np.asarray(quad, np.float32) / scale)
                cards.append(Bright(corners, area / scale**2, one_card=False, shapeless=True))
                continue
        quad = np.asarray(quad, np.float32).reshape(4, 2)
        one_card = _deepest_dent(contour) <= MAX_DENT * min(box[1]) or _dents_in_shadow(
            small, bright, hull, float(threshold)
        )
        cut = _cut_by_the_picture(hull, quad, bright.shape) or _along_the_edge(
            image_bgr, small, threshold, hull, quad
        )
        cards.append(Bright(order_corners(quad / scale), area / scale**2, one_card, cut=cut))
    return cards


def _along_the_edge(
    image_bgr: np.ndarray, small: np.ndarray, threshold: float, hull: np.ndarray, quad: np.ndarray
) -> bool:
    """Whether the shape of `hull` (in the picture shrunk to `small`, grey) lies on the
    picture's very edge along more than EDGE_RUN of its short side: bright there in the
    picture's own pixels, and as bright as a little further in (EDGE_DEPTH of its short side;
    a card a pixel or two from the edge, blurred, brightens the edge row only part of the way,
    and is whole), the ink of a drawing that crosses the edge bridged, as
    `find_cards` closes it."""
    inside = np.zeros(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, hull.reshape(-1, 2).astype(np.int32), 1)
    scale = small.shape[1] / image_bgr.shape[1]
    short = float(min(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1))) / scale
    depth = max(3, round(EDGE_DEPTH * short))
    bridge = np.ones((1, max(1, round(7 / scale)) | 1), np.uint8)
    if min(image_bgr.shape[:2]) <= 2 * depth:
        return False
    longest = 0
    for edge, further, small_line in (
        (image_bgr[0], image_bgr[depth], inside[0]),
        (image_bgr[-1], image_bgr[-1 - depth], inside[-1]),
        (image_bgr[:, 0], image_bgr[:, depth], inside[:, 0]),
        (image_bgr[:, -1], image_bgr[:, -1 - depth], inside[:, -1]),
    ):
        if not small_line.any():  # (its lines alone made grey, and only where it touches)
            continue
        # each of the edge's pixels, where it lies in the shrunk picture
        at = np.minimum((np.arange(len(edge)) * scale).astype(int), len(small_line) - 1)
        edge, further = _grey_line(edge), _grey_line(further)
        on = (edge >= threshold) & (edge >= EDGE_AS_BRIGHT * further) & (small_line[at] > 0)
        longest = max(
            longest,
            _longest_run(cv2.morphologyEx(on.astype(np.uint8)[None], cv2.MORPH_CLOSE, bridge)[0]),
        )
    return longest > EDGE_RUN * short


def _grey_line(line: np.ndarray) -> np.ndarray:
    """A row or column of the picture (BGR, or grey already) in grey, as float32: as the whole
    picture's conversion gives it, for a picture of a card whose edges alone are looked at."""
    if line.ndim == 1:
        return line.astype(np.float32)
    return cv2.cvtColor(np.ascontiguousarray(line)[None], cv2.COLOR_BGR2GRAY)[0].astype(np.float32)


def _longest_run(on: np.ndarray) -> int:
    """The longest run of non-zero values in a 1-D array."""
    edges = np.diff(np.concatenate(([0], (on > 0).astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    return int((ends - starts).max()) if len(starts) else 0


def _cut_by_the_picture(hull: np.ndarray, quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the picture's edge cut a bright shape that touches it: a corner of the
    quadrilateral taken for it, or of the one the four longest sides of its finely drawn
    outline meet in, lies CUT_DEPTH of its short side outside the picture. A card cut by two
    sides, a corner through each, leaves a shape whose two cut corners each lie on a different
    side, as a turned card cropped to its box touches all four, and would be stored with its
    corners cut off. (A side of the outline along the picture's edge is no cut: taken for one,
    a whole card 2-5 px from the edge is refused.)"""
    h, w = shape[:2]
    outline = cv2.approxPolyDP(hull, FINE_OUTLINE * cv2.arcLength(hull, True), True)
    points = outline.reshape(-1, 2).astype(np.float64)
    xs, ys = points[:, 0], points[:, 1]
    if not np.any((xs <= 1) | (xs >= w - 2) | (ys <= 1) | (ys >= h - 2)):
        return False  # (what the picture cut touches its edge)
    short = float(min(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
    beyond = max(EDGE_MARGIN * max(h, w), CUT_DEPTH * short)
    for corners in (quad, _long_sides_met(points)):
        if corners is None:
            continue
        xs, ys = corners[:, 0], corners[:, 1]
        if np.any((xs < -beyond) | (xs > w - 1 + beyond) | (ys < -beyond) | (ys > h - 1 + beyond)):
            return True
    return False


def _long_sides_met(points: np.ndarray) -> np.ndarray | None:
    """Where the four longest sides of an outline (`points` in turn) meet, taken in turn (a
    card's corners, the rounded or cut ones too), or None where two of them are parallel."""
    if len(points) < 4:
        return None
    ends = np.roll(points, -1, axis=0)
    longest = sorted(np.argsort(-np.linalg.norm(ends - points, axis=1))[:4])
    met = []
    for first, second in zip(longest, longest[1:] + longest[:1], strict=True):
        a, b = points[first], ends[first]
        c, d = points[second], ends[second]
        across = _cross(b - a, d - c)
        if abs(across) < 1e-9 * np.linalg.norm(b - a) * np.linalg.norm(d - c):
            return None
        met.append(a + (b - a) * _cross(c - a, d - c) / across)
    return np.array(met)


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _bright_shapes(
    image_bgr: np.ndarray,
) -> tuple[np.ndarray, float, float, np.ndarray, np.ndarray]:
    """The picture in grey at most 800 px long, its scale, the bright line (Otsu's), the bright
    shapes (ink lines closed) and the ink (the dark pixels, before they are closed: what a
    whole-picture card's drawing is)."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    scale = 800 / max(grey.shape)
    # (a side of at least one pixel: a 2000 x 1 picture's short side came to none, a traceback)
    size = (max(1, round(grey.shape[1] * scale)), max(1, round(grey.shape[0] * scale)))
    small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA) if scale < 1 else grey
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    threshold, bright = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    ink = bright == 0
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))  # close ink lines
    return small, min(scale, 1.0), float(threshold), bright, ink


def _crop_shape_problem(image_bgr: np.ndarray) -> str | None:
    """What to say of a picture bright to its edges with a card's drawing in its middle whose
    shape is near a card's but not one: a crop of a back a little too tight or loose ("no card
    found ... on a darker surface" said nothing of the crop), or a card on a light table, which
    the picture cannot tell from one. None for any other picture."""
    _small, _scale, _threshold, bright, ink = _bright_shapes(image_bgr)
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours or max(cv2.contourArea(c) for c in contours) <= WHOLE_PICTURE * bright.size:
        return None
    h, w = ink.shape
    ratio = max(h, w) / max(1, min(h, w))
    near = NEAR_CARD_SHAPE[0] <= ratio <= NEAR_CARD_SHAPE[1]
    if not near or not ink.any() or not _drawing_centred(ink):
        return None
    return (
        "no card found: the picture is bright to its edges (a light table, or a crop of one "
        f"card {ratio:.2f} times as long as it is wide, where a card is {CARD_ASPECT:.2f}): "
        "lay the card on a darker surface, or crop the picture to the card's edges"
    )


def _dents_in_shadow(
    grey: np.ndarray, bright: np.ndarray, hull: np.ndarray, threshold: float
) -> bool:
    """Whether what fills the bright shape's dents (inside its convex hull, not bright) is
    card in shadow rather than table: nearer the bright line than the table just outside the
    hull is. Where two cards overlap, or something light touches the card, the dents are
    table; a shadow across the card's edge (a phone held over it) leaves card there, darker."""
    inside = np.zeros_like(bright)
    cv2.fillConvexPoly(inside, hull.reshape(-1, 2), 255)
    # (away from the bright edge: a notch's thin end is mostly the edge's own blur)
    dents = cv2.erode(((inside > 0) & (bright == 0)).astype(np.uint8), np.ones((5, 5))) > 0
    ring = (cv2.dilate(inside, np.ones((15, 15), np.uint8)) > 0) & (inside == 0)
    if not dents.any() or not ring.any():
        return False
    table, dent = float(np.median(grey[ring])), float(np.median(grey[dents]))
    return dent - table > SHADOW_LIFT * (threshold - table)


def _deepest_dent(contour: np.ndarray) -> float:
    """How far, in pixels, the outline's deepest dent lies inside its convex hull."""
    if len(contour) < 4:
        return 0.0
    try:
        defects = cv2.convexityDefects(contour, cv2.convexHull(contour, returnPoints=False))
    except cv2.error:  # an outline that touches itself ("hull indices are not monotonous"):
        return math.inf  # no one card's, which is convex (OpenCV's error was a traceback)
    return 0.0 if defects is None else float(defects[:, 0, 3].max()) / 256  # (fixed point)


def _is_the_card(ink: np.ndarray) -> bool:
    """Whether a picture that is bright to its edges is one card and nothing else: shaped as a
    card, its drawing (`ink`, the dark pixels) large and in the middle. A photo of a card on a
    white table is bright to its edges too, but its drawing is small, or off-centre."""
    return card_shaped_picture(ink.shape) and _drawing_centred(ink)


def card_shaped_picture(shape: tuple[int, ...]) -> bool:
    """Whether a picture of `shape` (height, width, ...) is a card's shape (WHOLE_CARD_SHAPE):
    a card cut to its edges, not a camera's frame."""
    h, w = shape[:2]
    return WHOLE_CARD_SHAPE[0] <= max(h, w) / max(1, min(h, w)) <= WHOLE_CARD_SHAPE[1]


def _drawing_centred(ink: np.ndarray) -> bool:
    """Whether the dark pixels of a picture bright to its edges are a card's drawing: large and
    in its middle (a photo of a card on a white table has a small one, or one off-centre)."""
    h, w = ink.shape
    ys, xs = np.nonzero(ink)
    if len(xs) == 0:
        return True  # a blank card: enrollment says it shows no drawing
    (x0, x1), (y0, y1) = np.percentile(xs, (2, 98)), np.percentile(ys, (2, 98))
    centred = abs((x0 + x1) / 2 - w / 2) < 0.2 * w and abs((y0 + y1) / 2 - h / 2) < 0.2 * h
    return centred and max(x1 - x0, y1 - y0) >= WHOLE_CARD_DRAWING * min(h, w)


def _whole(image_bgr: np.ndarray) -> np.ndarray:
    """The picture's own corners (ordered): a scan, a crop or an exported back is the card."""
    return _whole_corners((image_bgr.shape[1], image_bgr.shape[0]))


def _whole_corners(image_wh: tuple[int, int]) -> np.ndarray:
    w, h = image_wh
    return np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])


def _on_the_edge(corners: np.ndarray, image_wh: tuple[int, int]) -> bool:
    """Whether two corners of the quadrilateral lie on one edge of the picture: a side along
    it, where the picture cut the bright shape (a card half out of the frame). (One corner on
    an edge is no sign: a tilted card cropped to its box touches all four; a card cut by two
    sides of the picture, a corner on each, is not told from it here.)"""
    margin = EDGE_MARGIN * max(image_wh)
    xs, ys = corners[:, 0], corners[:, 1]
    w, h = image_wh
    return any(
        int(np.count_nonzero(near)) >= 2
        for near in (xs <= margin, xs >= w - 1 - margin, ys <= margin, ys >= h - 1 - margin)
    )


def _edge_to_edge(corners: np.ndarray, image_wh: tuple[int, int]) -> bool:
    """Whether the quadrilateral lies along two opposite edges of the picture, two corners at
    (or past) each (a card cut by the frame lies along one, or two that meet; a tilted card
    cropped to its box has one corner on each edge)."""
    margin = ACROSS_MARGIN * max(image_wh)
    xs, ys = corners[:, 0], corners[:, 1]
    w, h = image_wh

    def along(near: np.ndarray) -> bool:
        return int(np.count_nonzero(near)) >= 2

    return (along(xs <= margin) and along(xs >= w - 1 - margin)) or (
        along(ys <= margin) and along(ys >= h - 1 - margin)
    )


def card_in(image_bgr: np.ndarray, *, pixel_scale: float = 1.0) -> tuple[list[Bright], str | None]:
    """The card candidates of `image_bgr` (`find_cards`) and why the largest cannot be
    enrolled (`card_problem`), or None. `pixel_scale`: the picture file's pixels per pixel of
    `image_bgr` (a large file is read shrunk), which a card's width is told in. A card lying
    face up is said to be one (`face_up`), whatever else was found."""
    image_wh = (image_bgr.shape[1], image_bgr.shape[0])
    found = find_cards(image_bgr, min_area=FAR_CARD_AREA)  # one pass: the cards are the big ones
    cards, problem = _card_in(image_bgr, found, pixel_scale)
    if problem is None:
        face = is_face(rectify(image_bgr, cards[0].corners, width=FACE_CHECK_WIDTH))
    else:  # (only where no back was found: a second look at the whole picture)
        faces = face_up_cards(image_bgr)
        # (not where a back lies beside it: else a coloured book beside a back running off the
        # picture is taken for a face, and "turn it over" said of the back)
        face = bool(faces) and not any(
            _card_shaped(shape.corners, image_wh, seen_card_ratio(shape.corners, image_wh))
            and not any(_within(shape.corners, outline) for outline in faces)
            for shape in found
            if not shape.shapeless
        )
    return cards, FACE_UP if face else problem


def _card_in(
    image_bgr: np.ndarray, found: list[Bright], pixel_scale: float
) -> tuple[list[Bright], str | None]:
    image_wh = (image_bgr.shape[1], image_bgr.shape[0])
    least = MIN_CARD_AREA * image_wh[0] * image_wh[1]
    shapeless = [card for card in found if card.shapeless and card.area >= least]
    found = [card for card in found if not card.shapeless]
    cards = [card for card in found if card.area >= least]
    if not cards and shapeless:  # (two cards crossing were "no card found")
        return cards, NOT_ONE_CARD
    if not found and (crop := _crop_shape_problem(image_bgr)) is not None:
        return cards, crop
    problem = card_problem(cards, image_wh, far=() if cards else found, pixel_scale=pixel_scale)
    if problem in (TWO_CARDS, BESIDE_PAPER, RUNS_OFF):
        # the card found runs off the picture or has no card's outline, and so does another
        # bright shape of a second card's size: a wood table's light grain, a patterned cloth
        # (else "more than one card" is said of a wood table with none, and with a small card),
        # or two cards cut by the edge (said of them too)
        def edgy(shape: Bright) -> bool:
            return shape.shapeless or shape.cut or _on_the_edge(shape.corners, image_wh)

        least_large = SECOND_CARD_SHAPED_SHARE * cards[0].area  # (as a second card is judged)
        large = [s for s in (*cards, *shapeless) if s.area >= least_large]
        if edgy(cards[0]) and sum(map(edgy, large)) >= 2:
            return cards, PATTERNED_TABLE
    return cards, problem


def card_problem(
    cards: list[Bright],
    image_wh: tuple[int, int],
    *,
    far: Sequence[Bright] = (),
    pixel_scale: float = 1.0,
) -> str | None:
    """Why the largest of `cards` (from `find_cards`) cannot be enrolled, or None; with no
    cards, `far` (smaller quadrilaterals) may show the card seen from too far.

    A second card nearly as large makes it unclear which deck is meant; two cards touching read
    as one quadrilateral of the wrong shape; a small card is stored blown up and blurred."""
    if not cards:
        return _far_card_problem(far, image_wh, pixel_scale) or (
            "no card found (lay one back flat on a darker surface, filling a good part of "
            "the picture)"
        )
    card, others = cards[0], cards[1:]
    corners, area, one_card = card.corners, card.area, card.one_card

    def card_shaped(shape: Bright) -> bool:
        return _card_shaped(shape.corners, image_wh, seen_card_ratio(shape.corners, image_wh))

    beside = [
        other
        for other in others
        if other.area >= BESIDE_CARD_SHAPED_SHARE * area
        and card_shaped(other)
        and not _within(other.corners, corners)
    ]
    second = [
        other
        for other in others
        if other.area >= SECOND_CARD_SHARE * area
        or (other.area >= SECOND_CARD_SHAPED_SHARE * area and card_shaped(other))
    ]
    # a shape of no card's among them: a sheet of paper or a white phone beside the card
    # (said as two cards, the sheet or the phone was never named)
    if (beside or second) and not all(map(card_shaped, [card, *second])):
        return BESIDE_PAPER
    if second:
        return TWO_CARDS
    if beside:
        return BESIDE_PAPER
    whole = np.array_equal(corners, _whole_corners(image_wh))
    if (
        area < STRIPE_SHARE * image_wh[0] * image_wh[1]
        and _edge_to_edge(corners, image_wh)
        # (a card lying across a picture as tall as 2.4:1 reaches both its sides)
        and not _card_shaped(corners, image_wh, seen_card_ratio(corners, image_wh))
    ):
        # (a light stripe of a wood table, the card merged into it or elsewhere: not "photograph
        # the whole card", which is wrong of a card in plain view)
        return (
            "the bright shape found runs across the whole picture, edge to edge: the table's "
            "pattern (wood grain, stripes)? lay the card on a plain darker surface"
        )
    if not whole and (card.cut or _on_the_edge(corners, image_wh)):
        share = area / (image_wh[0] * image_wh[1])
        if share > LIGHT_TABLE_SHARE:  # (the lit half of a light grey table, the card on it)
            return (
                f"the bright shape found runs off the edge of the picture and fills {share:.0%} "
                "of it: a table as light as the card? lay the card on a darker surface (if it "
                "is the card, photograph the whole card with some of the table around it; a "
                "screenshot or a scan of it, crop it to the card's edges)"
            )
        # (a hand holding the card: the card whole, the hand off the edge, told to photograph
        # "the whole card")
        return RUNS_OFF if one_card else TOUCHED_OFF_THE_EDGE
    if not one_card:
        return NOT_ONE_CARD
    across, down = _sides(corners)
    ratio = seen_card_ratio(corners, image_wh)
    if not _card_shaped(corners, image_wh, ratio):
        shape = (
            f"is {ratio:.2f} times as long as it is wide, a card {CARD_ASPECT:.2f}"
            if ratio is not None
            else f"is not a card's ({CARD_ASPECT:.2f} times as long as wide) from any angle"
        )
        return (
            f"the shape found {shape}: two cards touching, or a card partly hidden or in "
            "shadow? lay one back alone, evenly lit"
        )
    if long_sides_down(corners, image_wh) is None:  # (slanted across its length: from 25-30
        # degrees; not "upright in the picture", which is wrong of a card upright in it)
        return (
            "the card is seen too slanted to tell its length from its width: photograph it "
            "more from above, or from one of its short ends"
        )
    if min(across, down) * pixel_scale < MIN_CARD_SIDE:
        return _too_few_pixels(min(across, down) * pixel_scale)
    return None


def _card_shaped(corners: np.ndarray, image_wh: tuple[int, int], ratio: float | None) -> bool:
    """Whether a quadrilateral found is a card's shape: its `ratio` as seen (`seen_card_ratio`),
    or, where the picture cannot tell it (None), through some lens (`could_be_a_card`)."""
    if ratio is None:
        return could_be_a_card(corners, image_wh)
    return CARD_SHAPE_RANGE[0] <= ratio <= CARD_SHAPE_RANGE[1]


def _far_card_problem(
    far: Sequence[Bright], image_wh: tuple[int, int], pixel_scale: float = 1.0
) -> str | None:
    """'Move closer' when the largest of `far` is card-shaped: a card too small in the picture
    to be told from a bright speck by size alone (under MIN_CARD_AREA)."""
    if not far:
        return None
    corners, area = far[0].corners, far[0].area
    across, down = _sides(corners)
    # a few pixels' rounding in a small quadrilateral leaves the slant unreadable: as it looks
    ratio = seen_card_ratio(corners, image_wh) or max(across, down) / max(1.0, min(across, down))
    share = area / (image_wh[0] * image_wh[1])
    if not CARD_SHAPE_RANGE[0] <= ratio <= CARD_SHAPE_RANGE[1]:
        if not SLANTED_SMALL_CARD[0] <= ratio < SLANTED_SMALL_CARD[1]:
            return None
        # a small card seen steeply slanted looks nearly square ("no card found" was said of a
        # card in plain view, 40° from above)
        return (
            f"the only bright shape found fills {share:.1%} of the picture and looks "
            f"{ratio:.2f} times as long as it is wide, a card {CARD_ASPECT:.2f}: if it is the "
            "card, move closer and photograph it more from above"
        )
    if min(across, down) * pixel_scale < MIN_CARD_SIDE:
        return _too_few_pixels(min(across, down) * pixel_scale)
    return (
        f"the only card-shaped thing found fills {share:.1%} of the picture: if it is the card, "
        f"move closer (at least {MIN_CARD_AREA:.0%}, so that no bright speck is taken for it)"
    )


def width_seen(corners: np.ndarray) -> float:
    """A card's width as the picture holds it, in its pixels: its shorter mean side (ordered
    corners)."""
    return min(_sides(corners))


def _sides(corners: np.ndarray) -> tuple[float, float]:
    """A quadrilateral's mean length across and down (ordered corners)."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)  # top, right, ...
    return float(sides[0] + sides[2]) / 2, float(sides[1] + sides[3]) / 2


def _too_few_pixels(side: float) -> str:
    return (
        f"the card is only {side:.0f} pixels wide in the picture: move closer "
        f"(at least {MIN_CARD_SIDE})"
    )


def rectify(image_bgr: np.ndarray, corners: np.ndarray, *, width: int = CARD_WIDTH) -> np.ndarray:
    """The card warped flat, portrait, `width` pixels wide at the card's aspect ratio."""
    if long_sides_down(corners, (image_bgr.shape[1], image_bgr.shape[0])) is False:
        # lying across in the photo: stand it upright
        corners = np.roll(corners, -1, axis=0)
    height = round(width * CARD_ASPECT)
    dst = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return cv2.warpPerspective(image_bgr, matrix, (width, height), flags=cv2.INTER_AREA)


def _within(inner: np.ndarray, outer: np.ndarray) -> bool:
    """Whether the middle of quadrilateral `inner` lies inside `outer` (a shape on the card,
    not beside it)."""
    middle = inner.reshape(-1, 2).mean(axis=0)
    contour = outer.reshape(-1, 1, 2).astype(np.float32)
    return cv2.pointPolygonTest(contour, (float(middle[0]), float(middle[1])), False) >= 0
