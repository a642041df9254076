"""Drawings of no deck: which boxes are cut, where a face-up card's middle is, the cut is pure
and cached by what it depends on."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from blitzcam.datasets.art import SYMBOL_SIZE
from blitzcam.datasets.scene import CLASS_BACK, CLASS_FACE
from blitzcam.models.identity_negatives import (
    cut_negatives,
    face_middle,
    load_negatives,
    off_back,
    save_negatives,
    scene_negatives,
    settings_tag,
)
from blitzcam.models.metrics import SceneTruth
from blitzcam.vision.detections import obb_corners
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
            square(310, 100, 40),  # on the second, shifted a quarter
            square(500, 500, 40),  # on nothing
            square(135, 100, 40),  # an eighth of it on the first back
            square(110, 110, 20),  # wholly inside the first (IoU only 0.25): part of a drawing
        ]
    )
    assert list(off_back(boxes, backs)) == [2]
    assert list(off_back(boxes, backs, share=0.2)) == [2, 3]
    assert list(off_back(boxes, backs[:0])) == [0, 1, 2, 3, 4]  # no backs: every box
    assert off_back(boxes[:0], backs).shape == (0,)


def test_a_face_up_cards_middle_is_a_symbol_sized_square_at_its_centre() -> None:
    import cv2

    for turn in (0, 30, 90, 135):
        card = obb_corners(np.float32([[126, 200, 52, 81, np.deg2rad(turn)]]))[0]
        middle = face_middle(card)
        np.testing.assert_allclose(middle.mean(axis=0), (126, 200), atol=1e-3)
        sides = np.linalg.norm(np.roll(middle, 1, axis=0) - middle, axis=1)
        np.testing.assert_allclose(sides, SYMBOL_SIZE * 52, rtol=1e-4)  # of the short side
        # turned with the card: its sides run along the card's
        edge = card[1] - card[0]
        along = middle[1] - middle[0]
        cosine = abs(edge @ along) / np.linalg.norm(edge) / np.linalg.norm(along)
        assert cosine == pytest.approx(1, abs=1e-4) or cosine == pytest.approx(0, abs=1e-4)
        assert cv2.pointPolygonTest(card.reshape(-1, 1, 2), tuple(map(float, middle[0])), False) > 0


def test_a_scene_gives_its_off_back_boxes_then_its_face_up_middles() -> None:
    frame = np.full((400, 600, 3), 255, np.uint8)
    frame[290:340, 10:60] = (0, 0, 200)  # the stray box's spot: red
    frame[200:280, 300:380] = (200, 0, 0)  # the first face-up card: blue
    frame[50:130, 450:530] = (0, 160, 0)  # the second: green
    truth = truth_of([square(100, 100, 40)], [square(300, 200, 80), square(450, 50, 80)])
    detected = np.stack([square(101, 100, 40), square(20, 300, 30)])
    patches = scene_negatives(frame, detected, truth, np.random.default_rng(1))
    assert patches.shape == (3, PATCH, PATCH, 3) and patches.dtype == np.uint8
    means = patches.reshape(3, -1, 3).mean(axis=1)
    assert means.argmax(axis=1).tolist() == [2, 0, 1]  # red, blue, green: in that order
    no_faces = truth_of([square(100, 100, 40)], [])
    empty = scene_negatives(frame, detected[:1], no_faces, np.random.default_rng(0))
    assert empty.shape == (0, PATCH, PATCH, 3)


def test_the_cut_is_pure_in_each_scene_and_the_seed(tmp_path: Path) -> None:
    frames = {
        Path(f"{i:06d}.jpg"): np.random.default_rng(i).integers(0, 255, (300, 400, 3), np.uint8)
        for i in range(3)
    }
    truth = truth_of([square(50, 50, 40)], [square(200, 100, 80)])
    scenes = [(p.stem, p, truth) for p in frames]

    def backs(frame: np.ndarray) -> np.ndarray:
        return np.stack([square(50, 50, 40), square(300, 200, 30)])

    def cut(seed: int, chosen: list[tuple[str, Path, SceneTruth]] = scenes) -> np.ndarray:
        return cut_negatives(chosen, backs, seed=seed, read_image=frames.__getitem__)

    first = cut(4)
    assert first.shape == (6, PATCH, PATCH, 3)  # per scene: one off-back box, one face
    np.testing.assert_array_equal(first, cut(4))
    assert not np.array_equal(first, cut(5))  # the face boxes' jitter follows the seed
    # a scene's patches do not depend on which scenes come before it
    np.testing.assert_array_equal(cut(4, scenes[2:]), first[4:])
    save_negatives(tmp_path / "n.npz", first)
    np.testing.assert_array_equal(load_negatives(tmp_path / "n.npz"), first)
    none = cut_negatives([], backs, seed=0, read_image=frames.__getitem__)
    assert none.shape == (0, PATCH, PATCH, 3)


def test_a_cut_is_named_by_its_detector_and_settings() -> None:
    tag = settings_tag("a" * 64, 0.5)
    assert tag == settings_tag("a" * 64, 0.5) and len(tag) == 12
    assert tag != settings_tag("b" * 64, 0.5)
    assert tag != settings_tag("a" * 64, 0.7)


@pytest.mark.slow
def test_the_recipes_negatives_are_built_once_into_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from blitzcam.errors import UserError
    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import check_negatives_source, training_negatives
    from blitzcam.vision.pipeline import default_model_path

    recipe = replace(
        IdentityRecipe(), negatives_per_step=8, negative_seeds=(11, 12), negative_scenes=3
    )
    first = training_negatives(recipe, tmp_path, default_model_path())
    assert first.ndim == 4 and first.shape[1:] == (PATCH, PATCH, 3)
    assert len(first) > 0  # three scenes hold face-up cards or stray boxes
    cuts = sorted(p.name for p in (tmp_path / "negatives").glob("*.npz"))
    assert len(cuts) == 2 and all(name.startswith("negatives-seed1") for name in cuts)

    def never(*_: object, **__: object) -> None:
        raise AssertionError("built again")

    with monkeypatch.context() as built:
        built.setattr("blitzcam.datasets.generate.generate_dataset", never)
        built.setattr("blitzcam.models.identity_negatives.cut_negatives", never)
        np.testing.assert_array_equal(training_negatives(recipe, tmp_path, default_model_path()), first)
    # the detector `check_negatives_source` opened is the one that cuts (in a fresh run
    # folder, where nothing is cut yet), not one opened again
    opened = check_negatives_source(recipe, default_model_path())
    with monkeypatch.context() as cutting:
        cutting.setattr("blitzcam.vision.detector.Detector", never)
        again = training_negatives(recipe, tmp_path / "fresh", default_model_path(), opened)
    np.testing.assert_array_equal(again, first)
    monkeypatch.setattr("blitzcam.datasets.generate.generate_dataset", never)
    monkeypatch.setattr("blitzcam.models.identity_negatives.cut_negatives", never)
    for unused in (replace(recipe, negatives_per_step=0), replace(recipe, reject_steps=0)):
        none = training_negatives(unused, tmp_path / "x", Path("-"))
        assert none.shape == (0, PATCH, PATCH, 3) and not (tmp_path / "x").exists()
    with pytest.raises(UserError, match=r"missing\.onnx: no such detector model file"):
        training_negatives(recipe, tmp_path / "y", tmp_path / "missing.onnx")


@pytest.mark.parametrize(
    ("model", "said"),
    [("missing.onnx", r"BLITZCAM_MODEL=.*missing\.onnx: no such file \(unset it for the shipped "),
     ("empty.onnx", r"empty\.onnx: cannot load the ONNX model")],
)
def test_a_detector_that_cannot_cut_negatives_is_said_before_the_drawings_are_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    model: str, said: str,
) -> None:
    # (found only after drawings were cut from 7,500 scenes, or after its scenes were made)
    from blitzcam.cli import main
    from blitzcam.models import identity_training

    (tmp_path / "empty.onnx").write_bytes(b"")
    monkeypatch.setenv("BLITZCAM_MODEL", str(tmp_path / model))
    cut: list[object] = []
    monkeypatch.setattr(identity_training, "training_data", lambda *a, **k: cut.append(a))
    argv = ["train-identity", "--run", str(tmp_path / "run"), "--negatives-per-step", "4"]
    assert main(argv) == 2
    assert re.search(said, capsys.readouterr().err) and not cut
    assert not (tmp_path / "run").exists()
