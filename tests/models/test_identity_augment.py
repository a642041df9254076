"""The identity network's extra training drawings: occluders, fading and far cards' few pixels, and
the ink-gain layer."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from blitzcam.models.identity_augment import (
    augment_queries,
    faded,
    finger_over,
    pencil_across,
    shrunk,
)
from blitzcam.vision.embedding import PATCH


def _drawing() -> np.ndarray:
    """Dark strokes on off-white paper."""
    patch = np.full((PATCH, PATCH, 3), (225, 232, 238), np.uint8)
    patch[8:24, 10:13] = (30, 40, 50)
    patch[14:17, 6:26] = (30, 40, 50)
    return patch


@pytest.mark.parametrize("occluder", [pencil_across, finger_over])
def test_an_occluder_covers_part_of_the_drawing_not_all(
    occluder: Callable[[np.ndarray, np.random.Generator], np.ndarray],
) -> None:
    drawing = _drawing()
    covered = [
        np.mean(np.any(occluder(drawing, np.random.default_rng(seed)) != drawing, axis=-1))
        for seed in range(40)
    ]
    assert min(covered) > 0.02  # always something across it
    assert max(covered) < 0.75  # never the whole drawing
    assert np.std(covered) > 0.01  # in many sizes and places


def test_fading_pulls_the_ink_towards_the_paper() -> None:
    drawing = _drawing()
    for seed in range(20):
        out = faded(drawing, np.random.default_rng(seed)).astype(float)
        ink, paper = out[14:17, 6:26].mean(), out[:4, :4].mean()
        assert out.dtype == float and out.shape == drawing.shape
        assert paper - ink < 0.8 * (drawing[:4, :4].mean() - float(drawing[15, 15].mean()))
        assert paper - ink > 0.05 * (drawing[:4, :4].mean() - float(drawing[15, 15].mean()))


def _fine_detail(patch: np.ndarray) -> float:
    grey = patch.astype(float).mean(axis=-1)
    return float(np.abs(np.diff(grey, axis=0)).mean() + np.abs(np.diff(grey, axis=1)).mean())


def test_a_shrunk_drawing_loses_its_fine_lines_and_keeps_its_ink_and_place() -> None:
    # stripes one pixel wide: a far card's 6-20 frame pixels cannot hold them
    drawing = np.full((PATCH, PATCH, 3), (225, 232, 238), np.uint8)
    drawing[8:24, 8:24:2] = (30, 40, 160)
    for seed in range(30):
        out = shrunk(drawing, np.random.default_rng(seed))
        assert out.dtype == np.uint8 and out.shape == drawing.shape
        assert _fine_detail(out) < 0.5 * _fine_detail(drawing)
        ink = out[10:22, 10:22].astype(float).mean(axis=(0, 1))
        assert ink[2] - ink[0] > 20  # still red ink, where it was ...
        assert np.abs(out[1, 1].astype(float) - drawing[1, 1]).max() < 25  # ... on paper


def test_drawings_shrink_to_many_sizes() -> None:
    # a square of ink: the further down it went, the wider its soft edge once stretched back
    drawing = np.full((PATCH, PATCH, 3), 230, np.uint8)
    drawing[12:20, 12:20] = 20

    def soft_edge(patch: np.ndarray) -> float:
        grey = patch[..., 0].astype(int)
        return float(np.mean((grey > 50) & (grey < 200)))

    edges = [soft_edge(shrunk(drawing, np.random.default_rng(seed))) for seed in range(40)]
    assert soft_edge(drawing) == 0 and min(edges) > 0.02  # every one blurred ...
    assert max(edges) > 2 * min(edges)  # ... by many amounts


def test_with_no_small_share_the_stream_draws_as_before_the_share_existed() -> None:
    queries = np.stack([_drawing()] * 20)
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    old = augment_queries(queries, a, occluded_share=0.3, faded_share=0.3)
    new = augment_queries(queries, b, occluded_share=0.3, faded_share=0.3, small_share=0.0)
    np.testing.assert_array_equal(old, new)
    assert a.bit_generator.state == b.bit_generator.state
    small = augment_queries(queries, np.random.default_rng(5), occluded_share=0.0,
                            faded_share=0.0, small_share=0.5)  # fmt: skip
    assert 0.2 < np.any(small != queries, axis=(1, 2, 3)).mean() < 0.8


def test_augmenting_is_seeded_and_leaves_its_input_alone() -> None:
    queries = np.stack([_drawing()] * 50)
    before = queries.copy()
    a = augment_queries(queries, np.random.default_rng(3), occluded_share=0.3, faded_share=0.3)
    b = augment_queries(queries, np.random.default_rng(3), occluded_share=0.3, faded_share=0.3)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(queries, before)
    changed = np.any(a != queries, axis=(1, 2, 3)).mean()
    assert 0.3 < changed < 0.7  # about 1 - 0.7 * 0.7 of them
    assert a.dtype == np.uint8 and a.shape == queries.shape


def test_with_no_share_nothing_is_drawn_from_the_stream() -> None:
    queries = np.stack([_drawing()] * 5)
    rng = np.random.default_rng(4)
    state = rng.bit_generator.state
    out = augment_queries(queries, rng, occluded_share=0.0, faded_share=0.0)
    assert out is queries and rng.bit_generator.state == state


def test_the_ink_gain_layer_stretches_faint_ink_and_leaves_strong_ink_and_paper() -> None:
    import torch

    from blitzcam.models.identity_network import INK_TARGET, ink_gain_layer
    from blitzcam.vision.embedding import network_input

    layer = ink_gain_layer(3.0)
    strong = _drawing()
    faint = np.clip(238 - (238 - strong.astype(int)) * 0.3, 0, 255).astype(np.uint8)
    x = torch.from_numpy(network_input(np.stack([strong, faint])))
    with torch.no_grad():
        y = layer(x).numpy()
    dark_in = ((1 - x.numpy()) / 2).max(axis=1)
    dark_out = ((1 - y) / 2).max(axis=1)
    np.testing.assert_allclose(y[0], x.numpy()[0], atol=1e-6)  # already dark: gain 1
    assert dark_in[1, 15, 15] < 0.35
    assert dark_out[1, 15, 15] == pytest.approx(min(3 * dark_in[1, 15, 15], INK_TARGET), abs=1e-4)
    np.testing.assert_allclose(y[1, :, 0, 0], 1.0, atol=1e-6)  # the paper stays paper


def test_the_ink_gain_is_capped() -> None:
    import torch

    from blitzcam.models.identity_network import ink_gain_layer
    from blitzcam.vision.embedding import network_input

    barely = np.full((1, PATCH, PATCH, 3), 240, np.uint8)
    barely[0, 10:20, 10:20] = 228  # ink 5 % off the paper
    x = torch.from_numpy(network_input(barely))
    with torch.no_grad():
        y = ink_gain_layer(2.0)(x)
    np.testing.assert_allclose((1 - y[0, :, 15, 15]) / 2, 2 * (1 - x[0, :, 15, 15]) / 2, atol=1e-5)
