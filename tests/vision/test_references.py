"""Reference views of a deck's back (vision/references.py)."""

from __future__ import annotations

import cv2
import numpy as np

from blitzcam.datasets.art import render_back
from blitzcam.vision.embedding import FULL_SIZE, PATCH, SMALL_VIEWS
from blitzcam.vision.references import (
    card_on_white,
    reference_patches,
    reference_views,
    small_views,
)


def _pump() -> tuple[np.ndarray, np.ndarray]:
    card = render_back("blue-pump", width=320)
    return card_on_white(card.rgba), card.drawing_mask


def test_the_whole_views_are_what_the_identity_network_was_trained_with() -> None:
    card, mask = _pump()
    whole = reference_patches(card, mask, name="pump")
    views = reference_views(card, mask, name="pump")
    seen = np.array(views.seen_at)
    assert len(views.patches) == len(seen) == len(whole) * (1 + len(SMALL_VIEWS))
    kept = [p for p, s in zip(views.patches, seen, strict=True) if s == FULL_SIZE]
    np.testing.assert_array_equal(np.stack(kept), np.stack(whole))
    for _below, size in SMALL_VIEWS:
        assert (seen == size).sum() == len(whole)  # every box, mirrored too


def test_a_small_view_has_lost_the_fine_lines() -> None:
    card, mask = _pump()
    views = reference_views(card, mask, name="pump")
    whole = views.patches[0]
    smallest = small_views(card, np.asarray(_first_box(card, mask)))[0]
    assert smallest[1] == SMALL_VIEWS[0][1] and smallest[0].shape == (PATCH, PATCH, 3)

    def detail(patch: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    assert detail(smallest[0]) < 0.5 * detail(whole)


def _first_box(card: np.ndarray, mask: np.ndarray) -> np.ndarray:
    from blitzcam.vision.references import reference_boxes

    return reference_boxes(card, mask, name="pump")[0]
