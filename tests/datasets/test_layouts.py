"""Layouts: pure pose generators, centred, any count, deterministic for a seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blitzcam.datasets import layouts

ASPECT = 1.56


@pytest.mark.parametrize("kind", sorted(layouts.LAYOUTS))
@pytest.mark.parametrize(
    "n",
    [
        0,  # a player with no cards left to count
        1,  # a single card
        13,  # more than one row
        40,  # a whole deck
    ],
)
def test_layout_shape_and_centre(kind: str, n: int) -> None:
    poses = layouts.LAYOUTS[kind](n, ASPECT, np.random.default_rng(3))
    assert poses.shape == (n, 3)
    assert np.isfinite(poses).all()
    if n:
        mid = (poses[:, :2].min(axis=0) + poses[:, :2].max(axis=0)) / 2
        assert np.allclose(mid, 0, atol=1e-9)


@pytest.mark.parametrize("kind", sorted(layouts.LAYOUTS))
def test_layout_is_seeded(kind: str) -> None:
    a = layouts.LAYOUTS[kind](20, ASPECT, np.random.default_rng(7))
    b = layouts.LAYOUTS[kind](20, ASPECT, np.random.default_rng(7))
    assert np.array_equal(a, b)


def test_rows_keep_drawings_apart() -> None:
    """Overlapping rows step at least 0.62 card widths: enough for 60 % of a centred drawing."""
    poses = layouts.overlapping_rows(10, ASPECT, np.random.default_rng(0))
    steps = np.diff(poses[:, 0])
    assert (steps[steps > 0] > 0.55).all()


@settings(max_examples=40, deadline=None)
@given(angle=st.floats(-360, 360), seed=st.integers(0, 2**16))
def test_rotate_keeps_extent_area_bounded_and_turns_cards(angle: float, seed: int) -> None:
    poses = layouts.grid(12, ASPECT, np.random.default_rng(seed))
    turned = layouts.rotate(poses, angle)
    assert np.allclose(turned[:, 2], poses[:, 2] + angle)
    # distances between cards do not change under rotation
    d0 = np.linalg.norm(poses[:, None, :2] - poses[None, :, :2], axis=-1)
    d1 = np.linalg.norm(turned[:, None, :2] - turned[None, :, :2], axis=-1)
    assert np.allclose(d0, d1)
    w, h = layouts.extent(turned, ASPECT)
    diag = np.hypot(*layouts.extent(poses, ASPECT))
    assert max(w, h) <= diag * 1.01 + ASPECT
