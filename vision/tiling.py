"""A second, closer look at a frame whose cards came out too small: pure functions.

The detector first reads a frame letterboxed into its fixed 1280x736 input (a portrait frame
turned a quarter, vision/orientation.py; tiles are cut from the frame as it came). A 16:9 frame
fills it; cards far below the camera, or many small ones in a phone's frame, still reach the
network smaller than the ones it was trained on, and many are missed. When the first pass's
sure backs are small (`zoom_for`), the frame is scaled so they come out `ZOOM_TO` pixels long
and read in network-sized tiles (`tile_grid`) that overlap by more than a card. A box that an
inner tile edge cuts is dropped (`whole_in_tile`): the overlap puts that card whole in the
neighbour's tile, and a cut card's box would not overlap its whole box enough for NMS to join
them. A box of the read before that is too big for any tile to hold whole (`held_whole`) and
that the tiles found nothing inside (`holding_no_centre`) is kept from that read. The tiles'
boxes are then suppressed together, as one frame's would be.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import cv2
import numpy as np

from blitzcam.vision.detections import obb_corners

# Chosen with the shipped detector on generated tuning scenes (100 portrait 1080x1920 and 100
# 4:3 1440x1080, seed 718; models/MODEL_CARD.md has the sweep): a closer look when the median
# sure back's long side reached the network under 26 pixels, zoomed to 33. Portrait scenes went
# from 25 to 80 % counted exactly, 4:3 from 84 to 92 %; the median rather than the 90th
# percentile, as one box around a whole pile of small cards must not hide them (68 and 93 %).
ZOOM_BELOW: Final = 26.0  # network pixels: the backs' typical long side that needs a look
ZOOM_TO: Final = 33.0  # network pixels: that long side after zooming
ZOOM_PERCENTILE: Final = 50.0
ZOOM_MIN_BACKS: Final = 3  # fewer sure backs say too little about the cards' size
# The backs judged are those from this detector confidence, under the line a back counts from
# (0.45): a tilted phone's portrait frame, read turned, finds its near, large cards surely and
# its far, small ones barely, and the sure ones alone put the median above the line. From 0.25:
# portrait tuning scenes (seed 718) 79 -> 82 % exact, seed 717 82 -> 83 %; 16:9 tuning (4242)
# 96.67 -> 96.00 %, 4:3 (718) and the 400 held-out unchanged (92, 96.75 %). From 0.1: 81 %.
ZOOM_SIZED_FROM: Final = 0.25
TILE_OVERLAP: Final = 192  # zoomed pixels; raised to fit the largest back whole (see tile_grid)
MAX_TILES: Final = 12  # a bound on the time a look can take (about 12 forward passes)
MAX_LOOKS: Final = 2  # closer looks after the first pass (each one can ask for one more)
CLOSER_BY: Final = 1.1  # a look less than this much closer than the last is not worth taking
# A frame that fills less than this share of the network input once letterboxed (a portrait
# frame fills 32 %, 4:3 77 %) may hide cards too small for the first pass to find
# any: with too few sure backs to judge by, it is read again in tiles, covering the input
# (`explore_zoom`). The lines were chosen with portrait frames read upright at first; now their
# first read is turned and fills the input, but one that finds too few sure backs is still
# explored, as the frame came (1080x1920 at 1.19x, well closer than the turned read's 0.67x).
EXPLORE_BELOW_FILL: Final = 0.5
# A frame narrower than this holds no card to look for (the smallest drawings counted are
# 14 x 23 px): exploring a 1 x 500 strip read it in 12 tiles for nothing.
MIN_EXPLORED_SIDE: Final = 32
EDGE_MARGIN: Final = 2.0  # pixels: a box this near an inner tile edge counts as cut by it


@dataclass(frozen=True, slots=True)
class Tile:
    """One network-sized window of the zoomed frame: its top-left corner and its size."""

    y0: int
    x0: int
    height: int
    width: int


def zoom_for(
    long_sides: np.ndarray,
    gain: float,
    *,
    below: float = ZOOM_BELOW,
    to: float = ZOOM_TO,
    percentile: float = ZOOM_PERCENTILE,
    min_backs: int = ZOOM_MIN_BACKS,
) -> float | None:
    """The scale (zoomed pixels per frame pixel) for a closer look, or None when none is needed.

    `long_sides`: the first pass's sure backs' long sides in frame pixels; `gain`: network pixels
    per frame pixel in that pass (the letterbox's)."""
    sides = np.asarray(long_sides, dtype=np.float64).reshape(-1)
    if len(sides) < min_backs or gain <= 0:
        return None
    typical = float(np.percentile(sides, percentile)) * gain
    if typical <= 0 or typical >= below:
        return None
    return gain * to / typical


def explore_zoom(
    frame_hw: tuple[int, int],
    network_hw: tuple[int, int],
    *,
    below_fill: float = EXPLORE_BELOW_FILL,
) -> float | None:
    """The scale at which the frame covers the network input (its other side running on over
    more tiles), for a frame that fills less than `below_fill` of it letterboxed; else None."""
    if min(frame_hw) < MIN_EXPLORED_SIDE:
        return None
    fit = min(network_hw[0] / frame_hw[0], network_hw[1] / frame_hw[1])
    fill = (frame_hw[0] * fit) * (frame_hw[1] * fit) / (network_hw[0] * network_hw[1])
    if fill >= below_fill:
        return None
    return max(network_hw[0] / frame_hw[0], network_hw[1] / frame_hw[1])


def window_starts(size: int, window: int, overlap: int) -> tuple[int, ...]:
    """Starts of the fewest windows of `window` pixels that cover `size`, neighbours overlapping
    by at least `overlap`, spread evenly with the first at 0 and the last ending at `size`."""
    if size <= window:
        return (0,)
    if not 0 <= overlap < window:
        raise ValueError(f"window_starts: overlap {overlap} must be in [0, window {window})")
    count = math.ceil((size - overlap) / (window - overlap))
    return tuple(round(i * (size - window) / (count - 1)) for i in range(count))


def tile_grid(
    image_hw: tuple[int, int], tile_hw: tuple[int, int], overlap: int
) -> tuple[Tile, ...]:
    """Tiles of `tile_hw` (clipped at the image's edges) covering an image of `image_hw`."""
    height, width = image_hw
    tile_h, tile_w = tile_hw
    overlap = min(overlap, tile_h - 1, tile_w - 1)
    return tuple(
        Tile(y0, x0, min(tile_h, height - y0), min(tile_w, width - x0))
        for y0 in window_starts(height, tile_h, overlap)
        for x0 in window_starts(width, tile_w, overlap)
    )


def tile_overlap(largest_side: float, tile_hw: tuple[int, int]) -> int:
    """The overlap that puts a card of `largest_side` zoomed pixels whole in some tile (with room
    to spare), never under TILE_OVERLAP and never over half the tile's shorter side."""
    wanted = max(TILE_OVERLAP, math.ceil(1.25 * largest_side) + 2 * math.ceil(EDGE_MARGIN))
    return min(wanted, min(tile_hw) // 2)


def fitted_zoom(
    scale: float,
    frame_hw: tuple[int, int],
    tile_hw: tuple[int, int],
    largest_side: float,
    *,
    max_tiles: int = MAX_TILES,
) -> float:
    """`scale`, lowered as little as needed for the zoomed frame to take at most `max_tiles`."""
    while scale > 0:
        zoomed = zoomed_size(frame_hw, scale)
        overlap = tile_overlap(largest_side * scale, tile_hw)
        if len(tile_grid(zoomed, tile_hw, overlap)) <= max_tiles:
            return scale
        scale *= 0.95
    raise ValueError(f"fitted_zoom: no positive scale fits {max_tiles} tiles")  # pragma: no cover


def zoomed_size(frame_hw: tuple[int, int], scale: float) -> tuple[int, int]:
    """(height, width) of the frame scaled by `scale` (at least 1x1)."""
    return max(1, round(frame_hw[0] * scale)), max(1, round(frame_hw[1] * scale))


def whole_in_tile(
    obb: np.ndarray, tile: Tile, image_hw: tuple[int, int], *, margin: float = EDGE_MARGIN
) -> np.ndarray:
    """Mask of the boxes (xywhr in the tile's pixels) that no inner edge of the tile cuts.

    An edge on the image's border cuts nothing: the card there is as whole as the frame shows."""
    corners = obb_corners(obb)
    keep = np.ones(len(corners), dtype=bool)
    if not len(corners):
        return keep
    low = corners.min(axis=1)
    high = corners.max(axis=1)
    height, width = image_hw
    if tile.x0 > 0:
        keep &= low[:, 0] > margin
    if tile.x0 + tile.width < width:
        keep &= high[:, 0] < tile.width - margin
    if tile.y0 > 0:
        keep &= low[:, 1] > margin
    if tile.y0 + tile.height < height:
        keep &= high[:, 1] < tile.height - margin
    return keep


def held_whole(
    obb: np.ndarray, scale: float, overlap: int, *, margin: float = EDGE_MARGIN
) -> np.ndarray:
    """Mask of the boxes (xywhr, frame pixels) that some tile of a grid whose neighbours overlap
    by `overlap` holds whole once the frame is zoomed by `scale`: their upright extent fits in
    the overlap. The others may be cut by an inner edge in every tile that shows them (a close
    card in a frame explored for small ones, a face-up card bigger than any back) and be lost,
    so the read before keeps them."""
    corners = obb_corners(obb)
    if not len(corners):
        return np.ones(0, dtype=bool)
    extent = (corners.max(axis=1) - corners.min(axis=1)) * scale
    return np.all(extent <= overlap - 2 * margin, axis=1)


def holding_no_centre(obb: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Mask of the boxes `obb` (xywhr) inside which no box of `others` (xywhr) has its centre.

    A box of the read before that the tiles could not hold is kept only where they found
    nothing in it: a close card that every tile cut, not one box around a whole pile of small
    cards that the tiles then found one by one."""
    obb = np.asarray(obb, np.float64).reshape(-1, 5)
    centres = np.asarray(others, np.float64).reshape(-1, 5)[:, :2]
    if not len(obb) or not len(centres):
        return np.ones(len(obb), dtype=bool)
    offset = centres[None, :, :] - obb[:, None, :2]  # (boxes, centres, 2)
    cos, sin = np.cos(obb[:, 4:5]), np.sin(obb[:, 4:5])
    along = offset[..., 0] * cos + offset[..., 1] * sin
    across = -offset[..., 0] * sin + offset[..., 1] * cos
    inside = (np.abs(along) <= obb[:, 2:3] / 2) & (np.abs(across) <= obb[:, 3:4] / 2)
    return ~inside.any(axis=1)


def to_frame(obb: np.ndarray, tile: Tile, scale: float) -> np.ndarray:
    """xywhr boxes in a tile's pixels -> frame pixels (a new array; the angle is unchanged)."""
    out = np.array(obb, dtype=np.float32, copy=True).reshape(-1, 5)
    out[:, 0] += tile.x0
    out[:, 1] += tile.y0
    out[:, :4] /= scale
    return out


def zoom_image(frame_bgr: np.ndarray, scale: float) -> np.ndarray:
    """The frame scaled by `scale` (area-averaged when shrinking, as a camera would see it)."""
    height, width = zoomed_size(frame_bgr.shape[:2], scale)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(frame_bgr, (width, height), interpolation=interpolation)
