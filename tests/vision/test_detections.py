"""The Detections record: validation, masks, immutability, corners."""

from __future__ import annotations

import numpy as np
import pytest

from blitzcam.vision.detections import UNKNOWN_DECK, Detections, obb_corners


def _record(n: int = 3) -> Detections:
    obb = np.array([[10 * i + 5, 20, 8, 4, 0.1 * i] for i in range(n)], np.float32)
    return Detections.from_obb(obb, np.linspace(0.9, 0.5, n), np.arange(n) % 2)


def test_empty() -> None:
    empty = Detections.empty()
    assert len(empty) == 0
    assert empty.corners.shape == (0, 4, 2)
    assert empty.xyxy.shape == (0, 4)
    assert len(empty[np.zeros(0, bool)]) == 0


def test_rows_by_a_list_of_indices_even_an_empty_one() -> None:
    dets = _record()
    assert len(dets[[]]) == 0 and dets[[]].corners.shape == (0, 4, 2)
    assert dets[[2, 0]].confidence.tolist() == dets.confidence[[2, 0]].tolist()
    assert len(dets[1]) == 1


def test_mask_returns_new_record() -> None:
    dets = _record()
    backs = dets[dets.of_class("back")]
    assert len(backs) == 2
    assert backs is not dets
    assert (backs.class_id == 0).all()
    assert len(dets) == 3  # the original is untouched


def test_columns_are_read_only() -> None:
    dets = _record()
    with pytest.raises(ValueError, match="read-only"):
        dets.confidence[0] = 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confidence": np.zeros(2, np.float32)}, "obb: expected shape"),  # short column
        ({"class_id": np.array([0, 5, 0])}, "class_id: expected values"),  # class out of range
        ({"deck": np.array([0, 0, 0])}, "deck: expected values"),  # deck index with no names
        ({"similarity": np.zeros(3, np.float64)}, "expected dtype float32"),  # wrong dtype
        ({"counted": np.ones(3, np.int64)}, "counted: expected dtype bool"),
        ({"counted": np.ones(2, bool)}, "counted: expected shape"),
    ],
)
def test_validation_messages(kwargs, message) -> None:
    dets = _record()
    fields = {
        "obb": dets.obb,
        "corners": dets.corners,
        "confidence": dets.confidence,
        "class_id": dets.class_id,
        "deck": dets.deck,
        "similarity": dets.similarity,
        "counted": dets.counted,
    }
    fields.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Detections(**fields)


def test_with_decks_and_names() -> None:
    dets = _record().with_decks(
        np.array([1, UNKNOWN_DECK, 0]), np.array([0.9, 0.1, 0.8]), ("a", "b")
    )
    assert [dets.deck_name(i) for i in range(3)] == ["b", "unknown", "a"]
    assert dets.counted.all()  # the detector's boxes count until identification says otherwise


def test_with_decks_can_say_which_rows_count_and_masks_keep_it() -> None:
    dets = _record().with_decks(
        np.array([1, UNKNOWN_DECK, 0]), np.array([0.9, 0.1, 0.8]), ("a", "b"),
        counted=np.array([True, False, True]),
    )
    assert dets.counted.tolist() == [True, False, True]
    assert dets[np.array([1, 2])].counted.tolist() == [False, True]
    with pytest.raises(ValueError, match="read-only"):
        dets.counted[0] = False


def test_with_boxes_moves_the_boxes_and_keeps_every_other_column() -> None:
    dets = _record().with_decks(
        np.array([1, UNKNOWN_DECK, 0]), np.array([0.9, 0.1, 0.8]), ("a", "b"),
        counted=np.array([True, False, True]),
    )
    moved_obb = dets.obb + np.array([100, 50, 0, 0, 0], np.float32)
    moved = dets.with_boxes(moved_obb)
    np.testing.assert_array_equal(moved.obb, moved_obb)
    np.testing.assert_allclose(moved.corners, dets.corners + np.float32([100, 50]), atol=1e-4)
    for column in ("confidence", "class_id", "deck", "similarity", "counted"):
        np.testing.assert_array_equal(getattr(moved, column), getattr(dets, column))
    assert moved.deck_names == dets.deck_names
    moved_obb[0, 0] = -1  # the caller's array is not the record's
    assert moved.obb[0, 0] == 105
    with pytest.raises(ValueError, match="shape"):
        dets.with_boxes(moved_obb[:2])


def test_corners_axis_aligned_box() -> None:
    corners = obb_corners(np.array([[10, 20, 4, 2, 0.0]], np.float32))[0]
    assert sorted(map(tuple, corners.tolist())) == [(8, 19), (8, 21), (12, 19), (12, 21)]


def test_the_callers_arrays_are_not_the_records() -> None:
    # (the record's columns were views of them: a later write by the caller changed a
    # "frozen" record, and its boxes and corners disagreed)
    obb = np.array([[10, 10, 5, 5, 0]], np.float32)
    confidence, class_id = np.array([0.9], np.float32), np.array([0])
    dets = Detections.from_obb(obb, confidence, class_id)
    obb[0, 0], confidence[0], class_id[0] = 500, 7.0, 1
    assert dets.obb[0, 0] == 10 and dets.corners[0, :, 0].mean() == pytest.approx(10)
    assert dets.confidence[0] == pytest.approx(0.9) and dets.class_id[0] == 0
    deck, similarity = np.array([0]), np.array([0.8], np.float32)
    named = dets.with_decks(deck, similarity, ("green-pump",))
    deck[0], similarity[0] = -1, 0.1
    assert named.deck[0] == 0 and named.similarity[0] == pytest.approx(0.8)
    with pytest.raises(ValueError, match="read-only"):
        named.obb[0, 0] = 1
    assert obb.flags.writeable  # the caller's own array is left as it was
