from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blitzcam.models.crops import LabelledImage, crop_windows
from blitzcam.models.mining import hard_windows, load_or_mine, mistakes

BACK, FACE = 0, 1


def square(cx: float, cy: float, side: float = 40) -> np.ndarray:
    h = side / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])


def found(
    boxes: list[tuple[np.ndarray, float, int]], cards: list[tuple[np.ndarray, int]]
) -> np.ndarray:
    return mistakes(
        np.array([b for b, _, _ in boxes]).reshape(-1, 4, 2),
        np.array([c for _, c, _ in boxes], np.float64),
        np.array([k for _, _, k in boxes], np.int64),
        np.array([b for b, _ in cards]).reshape(-1, 4, 2),
        np.array([k for _, k in cards], np.int64),
        read_from=0.1,
        count_from=0.45,
    )


def test_a_counted_card_is_no_mistake() -> None:
    assert found([(square(100, 100), 0.9, BACK)], [(square(102, 100), BACK)]).shape == (0, 2)


def test_a_box_on_nothing_is_a_mistake_from_the_reading_line() -> None:
    np.testing.assert_allclose(found([(square(300, 200), 0.2, BACK)], []), [[300, 200]])
    # under the reading line the counting path never sees it
    assert found([(square(300, 200), 0.05, BACK)], []).shape == (0, 2)


def test_a_card_only_doubted_is_missed_but_its_box_is_no_extra() -> None:
    # a box between the lines lies on the card: the card is missed, the box is not clutter
    np.testing.assert_allclose(found([(square(100, 100), 0.3, BACK)], [(square(100, 100), BACK)]),
                               [[100, 100]])


def test_a_face_read_as_a_back_is_both_an_extra_back_and_a_missed_face() -> None:
    centres = found([(square(100, 100), 0.9, BACK)], [(square(100, 100), FACE)])
    np.testing.assert_allclose(centres, [[100, 100], [100, 100]])


def test_a_card_with_no_box_is_missed() -> None:
    centres = found([(square(100, 100), 0.9, BACK)],
                    [(square(100, 100), BACK), (square(500, 400), BACK)])
    np.testing.assert_allclose(centres, [[500, 400]])


def frame(width: int = 1280, height: int = 720) -> LabelledImage:
    cards = np.array([square(200, 200), square(1000, 600)])
    return LabelledImage(np.zeros((height, width, 3), np.uint8), np.zeros(2, np.int64), cards)


def test_hard_windows_hold_their_mistakes_and_are_seeded() -> None:
    centres = np.array([[640.0, 360.0], [900.0, 100.0], [100.0, 650.0]])
    windows = hard_windows(frame(), centres, np.random.default_rng(3), size=320, count=4,
                           hard_share=0.5)
    assert len(windows) == 4
    again = hard_windows(frame(), centres, np.random.default_rng(3), size=320, count=4,
                         hard_share=0.5)
    assert windows == again
    # the first two are centred on two distinct mistakes, each well inside its window
    held = [
        [x0 + 40 <= cx <= x0 + 280 and y0 + 40 <= cy <= y0 + 280 for cx, cy in centres]
        for x0, y0 in windows[:2]
    ]
    assert all(any(row) for row in held)
    assert np.array(held).any(axis=0).sum() == 2
    for x0, y0 in windows:
        assert 0 <= x0 <= 1280 - 320 and 0 <= y0 <= 720 - 320


@pytest.mark.parametrize(
    "centres",
    [
        np.empty((0, 2)),  # a scene without mistakes
        np.array([[640.0, 360.0]]),  # fewer mistakes than the share allows
    ],
)
def test_hard_windows_take_as_many_mistakes_as_there_are(centres: np.ndarray) -> None:
    windows = hard_windows(frame(), centres, np.random.default_rng(0), size=320, count=4,
                           hard_share=0.5)
    assert len(windows) == 4
    if not len(centres):  # nothing to centre on: the ordinary windows, drawn the same way
        assert windows == crop_windows(frame(), np.random.default_rng(0), size=320, count=4)
    else:
        x0, y0 = windows[0]
        assert x0 + 40 <= 640 <= x0 + 280 and y0 + 40 <= 360 <= y0 + 280


def test_the_share_never_rounds_up() -> None:
    centres = np.array([[640.0, 360.0], [900.0, 100.0]])
    # 3 crops at a share of one half: one crop on a mistake, not two
    windows = hard_windows(frame(), centres, np.random.default_rng(1), size=320, count=3,
                           hard_share=0.5)
    rest = crop_windows(frame(), np.random.default_rng(1), size=320, count=3)
    assert len(windows) == 3 and windows[0] not in rest


def test_a_mistake_reaches_its_scene_s_first_crop(tmp_path: Path) -> None:
    import cv2

    from blitzcam.models.crop_dataset import build_crop_dataset
    from blitzcam.models.recipe import SHIPPED

    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        (scenes / "images" / split).mkdir(parents=True)
        (scenes / "labels" / split).mkdir(parents=True)
        image = np.zeros((720, 1280, 3), np.uint8)
        image[590:610, 990:1010] = 255  # the mistake: a white patch far from the only card
        cv2.imwrite(str(scenes / "images" / split / "0001.jpg"), image)
        (scenes / "labels" / split / "0001.txt").write_text(
            "0 0.1 0.1 0.12 0.1 0.12 0.12 0.1 0.12\n")
    recipe = replace(SHIPPED, crops_per_scene=2)
    data_yaml = build_crop_dataset(scenes, tmp_path / "crops", recipe,
                                   mistakes={"train/0001": [[1000.0, 600.0]]}, hard_share=0.5)
    crops = data_yaml.parent / "images"
    first = cv2.imread(str(crops / "train" / "0001_c0.jpg"))
    assert first.max() > 200  # the mistake is in the hard crop
    # no mistakes recorded for the val scene: both its crops are the ordinary ones
    assert cv2.imread(str(crops / "val" / "0001_c0.jpg")).max() < 200


def test_mistakes_are_mined_once_and_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "mistakes.json"
    calls = []

    def mine() -> dict[str, list[list[float]]]:
        calls.append(1)
        return {"train/0001": [[1.0, 2.0]]}

    assert load_or_mine(path, mine) == {"train/0001": [[1.0, 2.0]]}
    assert load_or_mine(path, mine) == {"train/0001": [[1.0, 2.0]]}
    assert calls == [1] and not list(tmp_path.glob("*.partial"))


def test_interrupted_mining_leaves_nothing_behind(tmp_path: Path) -> None:
    def broken() -> dict[str, list[list[float]]]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        load_or_mine(tmp_path / "mistakes.json", broken)
    assert not list(tmp_path.iterdir())
