"""Scene composition: labels agree with the rendered pixels; the visible-drawing rule holds."""

from __future__ import annotations

from types import ModuleType

import cv2
import numpy as np
import pytest

from blitzcam.datasets.compose import (
    MIN_DRAWING_VISIBLE,
    MIN_FACE_VISIBLE,
    ArtCache,
    Piece,
    SceneConfig,
    compose_scene,
    owner_buffer,
    place,
    visible_part,
)
from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE, Scene
from blitzcam.game.decks import DECK_NAMES

SEEDS = range(10)


def _scene(
    art: ModuleType, seed: int, *, photometric: bool = True, size: tuple[int, int] = (1280, 720)
) -> Scene:
    config = SceneConfig(size, tuple(art.RANDOM_FAMILIES), photometric=photometric)
    return compose_scene(np.random.default_rng(seed), config, ArtCache(art))


@pytest.fixture(scope="module")
def clean_scenes(standin_art: ModuleType) -> list[Scene]:
    """Stand-in art (magenta drawings), no camera effects: ink is findable by colour."""
    return [_scene(standin_art, seed, photometric=False) for seed in SEEDS]


def _ink(image: np.ndarray) -> np.ndarray:
    """The stand-in's ink, (255, 0, 255) dimmed at most ~10 % by a card's tint."""
    r, g, b = (image[..., i].astype(int) for i in range(3))
    return (r >= 200) & (b >= 200) & (g <= 60) & (abs(r - b) <= 25)


def _boxes_mask(scene: Scene, cls: int, *, grow: int) -> np.ndarray:
    mask = np.zeros(scene.image.shape[:2], np.uint8)
    for obj in scene.objects:
        if obj.cls == cls:
            cv2.fillConvexPoly(mask, np.round(obj.polygon - 0.5).astype(np.int32), 1)
    if grow:
        mask = cv2.dilate(mask, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    return mask.astype(bool)


def test_every_ink_pixel_lies_in_a_back_box(clean_scenes: list[Scene]) -> None:
    """No drawing is in the picture without a label (the counting ground truth is complete)."""
    for seed, scene in zip(SEEDS, clean_scenes, strict=True):
        ink = _ink(scene.image)
        inside = _boxes_mask(scene, CLASS_BACK, grow=2)
        stray = ink & ~inside
        assert stray.sum() <= max(5, 0.002 * ink.sum()), f"seed {seed}: {stray.sum()} stray ink px"


def test_every_back_box_holds_its_drawing(clean_scenes: list[Scene]) -> None:
    """Each back's box is tight around ink (the stand-in drawings are solid shapes)."""
    for seed, scene in zip(SEEDS, clean_scenes, strict=True):
        ink = _ink(scene.image)
        for obj in scene.objects:
            if obj.cls != CLASS_BACK:
                continue
            box = np.zeros(ink.shape, np.uint8)
            cv2.fillConvexPoly(box, np.round(obj.polygon - 0.5).astype(np.int32), 1)
            area = int(box.sum())
            share = ink[box.astype(bool)].sum() / max(area, 1)
            assert share > 0.3, f"seed {seed}: box {obj.polygon.tolist()} only {share:.0%} ink"


@pytest.mark.parametrize("seed", SEEDS)
def test_visible_rule_and_frame(seed: int) -> None:
    """Real art and camera effects: every back shows >= 60 % of its drawing, every face
    >= 50 % of itself, every label lies in the frame, decks named as the brief says."""
    from blitzcam.datasets import art

    size = (1920, 1080) if seed % 2 else (1280, 720)
    scene = _scene(art, seed, size=size)
    assert scene.image.shape == (size[1], size[0], 3)
    for obj in scene.objects:
        assert obj.polygon.min() >= 0
        assert (obj.polygon[:, 0] <= size[0]).all() and (obj.polygon[:, 1] <= size[1]).all()
        if obj.cls == CLASS_BACK:
            assert obj.visible >= MIN_DRAWING_VISIBLE
            assert obj.deck in DECK_NAMES or obj.deck.startswith("unknown:")
        else:
            assert obj.cls == CLASS_FACE and obj.deck is None
            assert obj.visible >= MIN_FACE_VISIBLE
    assert 55 <= scene.jpeg_quality <= 95


def test_same_seed_same_scene() -> None:
    from blitzcam.datasets import art

    a, b = _scene(art, 11), _scene(art, 11)
    assert np.array_equal(a.image, b.image)
    assert [o.polygon.tolist() for o in a.objects] == [o.polygon.tolist() for o in b.objects]


def _card(width: int, drawing: bool) -> tuple[np.ndarray, np.ndarray | None]:
    rgba = np.full((int(width * 1.5), width, 4), 255, np.uint8)
    mask = np.zeros(rgba.shape[:2], bool)
    mask[rgba.shape[0] // 4 : rgba.shape[0] * 3 // 4, width // 4 : width * 3 // 4] = True
    return rgba, (mask if drawing else None)


@pytest.mark.parametrize(
    ("offset", "expected"),
    [
        (30, 1.0),  # the top card lies clear of the lower one's drawing
        (20, 0.5),  # covers the right half of the lower card's drawing (a row with overlap)
        (10, 0.0),  # covers all of it
    ],
)
def test_owner_buffer_gives_exact_visible_drawing(offset: int, expected: float) -> None:
    rgba, drawing = _card(40, True)
    lower = place(Piece(rgba, drawing, (50.0, 50.0), 0.0, CLASS_BACK))
    upper = place(Piece(rgba, drawing, (50.0 + offset, 50.0), 0.0, CLASS_BACK))
    owner = owner_buffer([lower, upper], [0, 1], (200, 120))
    in_frame = np.ones((120, 200), bool)
    fraction = visible_part(lower, 0, owner, in_frame)[0]
    assert fraction == pytest.approx(expected, abs=0.06)
    assert visible_part(upper, 1, owner, in_frame)[0] == pytest.approx(1.0, abs=0.02)


def test_frame_edge_counts_as_hidden() -> None:
    rgba, drawing = _card(40, True)
    card = place(Piece(rgba, drawing, (50.0, 50.0), 0.0, CLASS_BACK))
    owner = owner_buffer([card], [0], (200, 120))
    in_frame = np.ones((120, 200), bool)
    in_frame[:, 50:] = False  # the frame ends through the drawing's middle
    assert visible_part(card, 0, owner, in_frame)[0] == pytest.approx(0.5, abs=0.06)


def test_hand_on_top_hides_like_a_card() -> None:
    """Clutter above the cards (a hand) owns its pixels too: the card under it loses them."""
    rgba, drawing = _card(40, True)
    card = place(Piece(rgba, drawing, (50.0, 50.0), 0.0, CLASS_BACK))
    hand = np.full((80, 40, 4), 255, np.uint8)
    cover = place(Piece(hand, None, (70.0, 50.0), 0.0, None))  # left edge at x = 50
    owner = owner_buffer([card, cover], [0, -2], (200, 120))
    fraction = visible_part(card, 0, owner, np.ones((120, 200), bool))[0]
    assert fraction == pytest.approx(0.5, abs=0.06)


def test_each_label_lies_on_its_own_whole_card(clean_scenes: list[Scene]) -> None:
    """The whole-card outline (kept for the label-geometry benchmark) surrounds the label."""
    import cv2

    for seed, scene in zip(SEEDS, clean_scenes, strict=True):
        for obj in scene.objects:
            assert obj.card is not None and obj.card.shape == (4, 2)
            outline = obj.card.astype(np.float32)
            # the label boxes a visible part of this card: its centre lies on the card (its
            # corners may not: the min-area box of an L-shaped visible part can stick out)
            cx, cy = obj.polygon.mean(axis=0)
            assert cv2.pointPolygonTest(outline, (float(cx), float(cy)), False) >= 0, seed
            share = abs(cv2.contourArea(obj.polygon.astype(np.float32))) / cv2.contourArea(outline)
            if obj.cls == 0:
                assert share < 0.5, seed  # a drawing is about half the card's width
            else:
                assert 0.45 < share < 1.2, seed  # at least half a face-up card shows
