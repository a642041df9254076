"""vision/tiling.py: when to look closer, the tiles that cover a zoomed frame, and their boxes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blitzcam.vision.decode import Decoded, suppress
from blitzcam.vision.tiling import (
    MAX_TILES,
    TILE_OVERLAP,
    ZOOM_BELOW,
    ZOOM_TO,
    Tile,
    explore_zoom,
    fitted_zoom,
    held_whole,
    holding_no_centre,
    tile_grid,
    tile_overlap,
    to_frame,
    whole_in_tile,
    window_starts,
    zoom_for,
    zoom_image,
)

NETWORK_HW = (736, 1280)


@pytest.mark.parametrize(
    ("sides", "gain", "expected"),
    [
        # portrait phone: 60 px cards, letterboxed at 736/1920 -> 23 network px: zoomed
        ([60.0] * 10, 736 / 1920, 736 / 1920 * ZOOM_TO / (60 * 736 / 1920)),
        # 16:9 at 1280/1920: 60 px cards reach the network at 40 px: no closer look
        ([60.0] * 10, 1280 / 1920, None),
        # the typical (median) card decides, not the smallest few ...
        ([10.0, 10.0] + [60.0] * 18, 1280 / 1920, None),
        # ... nor a few boxes each around a whole pile of small cards
        ([15.0] * 7 + [60.0] * 3, 1.0, ZOOM_TO / 15.0),
        # too few sure backs to judge the cards' size by
        ([10.0, 10.0], 1.0, None),
        ([], 1.0, None),
    ],
)
def test_a_closer_look_when_the_typical_back_is_small(sides, gain, expected) -> None:
    got = zoom_for(np.array(sides), gain)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected)
        assert np.median(sides) * got == pytest.approx(ZOOM_TO)  # the typical back: ZOOM_TO long


def test_just_under_the_line_zooms_and_at_it_does_not() -> None:
    assert zoom_for(np.full(5, ZOOM_BELOW - 0.01), 1.0) is not None
    assert zoom_for(np.full(5, ZOOM_BELOW), 1.0) is None


@pytest.mark.parametrize(
    ("size", "window", "overlap"),
    [(1920, 1280, 192), (1281, 1280, 192), (5000, 736, 300), (1280, 1280, 0), (10, 1280, 192)],
)
def test_windows_cover_the_size_and_overlap_enough(size: int, window: int, overlap: int) -> None:
    starts = window_starts(size, window, overlap)
    assert starts[0] == 0
    assert min(starts[-1] + window, max(size, window)) >= size  # the last reaches the end
    if size > window:
        assert starts[-1] + window == size  # ... and no further: no padded tile
        gaps = np.diff(starts)
        assert (window - gaps >= overlap).all()
        # the fewest: one window fewer would leave too little overlap
        fewer = len(starts) - 1
        assert fewer < 2 or (size - window) / (fewer - 1) > window - overlap


def test_an_overlap_as_large_as_the_window_is_refused() -> None:
    with pytest.raises(ValueError, match="overlap 1280 must be in"):
        window_starts(3000, 1280, 1280)


def test_tiles_cover_every_pixel_and_clip_at_the_edges() -> None:
    tiles = tile_grid((2000, 1500), NETWORK_HW, TILE_OVERLAP)
    covered = np.zeros((2000, 1500), dtype=np.int32)
    for tile in tiles:
        assert tile.height <= NETWORK_HW[0] and tile.width <= NETWORK_HW[1]
        covered[tile.y0 : tile.y0 + tile.height, tile.x0 : tile.x0 + tile.width] += 1
    assert covered.min() >= 1
    assert len(tiles) == 4 * 2  # rows every 544 px or less, columns every 1088


def test_a_frame_smaller_than_a_tile_is_one_tile() -> None:
    assert tile_grid((500, 900), NETWORK_HW, TILE_OVERLAP) == (Tile(0, 0, 500, 900),)


def test_the_overlap_grows_to_fit_the_largest_card_within_half_a_tile() -> None:
    assert tile_overlap(40.0, NETWORK_HW) == TILE_OVERLAP
    assert tile_overlap(200.0, NETWORK_HW) == 254  # 1.25 x 200 + twice the edge margin
    assert tile_overlap(2000.0, NETWORK_HW) == 368


def test_the_zoom_is_lowered_to_fit_the_tile_budget() -> None:
    frame_hw = (4000, 3000)
    scale = fitted_zoom(2.0, frame_hw, NETWORK_HW, largest_side=30.0)
    assert scale < 2.0

    def tiles_at(s: float) -> int:
        zoomed = (round(4000 * s), round(3000 * s))
        return len(tile_grid(zoomed, NETWORK_HW, tile_overlap(30 * s, NETWORK_HW)))

    assert tiles_at(scale) <= MAX_TILES
    assert tiles_at(scale / 0.95) > MAX_TILES  # lowered no further than needed
    assert fitted_zoom(0.5, (1920, 1080), NETWORK_HW, largest_side=30.0) == 0.5


def _box(cx: float, cy: float, w: float = 40.0, h: float = 60.0, angle: float = 0.0) -> list:
    return [cx, cy, w, h, angle]


@pytest.mark.parametrize(
    ("box", "tile", "kept"),
    [
        # inside a middle tile
        (_box(300, 300), Tile(500, 500, 736, 1280), True),
        # cut by the tile's left edge, which lies inside the image
        (_box(10, 300), Tile(500, 500, 736, 1280), False),
        # the same place in the image's first column: the image's own edge cuts nothing
        (_box(10, 300), Tile(0, 0, 736, 1280), True),
        # cut by the right edge of a tile with more image to its right
        (_box(1270, 300), Tile(0, 0, 736, 1280), False),
        # ... and of the last tile: the image ends there
        (_box(1270, 300), Tile(0, 720, 736, 1280), True),
        # a box turned 45 degrees reaches further than its centre and sides suggest
        (_box(1245, 300, 40, 60, math.pi / 4), Tile(0, 0, 736, 1280), False),
        (_box(1245, 300, 40, 60, 0.0), Tile(0, 0, 736, 1280), True),
        # cut by a bottom edge inside the image
        (_box(300, 720), Tile(0, 0, 736, 1280), False),
    ],
)
def test_boxes_cut_by_an_inner_tile_edge_are_dropped(box, tile: Tile, kept: bool) -> None:
    image_hw = (736 * 2, 2000)
    assert whole_in_tile(np.array([box], np.float32), tile, image_hw).tolist() == [kept]


def test_no_boxes_keeps_nothing() -> None:
    mask = whole_in_tile(np.zeros((0, 5), np.float32), Tile(0, 0, 10, 10), (20, 20))
    assert mask.shape == (0,)


def test_a_box_bigger_than_the_overlap_once_zoomed_is_not_held_whole() -> None:
    boxes = np.array(
        [[500, 500, 100, 60, 0.0], [500, 500, 200, 60, 0.0], [500, 500, 60, 200, np.pi / 2]],
        np.float32,
    )  # the third is 200 long but turned upright: 60 wide, 200 tall -> 200 across x again
    # zoomed 1.5x with tiles overlapping by 200: 150 px fits, 300 px does not
    assert held_whole(boxes, 1.5, 200).tolist() == [True, False, False]
    assert held_whole(np.zeros((0, 5), np.float32), 1.5, 200).shape == (0,)


def test_tile_boxes_go_back_to_frame_pixels() -> None:
    frame_box = np.array([[500.0, 400.0, 30.0, 50.0, 0.3]], np.float32)
    scale = 1.6
    tile = Tile(y0=200, x0=480, height=736, width=1280)
    in_tile = frame_box.copy()
    in_tile[:, :4] *= scale
    in_tile[:, 0] -= tile.x0
    in_tile[:, 1] -= tile.y0
    np.testing.assert_allclose(to_frame(in_tile, tile, scale), frame_box, rtol=1e-6)
    assert in_tile[0, 0] != frame_box[0, 0]  # to_frame made a new array


def test_one_card_seen_by_two_tiles_is_one_box() -> None:
    # the same card, as two overlapping tiles report it (a pixel apart), and a neighbour
    both = Decoded(
        obb=np.array([_box(700, 300), _box(700.8, 300.5), _box(760, 300)], np.float32),
        score=np.array([0.9, 0.8, 0.85], np.float32),
        class_id=np.array([0, 0, 0]),
    )
    kept = suppress(both, iou=0.5)
    assert kept.score.tolist() == pytest.approx([0.9, 0.85])


def test_zooming_resizes_by_the_scale() -> None:
    frame = np.zeros((1920, 1080, 3), np.uint8)
    assert zoom_image(frame, 0.75).shape == (1440, 810, 3)
    assert zoom_image(frame, 1.5).shape == (2880, 1620, 3)


@pytest.mark.parametrize(
    ("frame_hw", "expected"),
    [
        ((1920, 1080), 1280 / 1080),  # portrait phone: fills 32 % letterboxed; covers at 1.19
        ((1080, 1440), None),  # 4:3 fills 77 %
        ((1080, 1920), None),  # 16:9 fills it all
        ((4000, 1000), 1280 / 1000),  # a tall strip
    ],
)
def test_a_frame_that_fills_little_of_the_input_is_explored_covering_it(
    frame_hw, expected
) -> None:
    got = explore_zoom(frame_hw, NETWORK_HW)
    assert got == (None if expected is None else pytest.approx(expected))


class _TilesSeeCards:
    """A detector that sees `cards` (xywhr upright, frame pixels) as backs: in each tile, the
    part of each card inside it (a card cut by a tile is a cut box, which `whole_in_tile`
    then drops)."""

    def __init__(self, cards: np.ndarray) -> None:
        from types import SimpleNamespace

        self.cards = cards
        self.info = SimpleNamespace(imgsz=NETWORK_HW)
        self.iou, self.max_det, self.names = 0.7, 300, ("back", "face")

    def prepare_tile(self, zoomed: np.ndarray, tile: Tile) -> Tile:
        return tile

    def forward(self, tile: Tile) -> Tile:
        return tile

    def decode_tile(
        self, tile: Tile, _: Tile, zoomed_hw: tuple[int, int], scale: float
    ) -> Decoded:
        seen = []
        for cx, cy, w, h in self.cards[:, :4] * scale:
            x0, x1 = max(cx - w / 2, tile.x0), min(cx + w / 2, tile.x0 + tile.width)
            y0, y1 = max(cy - h / 2, tile.y0), min(cy + h / 2, tile.y0 + tile.height)
            if x1 > x0 and y1 > y0:
                seen.append([(x0 + x1) / 2 - tile.x0, (y0 + y1) / 2 - tile.y0, x1 - x0, y1 - y0, 0])
        boxes = np.array(seen, np.float32).reshape(-1, 5)
        boxes = boxes[whole_in_tile(boxes, tile, zoomed_hw)]
        return Decoded(
            obb=to_frame(boxes, tile, scale),
            score=np.full(len(boxes), 0.9, np.float32),
            class_id=np.zeros(len(boxes), np.int64),
        )

    def merge_tiles(self, found: list[Decoded]) -> object:
        from blitzcam.vision.detector import Detector

        return Detector.merge_tiles(self, found)  # type: ignore[arg-type]


def _closer_look(cards: np.ndarray, first_read: np.ndarray) -> tuple[np.ndarray, int]:
    """What a portrait frame's closer look finds (boxes, tiles read) when the tiles see `cards`
    and the first read found `first_read` (both xywhr, frame pixels)."""
    from blitzcam.vision.detections import Detections
    from blitzcam.vision.pipeline import CountingPipeline

    pipeline = object.__new__(CountingPipeline)  # only the closer look is used
    pipeline.zoom_below, pipeline.zoom_to, pipeline.sized_from = ZOOM_BELOW, ZOOM_TO, 0.25
    pipeline.detector = _TilesSeeCards(cards)
    first = Detections.from_obb(
        first_read,
        np.full(len(first_read), 0.9, np.float32),
        np.zeros(len(first_read), np.int64),
        class_names=("back", "face"),
    )
    read_at = min(NETWORK_HW[0] / 1080, NETWORK_HW[1] / 1920)  # the turned first read's
    found, tiles = pipeline._look_closer(np.zeros((1920, 1080, 3), np.uint8), first, read_at, {})
    return found.obb, tiles


def test_a_close_card_in_a_frame_explored_in_tiles_is_not_lost() -> None:
    # a portrait frame whose first read finds one close card (300 x 420 px) is explored for
    # small ones in tiles overlapping by at most half a tile: too little for that card, which
    # every tile showing it cut, so the look lost it wherever an inner edge crossed it (15 of
    # 71 places); the first read's box is kept instead
    counted = []
    for row in range(260, 1661, 20):
        card = np.array([[540.0, float(row), 300.0, 420.0, 0.0]], np.float32)
        found, tiles = _closer_look(card, card)
        assert tiles > 1  # explored
        counted.append(len(found))
    assert counted == [1] * len(counted)


def test_one_box_around_a_pile_the_tiles_then_read_card_by_card_is_not_kept() -> None:
    # the first read's box around a whole pile of small cards is as big as a close card, but
    # the tiles find the pile's cards inside it: they are what counts
    pile = np.array([[540.0, 1000.0, 420.0, 420.0, 0.0]], np.float32)
    cards = np.array(
        [[540.0 + dx, 1000.0 + dy, 40.0, 56.0, 0.0] for dx in (-120, 0, 120) for dy in (-90, 90)],
        np.float32,
    )
    found, _ = _closer_look(cards, pile)
    assert len(found) == len(cards)
    np.testing.assert_allclose(np.sort(found[:, 0]), np.sort(cards[:, 0]), atol=1)


def test_a_box_holding_another_s_centre_is_told_apart() -> None:
    boxes = np.array([[100, 100, 60, 20, 0.0], [300, 100, 60, 20, np.pi / 2]], np.float32)
    others = np.array([[110, 105, 5, 5, 0.0], [300, 125, 5, 5, 0.0]], np.float32)
    # the second box is turned upright: 20 wide, 60 tall, so (300, 125) lies inside it
    assert holding_no_centre(boxes, others).tolist() == [False, False]
    assert holding_no_centre(boxes, others[:1]).tolist() == [False, True]
    assert holding_no_centre(boxes, np.zeros((0, 5), np.float32)).tolist() == [True, True]
