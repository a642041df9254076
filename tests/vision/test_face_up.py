"""A card photographed face up for enrollment is told to be turned over; no back ever is."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from blitzcam.commands.decks import enroll_command
from blitzcam.datasets.art import render_back, render_face, render_random_back
from blitzcam.errors import UserError
from blitzcam.game.decks import DECK_NAMES
from blitzcam.vision.card_finder import card_in
from blitzcam.vision.enrollment import enroll_image
from blitzcam.vision.face_up import FACE_UP, face_up_cards, is_face

DARK_TABLE = (45, 60, 80)  # BGR
WHITE_TABLE = (228, 230, 232)
WOOD_TABLE = (40, 95, 150)  # an orange-brown, as strong a colour as a red face's but another hue


TURNED = ((330, 90), (630, 135), (600, 630), (285, 600))  # a card turned a little, slanted
# ... lying across, seen 40 degrees from above (its far side shorter)
ACROSS_AT_40 = ((300, 260), (660, 260), (720, 470), (240, 470))


def _lying(
    rgba: np.ndarray,
    table: tuple[int, int, int],
    *,
    seed: int,
    cast=(1.0, 1.0, 1.0),
    at=TURNED,
    beside: tuple[tuple[int, int, int, int], tuple[int, int, int]] | None = None,
):
    """A 960 x 720 photo of one card (`rgba`, RGB order) on a plain table, its corners `at`
    (top-left, top-right, bottom-right, bottom-left of the card), in a colour cast (per BGR
    channel), with camera noise; `beside`: a plain coloured rectangle (x, y, width, height)
    and its BGR colour lying on the table too (a sheet of paper, a book)."""
    rng = np.random.default_rng(seed)
    bgr = np.ascontiguousarray(rgba[..., 2::-1])
    h, w = bgr.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32(at) + rng.uniform(-8, 8, (4, 2))
    homography = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    photo = np.full((720, 960, 3), table, np.float32)
    if beside is not None:
        (x, y, bw, bh), colour = beside
        photo[y : y + bh, x : x + bw] = colour
    inside = cv2.warpPerspective(rgba[..., 3], homography, (960, 720)) > 127
    photo[inside] = cv2.warpPerspective(bgr, homography, (960, 720))[inside]
    photo = photo * np.float32(cast) + rng.normal(0, 3, photo.shape)
    return np.clip(photo, 0, 255).astype(np.uint8)


FACES = [("red", 7), ("blue", 1), ("yellow", 10), ("green", 4)]
CASTS = [(1.0, 1.0, 1.0), (0.8, 1.0, 1.2), (1.25, 1.0, 0.75)]  # neutral, warm, cool


@pytest.mark.parametrize(("colour", "number"), FACES)
@pytest.mark.parametrize("table", [DARK_TABLE, WHITE_TABLE, WOOD_TABLE])
def test_a_face_up_card_is_said_to_be_one(colour: str, number: int, table) -> None:
    # (a red face on wood was "its outline is dented", on a white table "no card found"; a
    # yellow one bright enough to be taken for paper would have been stored as the back)
    photo = _lying(render_face(colour, number, width=300).rgba, table, seed=number)
    assert card_in(photo)[1] == FACE_UP


@pytest.mark.parametrize("deck", DECK_NAMES)
@pytest.mark.parametrize("cast", CASTS)
def test_no_back_is_taken_for_a_face_in_any_light(deck: str, cast) -> None:
    photo = _lying(render_back(deck, width=300).rgba, DARK_TABLE, seed=len(deck), cast=cast)
    cards, problem = card_in(photo)
    assert problem is None and len(cards) == 1
    assert not face_up_cards(photo)


@pytest.mark.parametrize("seed", range(6))
def test_a_back_of_solid_ink_is_no_face(seed: int) -> None:
    # (silhouettes ink the most of any art family: 0.15 of the card at most, a face 0.89)
    back = render_random_back(np.random.default_rng(seed), width=300, family="silhouette")
    for cast in CASTS:
        photo = _lying(back.rgba, DARK_TABLE, seed=seed, cast=cast)
        assert card_in(photo)[1] != FACE_UP
        assert not face_up_cards(photo)


@pytest.mark.parametrize("cloth", [(40, 40, 200), (60, 150, 40), (40, 95, 150)])
def test_a_coloured_cloth_is_no_face(cloth) -> None:
    # a cloth of a face's colour runs off the picture: no card lies there
    photo = np.clip(np.full((480, 640, 3), cloth, np.float32) + 3, 0, 255).astype(np.uint8)
    photo[200:260, 300:340] = 240  # (something small and white on it)
    assert not face_up_cards(photo)
    assert card_in(photo)[1] != FACE_UP


def test_is_face_reads_a_rectified_card() -> None:
    face = np.ascontiguousarray(render_face("blue", 5, width=200).rgba[..., 2::-1])
    back = np.ascontiguousarray(render_back("blue-pump", width=200).rgba[..., 2::-1])
    assert is_face(face) and not is_face(back)
    assert not is_face(np.zeros((0, 0, 3), np.uint8))


def test_enrolling_a_face_up_card_stores_nothing_and_says_turn_it_over(tmp_path: Path) -> None:
    photo = _lying(render_face("red", 7, width=300).rgba, WOOD_TABLE, seed=1)
    with pytest.raises(UserError, match="turn it over") as caught:
        enroll_image("green-pump", photo, source="face.jpg", out_dir=tmp_path / "decks")
    assert str(caught.value) == f"face.jpg: {FACE_UP}"
    assert not (tmp_path / "decks").exists()
    picture = tmp_path / "face.png"
    cv2.imwrite(str(picture), photo)
    args = argparse.Namespace(own=False, deck="green-pump", image=picture, camera=None)
    with pytest.raises(UserError, match=r"face\.png: this is a card's face"):
        enroll_command(args)
    camera = tmp_path / "camera"  # (a folder of stills standing in for a webcam)
    camera.mkdir()
    cv2.imwrite(str(camera / "0.png"), photo)
    args = argparse.Namespace(own=False, deck="green-pump", image=None, camera=str(camera))
    with pytest.raises(UserError, match=r"0\.png: this is a card's face"):
        enroll_command(args)


def test_a_face_lying_across_seen_steeply_is_said_to_be_one() -> None:
    # (lying across at 40 degrees it looked 2.18 times as long as wide, past the card shapes
    # looked for, and kept the old "no card found"; a review)
    photo = _lying(render_face("red", 9, width=300).rgba, DARK_TABLE, seed=3, at=ACROSS_AT_40)
    assert card_in(photo)[1] == FACE_UP


SHEETS = [((700, 60, 200, 283), (50, 40, 210)), ((690, 80, 220, 330), (40, 210, 240)),
          ((700, 100, 180, 295), (160, 60, 20))]  # red and yellow paper, a blue paperback


@pytest.mark.parametrize("sheet", SHEETS)
def test_a_coloured_sheet_beside_a_back_keeps_the_back_s_own_refusal(sheet) -> None:
    # (a sheet of paper, a book or a box beside a back refused for another reason was taken
    # for a face: "turn it over", said of a back; 128 of 128 in a review)
    back = render_back("green-pump", width=300).rgba
    off_edge = ((-60, 90), (240, 135), (210, 630), (-105, 600))
    photo = _lying(back, DARK_TABLE, seed=2, at=off_edge, beside=sheet)
    problem = card_in(photo)[1]
    assert problem != FACE_UP and problem is not None
    far = tuple((x // 5 + 100, y // 5 + 300) for x, y in TURNED)  # too small to enroll
    assert card_in(_lying(back, DARK_TABLE, seed=2, at=far, beside=sheet))[1] != FACE_UP


@pytest.mark.parametrize(("colour", "number"), FACES[:2])
def test_a_face_beside_a_coloured_book_is_still_said(colour: str, number: int) -> None:
    # (a yellow sheet as bright as paper beside it is taken for the card, refused as blank)
    face = render_face(colour, number, width=300).rgba
    photo = _lying(face, DARK_TABLE, seed=4, beside=((720, 100, 200, 300), (160, 60, 20)))
    assert card_in(photo)[1] == FACE_UP


def test_a_plain_coloured_card_is_no_face_and_neither_is_a_back_in_a_strong_cast() -> None:
    # (no white figures on it: a sheet taken for the card is refused for what it is; a cast of
    # half again on one channel made white paper strong colour: 215 of 348 backs in a review)
    plain = np.zeros((156, 100, 3), np.uint8)
    plain[:] = (50, 40, 210)
    assert not is_face(plain)
    noise = np.random.default_rng(1).integers(0, 256, (156, 100, 3), dtype=np.uint8)
    assert not is_face(noise)  # (strong colour of every hue: no face's one colour)
    back = np.ascontiguousarray(render_back("blue-pump", width=200).rgba[..., 2::-1])
    for cast in [(0.5, 1.0, 1.5), (1.5, 1.0, 0.5), (0.6, 1.4, 0.6)]:
        tinted = np.clip(back * np.float32(cast) * 0.4, 0, 255).astype(np.uint8)  # (dim, too)
        assert not is_face(tinted)
    face = np.ascontiguousarray(render_face("green", 2, width=200).rgba[..., 2::-1])
    assert is_face(np.clip(face * np.float32((1.25, 1.0, 0.75)), 0, 255).astype(np.uint8))


def test_a_grey_or_four_channel_picture_is_read_as_well() -> None:
    # (a BGRA card raised a broadcasting error from the white balance; the diff's review)
    photo = _lying(render_face("blue", 3, width=300).rgba, DARK_TABLE, seed=5)
    with_alpha = cv2.cvtColor(photo, cv2.COLOR_BGR2BGRA)
    assert card_in(with_alpha)[1] == card_in(photo)[1] == FACE_UP
    back = np.ascontiguousarray(render_back("red-plow", width=120).rgba[..., 2::-1])
    assert not is_face(cv2.cvtColor(back, cv2.COLOR_BGR2BGRA))
    assert not is_face(cv2.cvtColor(back, cv2.COLOR_BGR2GRAY))
    assert not face_up_cards(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY))


@pytest.mark.parametrize("photographed", [False, True])
def test_a_face_in_a_decks_folder_is_said_to_be_one(tmp_path: Path, photographed: bool) -> None:
    # (it was "no drawing found on this card back (is it a back ...?)")
    from blitzcam.vision.references import profile_from_dir

    rgba = render_face("red", 4, width=400).rgba
    if photographed:
        picture = _lying(render_face("red", 4, width=300).rgba, DARK_TABLE, seed=6)
    else:  # (cut to its edges, its corners white)
        picture = np.ascontiguousarray(rgba[..., 2::-1]).copy()
        picture[rgba[..., 3] < 128] = 255
    cv2.imwrite(str(tmp_path / "green-pump.png"), picture)
    with pytest.raises(UserError, match=r"green-pump\.png: a card's face, not its back"):
        profile_from_dir(tmp_path)


def test_a_photo_of_a_back_on_a_coloured_cloth_in_a_decks_folder_is_no_face(tmp_path: Path) -> None:
    # (16:10, nearly a card's shape, on a cloth of one colour: read whole, it looked like a face,
    # the back's drawing its figures; the review of the fixes)
    from blitzcam.vision.references import profile_from_dir

    back = render_back("green-pump", width=300).rgba
    photo = np.full((600, 960, 3), (40, 140, 30), np.uint8)
    drawn = np.ascontiguousarray(back[..., 2::-1])
    inside = back[..., 3] > 127
    photo[100 : 100 + back.shape[0], 300:600][inside] = drawn[inside]
    cv2.imwrite(str(tmp_path / "green-pump.png"), photo)
    with pytest.raises(UserError, match=r"green-pump\.png: a photo with a card in it"):
        profile_from_dir(tmp_path)


# --- a face-up box the detector finds on a table ---------------------------------------------


@pytest.mark.parametrize(("colour", "number"), FACES)
@pytest.mark.parametrize(
    "light",
    [(1.0, 1.0, 1.0), (0.8, 1.0, 1.2), (1.25, 1.0, 0.75), (0.25, 0.25, 0.25), "washed out"],
)
def test_a_face_up_card_s_box_is_of_one_colour_in_any_light(colour: str, number: int, light) -> None:
    from blitzcam.vision.face_up import FACE_BOX_ONE_HUE, face_box_one_hue

    washed = light == "washed out"
    photo = _lying(render_face(colour, number, width=300).rgba, WOOD_TABLE, seed=number,
                   cast=(1.0, 1.0, 1.0) if washed else light)
    if washed:  # a haze over the picture: every colour halfway to white
        photo = (photo.astype(np.float32) * 0.4 + 255 * 0.6).astype(np.uint8)
    corners = np.float32(TURNED)[None]
    assert face_box_one_hue(photo, corners)[0] >= FACE_BOX_ONE_HUE


def test_noise_and_a_picture_without_colour_are_no_face_up_card() -> None:
    # (the detector found 191 "face-up cards" on colour noise, 277 on blurred noise, 56 on a
    # 1-bit dithered table, and the app asked to flip each)
    from blitzcam.vision.face_up import FACE_BOX_ONE_HUE, face_box_one_hue

    rng = np.random.default_rng(5)
    noise = rng.integers(0, 256, (720, 960, 3), dtype=np.uint8)
    blurred = cv2.normalize(cv2.GaussianBlur(noise, (0, 0), 2), None, 0, 255, cv2.NORM_MINMAX)
    dithered = np.repeat(((rng.random((720, 960)) > 0.5) * 255).astype(np.uint8)[..., None], 3, 2)
    boxes = np.float32([TURNED, ACROSS_AT_40, [(10, 10), (60, 10), (60, 90), (10, 90)]])
    for picture in (noise, blurred, dithered):
        assert (face_box_one_hue(picture, boxes) < FACE_BOX_ONE_HUE).all()
    assert (face_box_one_hue(dithered, boxes) == 0).all()  # no colour at all
    assert face_box_one_hue(noise, boxes[:0]).shape == (0,)
