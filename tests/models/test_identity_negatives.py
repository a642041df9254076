"""Drawings of no deck: which boxes are cut, where a face-up card's middle is, the cut is pure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE
from blitzcam.models.identity_negatives import (
    DRAWING_SHARE,
    cut_negatives,
    face_middle,
    load_negatives,
    off_back,
    save_negatives,
    scene_negatives,
)
from blitzcam.models.metrics import SceneTruth
from blitzcam.vision.embedding import PATCH


def square(x: float, y: float, side: float) -> np.ndarray:
    """(4,2) corners of an upright square with top-left (x, y)."""
    return np.float32([[x + side, y + side], [x, y + side], [x, y], [x + side, y]])


def truth_of(backs: list[np.ndarray], faces: list[np.ndarray]) -> SceneTruth:
    corners = np.array(backs + faces, np.float64).reshape(-1, 4, 2)
    classes = np.array([CLASS_BACK] * len(backs) + [CLASS_FACE] * len(faces), np.int64)
    return SceneTruth(corners, classes, tuple(["green-pump"] * len(backs) + [None] * len(faces)))


def test_only_boxes_on_no_labelled_back_are_kept() -> None:
    backs = np.stack([square(100, 100, 40), square(300, 100, 40)])
    boxes = np.stack(
        [
            square(102, 101, 40),  # on the first back
            square(310, 100, 40),  # on the second, shifted a quarter: IoU 0.6
            square(500, 500, 40),  # on nothing
            square(125, 100, 40),  # mostly off the first: IoU 0.23
        ]
    )
    assert list(off_back(boxes, backs)) == [2, 3]
    assert list(off_back(boxes, backs[:0])) == [0, 1, 2, 3]  # no backs: every box
    assert off_back(boxes[:0], backs).shape == (0,)


def test_a_face_up_cards_middle_is_where_a_drawing_would_be() -> None:
    import cv2

    card = np.float32([[152, 239], [100, 239], [100, 161], [152, 161]])  # 52 x 78, upright
    for quarter in range(4):  # the same whichever side minAreaRect calls width
        turned = np.roll(card, quarter, axis=0)
        (cx, cy), (w, h), _ = cv2.minAreaRect(face_middle(turned).reshape(-1, 1, 2))
        np.testing.assert_allclose((cx, cy), (126, 200), atol=1e-3)
        expected = sorted((52 * DRAWING_SHARE[0], 78 * DRAWING_SHARE[1]))
        np.testing.assert_allclose(sorted((w, h)), expected, atol=1e-3)


def test_a_scene_gives_its_off_back_boxes_then_its_face_up_middles() -> None:
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, (400, 600, 3), dtype=np.uint8)
    truth = truth_of([square(100, 100, 40)], [square(300, 200, 80), square(450, 50, 80)])
    detected = np.stack([square(101, 100, 40), square(20, 300, 30)])
    patches = scene_negatives(frame, detected, truth, np.random.default_rng(1))
    assert patches.shape == (3, PATCH, PATCH, 3) and patches.dtype == np.uint8
    empty = scene_negatives(frame, detected[:1], truth_of([square(100, 100, 40)], []), rng)
    assert empty.shape == (0, PATCH, PATCH, 3)


def test_the_cut_is_pure_in_the_scenes_and_seed(tmp_path: Path) -> None:
    frames = {
        Path(f"{i}.jpg"): np.random.default_rng(i).integers(0, 255, (300, 400, 3), np.uint8)
        for i in range(3)
    }
    truth = truth_of([square(50, 50, 40)], [square(200, 100, 80)])
    scenes = [(p.stem, p, truth) for p in frames]

    def backs(frame: np.ndarray) -> np.ndarray:
        return np.stack([square(50, 50, 40), square(300, 200, 30)])

    def cut(seed: int) -> np.ndarray:
        return cut_negatives(scenes, backs, seed=seed, read_image=frames.__getitem__)

    first = cut(4)
    assert first.shape == (6, PATCH, PATCH, 3)  # per scene: one off-back box, one face
    np.testing.assert_array_equal(first, cut(4))
    assert not np.array_equal(first, cut(5))  # the face boxes' jitter follows the seed
    save_negatives(tmp_path / "n.npz", first)
    np.testing.assert_array_equal(load_negatives(tmp_path / "n.npz"), first)
    none = cut_negatives([], backs, seed=0, read_image=frames.__getitem__)
    assert none.shape == (0, PATCH, PATCH, 3)


@pytest.mark.slow
def test_the_recipes_negatives_are_built_once_into_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from blitzcam.models.identity_training import IdentityRecipe, training_negatives
    from blitzcam.vision.pipeline import default_model_path

    recipe = replace(
        IdentityRecipe(), negatives_per_step=8, negative_seeds=(11, 12), negative_scenes=3
    )
    first = training_negatives(recipe, tmp_path, default_model_path())
    assert first.ndim == 4 and first.shape[1:] == (PATCH, PATCH, 3)
    assert len(first) > 0  # three scenes hold face-up cards or stray boxes
    cuts = sorted(p.name for p in (tmp_path / "negatives").glob("*.npz"))
    assert len(cuts) == 2 and all(name.startswith("negatives-seed1") for name in cuts)

    def no_generating(*_: object, **__: object) -> None:
        raise AssertionError("scenes generated again")

    monkeypatch.setattr("blitzcam.datasets.generate.generate_dataset", no_generating)
    np.testing.assert_array_equal(training_negatives(recipe, tmp_path, default_model_path()), first)
    none = training_negatives(replace(recipe, negatives_per_step=0), tmp_path / "x", Path("-"))
    assert none.shape == (0, PATCH, PATCH, 3) and not (tmp_path / "x").exists()
