"""vision/paper_light.py: a shadow across a photographed back divided out before it is stored;
a back in even light stored as it is."""

from __future__ import annotations

import numpy as np
import pytest

from blitzcam.datasets.art import render_back, render_random_back
from blitzcam.datasets.lineart import FAMILIES
from blitzcam.game.decks import DECK_NAMES
from blitzcam.vision.paper_light import evenly_lit, light_over
from blitzcam.vision.references import card_on_white


def _shadowed(card: np.ndarray, *, light: float = 0.6, from_x: float = 0.45) -> np.ndarray:
    """`card` with a soft-edged shadow (`light` of the light) over its right part."""
    width = card.shape[1]
    x = np.arange(width, dtype=np.float32)
    edge = 1 / (1 + np.exp(-(x - from_x * width) / (0.02 * width)))  # a 5 %-wide edge
    shade = 1 - (1 - light) * edge
    return np.clip(card.astype(np.float32) * shade[None, :, None], 0, 255).astype(np.uint8)


@pytest.mark.parametrize("deck", DECK_NAMES)
def test_a_back_in_even_light_is_stored_as_it_is(deck: str) -> None:
    card = card_on_white(render_back(deck, width=600).rgba)
    same, corrected = evenly_lit(card)
    assert not corrected and same is card


@pytest.mark.parametrize("family", FAMILIES)
def test_no_kind_of_art_is_taken_for_a_shadow(family: str) -> None:
    # (ink is left out of the light: a solid silhouette is not a dark patch of paper)
    rng = np.random.default_rng(7)
    for _ in range(4):
        card = card_on_white(render_random_back(rng, width=600, family=family).rgba)
        assert not evenly_lit(card)[1], light_over(card)[1]


def test_a_shadow_across_the_card_is_divided_out() -> None:
    card = card_on_white(render_back("green-pump", width=600).rgba)
    shadowed = _shadowed(card)
    assert light_over(shadowed)[1] < 0.7
    lit, corrected = evenly_lit(shadowed)
    assert corrected and light_over(lit)[1] > 0.95
    # the paper on both sides of the shadow's edge as bright again, within 5 %
    paper = (card.min(axis=2) > 240)[:, :, None].repeat(3, axis=2)
    left, right = lit[:, :200][paper[:, :200]], lit[:, -200:][paper[:, -200:]]
    assert abs(float(right.mean()) / float(left.mean()) - 1) < 0.05
    # and the drawing read as its deck again (shadowed, it read as no deck)
    from blitzcam.vision.embedding import Embedder
    from blitzcam.vision.pipeline import default_identity_path
    from blitzcam.vision.references import _builtin_patches, card_patches

    embedder = Embedder(default_identity_path())
    own = embedder.embed(_builtin_patches("green-pump"))

    def likeness(back: np.ndarray) -> float:
        return float((embedder.embed(card_patches(back, name="x", deck="green-pump")) @ own.T).max())

    from blitzcam.errors import UserError

    try:  # (this dark a shadow: too much "ink" to be read as a back at all)
        before = likeness(shadowed)
    except UserError:
        before = None
    assert likeness(lit) > 0.9 and (before is None or before < likeness(lit) - 0.2)


def test_a_black_card_or_a_grey_array_is_left_as_it_is_and_said_so() -> None:
    # (a black card read as uneven and came back "corrected", unchanged; a 2-D array raised)
    black = np.zeros((90, 60, 3), np.uint8)
    assert evenly_lit(black) == (black, False)
    grey = np.full((90, 60), 200, np.uint8)
    assert evenly_lit(grey) == (grey, False)


def _lit(deck: str, light: np.ndarray | float) -> np.ndarray:
    card = card_on_white(render_back(deck, width=400).rgba).astype(np.float32)
    light = np.asarray(light, np.float32)
    return np.clip(card * (light[..., None] if light.ndim else light), 0, 255).astype(np.uint8)


def test_glare_is_a_white_highlight_over_the_drawing_not_paper_in_strong_light() -> None:
    from blitzcam.vision.paper_light import whited_out

    card = _lit("red-plow", 0.85)
    height, width = card.shape[:2]
    yy, xx = np.mgrid[0:height, 0:width]
    ys, xs = np.nonzero(render_back("red-plow", width=400).drawing_mask)
    on_drawing = ((xx - xs.mean()) / 60) ** 2 + ((yy - ys.mean()) / 50) ** 2 <= 1
    glared = card.copy()
    glared[on_drawing] = 255  # a lamp's reflection on a glossy back, over the drawing
    assert whited_out(card) == 0.0
    assert 0.2 < whited_out(glared) < 0.6
    # light strong on one side clips the paper there, ink and all kept: no glare
    assert whited_out(_lit("red-plow", 0.95 + 0.12 * xx / width)) < 0.05
    # a reflection on blank paper, off the drawing: no ink lost
    off = card.copy()
    off[((xx - width / 2) / 40) ** 2 + ((yy - 40) / 25) ** 2 <= 1] = 255
    assert whited_out(off) == 0.0
    # a card whose paper is white to the last bit all over (a scan, an export): no telling
    assert whited_out(np.full((100, 80, 3), 255, np.uint8)) == 0.0
    assert whited_out(np.zeros((0, 0, 3), np.uint8)) == whited_out(card[..., 0]) == 0.0


def test_glare_over_most_of_a_card_is_glare_where_a_scan_s_white_paper_is_not() -> None:
    # (light whiting out 57 % of a photographed card, its drawing half gone, was taken for a
    # scan's paper, white over more than half the card: stored unsaid, and none of that deck's
    # cards was counted; enrollment review)
    from blitzcam.vision.paper_light import (
        GLARE_NOTE_FROM,
        PAPER_LEFT_FROM,
        WHITE_FROM,
        _light_paper,
        _paper_short_of_white,
        whited_out,
    )

    card = _lit("red-plow", 0.85)
    height, width = card.shape[:2]
    yy, xx = np.mgrid[0:height, 0:width]
    # a lamp's hot spot over most of the card: its paper white to the last bit, its darkest ink
    # still short of white
    spot = ((xx - width * 0.5) / (width * 0.5)) ** 2 + ((yy - height * 0.5) / (height * 0.47)) ** 2
    broad = _lit("red-plow", 0.85 + 0.5 * np.sqrt(np.clip(1 - spot, 0, 1)))  # (falling off)
    assert (broad.min(axis=2) >= WHITE_FROM).mean() > 0.5
    assert whited_out(broad) > GLARE_NOTE_FROM
    # a scan's paper, white to the last bit, its ink kept (the light raised 20 %): no glare
    scan = _lit("red-plow", 1.2)
    assert (scan.min(axis=2) >= WHITE_FROM).mean() > 0.5
    assert whited_out(scan) == 0.0
    # an export of a deck of one's own, white with a flat grey frame: a print's step from white,
    # not light falling off (it was taken for glare over 69 % of its drawing; review)
    framed = _lit("red-plow", 1.2)
    framed[: height // 10] = framed[-height // 10 :] = framed[:, : width // 12] = 225
    framed[:, -width // 12 :] = 225
    assert (framed.min(axis=2) >= WHITE_FROM).mean() > 0.5
    assert _paper_short_of_white(_light_paper(framed), framed.min(axis=2)) >= PAPER_LEFT_FROM
    assert whited_out(framed) == 0.0


@pytest.mark.parametrize(
    ("lit", "shadowed", "rest", "refused"),
    [
        (0.3, 0.3, (40, 160, 230), True),  # paper in full light and at 75 %: a shadow's
        (0.1, 0.1, (40, 160, 230), False),  # ... read on a fifth of it: a warm lamp's paper
        # most of it in shadow: unsaturated, a fifth of it light enough to be read as paper
        (0.1, 0.0, (120, 120, 120), True),
    ],
)
def test_light_still_uneven_is_told_only_where_enough_of_the_card_is_unsaturated(
    lit: float, shadowed: float, rest: tuple[int, int, int], refused: bool
) -> None:
    # under a warm, dim lamp a card's white paper sits on the saturation line: the light read on
    # the little paper left was as uneven as a shadow's, and three such photos were refused;
    # counted by paper read, a card 85 % in shadow was told it was no card back (diff review)
    from blitzcam.vision.paper_light import STILL_UNEVEN_BELOW, uneven_once_evened

    card = np.empty((625, 400, 3), np.uint8)
    card[:] = rest
    if rest[0] == rest[1] == rest[2]:  # (grey: a shadow's paper, a fifth of it at 140)
        card[::5] = 140
    card[:, : round(400 * lit)] = 240
    if shadowed:
        card[:, 400 - round(400 * shadowed) :] = 180  # (75 % of the light)
    told = uneven_once_evened(card)
    if refused:
        assert told is not None and told < STILL_UNEVEN_BELOW
    else:
        assert told is None
