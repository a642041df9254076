"""Deck identification on synthetic views of the built-in backs: perspective, turns, noise, colour
casts. Runs the shipped identity network (models/blitzcam-identity.onnx)."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from blitzcam.datasets.art import render_back, render_random_back
from blitzcam.game.decks import DECK_NAMES
from blitzcam.vision.detections import Detections
from blitzcam.vision.embedding import Embedder, reference_vectors
from blitzcam.vision.pipeline import default_identity_path
from blitzcam.vision.references import default_profile
from tests.vision.identify_keywords import identify


class Identity:
    """The shipped network and the built-in profile, embedded once for the module."""

    def __init__(self) -> None:
        self.embedder = Embedder(default_identity_path(), threads=1)
        profile = default_profile()
        self.names = profile.names
        self.references = reference_vectors(self.embedder.embed, profile.patches, profile.owners)

    def __call__(self, frame: np.ndarray, dets: Detections) -> Detections:
        return identify(frame, dets, self.references, self.names, self.embedder.embed)


@pytest.fixture(scope="module")
def profile() -> Identity:
    return Identity()


def _table_view(
    card,
    rng: np.random.Generator,
    *,
    cast: tuple[float, float, float],
    turn: float,
    width: int = 110,
    noise: float = 4.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The card laid on a table in a 400x400 frame (turned, tilted, colour-cast, noisy).

    Returns the frame (BGR) and the drawing's oriented box (x, y, w, h, r), as a label would be.
    """
    scale = width / card.rgba.shape[1]
    rgba = cv2.resize(card.rgba, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    mask = cv2.resize(
        card.drawing_mask.astype(np.uint8),
        None,
        fx=scale,
        fy=scale,
        interpolation=cv2.INTER_NEAREST,
    )
    h, w = rgba.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    centre = np.array([200.0, 200.0]) + rng.uniform(-20, 20, 2)
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
    turned = cv2.transform(src[None], rot)[0] - [w / 2, h / 2] + centre
    dst = (turned + rng.uniform(-6, 6, (4, 2))).astype(np.float32)  # mild perspective
    homography = cv2.getPerspectiveTransform(src, dst)
    frame = np.full((400, 400, 3), (40, 70, 50), np.float32)
    card_bgr = rgba[..., 2::-1].astype(np.float32)
    warped = cv2.warpPerspective(card_bgr, homography, (400, 400))
    alpha = cv2.warpPerspective(rgba[..., 3].astype(np.float32) / 255, homography, (400, 400))[
        ..., None
    ]
    frame = frame * (1 - alpha) + warped * alpha
    frame = frame * np.array(cast[::-1], np.float32) + rng.normal(0, noise, frame.shape)
    drawn = cv2.warpPerspective(mask, homography, (400, 400), flags=cv2.INTER_NEAREST)
    (cx, cy), (bw, bh), angle = cv2.minAreaRect(np.argwhere(drawn)[:, ::-1].astype(np.float32))
    return np.clip(frame, 0, 255).astype(np.uint8), np.array([cx, cy, bw, bh, np.deg2rad(angle)])


CASES = [
    # (turn in degrees, colour cast RGB, seed)
    (0.0, (1.0, 1.0, 1.0), 1),  # upright, neutral light
    (90.0, (1.0, 0.95, 0.8), 2),  # quarter turn, warm light
    (180.0, (0.85, 0.9, 1.05), 3),  # upside down, cool light
    (33.0, (0.9, 0.9, 0.9), 4),  # odd angle, dim
    (-120.0, (1.05, 1.0, 0.9), 5),  # other odd angle, warm
]


@pytest.mark.parametrize(("turn", "cast", "seed"), CASES)
def test_all_eight_decks_told_apart(profile, turn: float, cast, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for deck in DECK_NAMES:
        frame, box = _table_view(render_back(deck, width=320), rng, cast=cast, turn=turn)
        dets = Detections.from_obb(box[None], [0.9], [0])
        out = profile(frame, dets)
        assert out.deck_name(0) == deck, (
            f"{deck} at {turn} deg, cast {cast}: got {out.deck_name(0)}"
        )


def test_same_ink_told_apart_by_drawing(profile) -> None:
    # green-pump and green-bucket share their ink: only the drawing separates them
    rng = np.random.default_rng(11)
    for deck, other in (("green-pump", "green-bucket"), ("green-bucket", "green-pump")):
        frame, box = _table_view(render_back(deck, width=320), rng, cast=(1, 1, 1), turn=60)
        dets = Detections.from_obb(box[None], [0.9], [0])
        out = profile(frame, dets)
        assert out.deck_name(0) == deck != other


def test_faces_are_not_identified(profile) -> None:
    frame = np.full((100, 100, 3), 200, np.uint8)
    dets = Detections.from_obb(np.array([[50, 50, 30, 40, 0.0]]), [0.9], [1])
    out = profile(frame, dets)
    assert out.deck_name(0) == "unknown"
    assert np.isnan(out.similarity[0])


def test_random_art_mostly_unknown(profile) -> None:
    rng = np.random.default_rng(21)
    unknown = 0
    for _ in range(12):
        frame, box = _table_view(render_random_back(rng, width=320), rng, cast=(1, 1, 1), turn=20)
        out = profile(frame, Detections.from_obb(box[None], [0.9], [0]))
        unknown += out.deck_name(0) == "unknown"
    assert unknown >= 6  # backs of other art should rarely be counted as one of the eight decks


@pytest.mark.parametrize(
    ("shift", "grow", "turn_deg"),
    [
        ((0.0, 0.0), 1.0, 0.0),     # already right: stays right
        ((0.12, -0.08), 1.0, 0.0),  # offset by a tenth of the drawing, as detectors are
        ((0.0, 0.0), 1.2, 0.0),     # too loose
        ((0.0, 0.0), 0.85, 0.0),    # too tight
        ((0.05, 0.05), 1.1, 9.0),   # a little of everything, turned
    ],
)
def test_a_box_off_the_drawing_snaps_back_onto_its_ink(
    shift: tuple[float, float], grow: float, turn_deg: float
) -> None:
    from blitzcam.datasets.art import render_back
    from blitzcam.vision.back_boxes import snap_to_ink
    from blitzcam.vision.detections import obb_corners
    from blitzcam.vision.polygons import polygon_iou

    frame, label = _table_view(render_back("red-plow", width=600), np.random.default_rng(7),
                               cast=(1.0, 1.0, 1.0), turn=20.0)
    cx, cy, w, h, r = label
    off = np.array([[cx + shift[0] * w, cy + shift[1] * h, w * grow, h * grow,
                     r + np.deg2rad(turn_deg)]], np.float32)
    truth = obb_corners(np.array([label], np.float32))[0]
    before = polygon_iou(truth, obb_corners(off)[0])
    after = polygon_iou(truth, snap_to_ink(frame, obb_corners(off)[0]))
    assert after > 0.85
    assert after >= before - 0.05


def test_nothing_to_snap_to_keeps_the_box() -> None:
    from blitzcam.vision.back_boxes import snap_to_ink

    corners = np.float32([[10, 10], [50, 10], [50, 40], [10, 40]])
    blank = np.full((100, 100, 3), 200, np.uint8)
    np.testing.assert_array_equal(snap_to_ink(blank, corners), corners)


@pytest.mark.parametrize("turn_deg", [0.0, 33.0])
def test_side_cuts_keep_each_share_of_the_box_from_each_side(turn_deg: float) -> None:
    from blitzcam.vision.back_boxes import side_cuts
    from blitzcam.vision.detections import obb_corners
    from blitzcam.vision.polygons import polygon_cover

    box = obb_corners(np.array([[200, 150, 80, 40, np.deg2rad(turn_deg)]], np.float32))[0]
    cuts = side_cuts(box, (0.6, 0.9))
    assert cuts.shape == (8, 4, 2)
    area = cv2.contourArea(box)
    for k, keep in enumerate((0.6, 0.6, 0.6, 0.6, 0.9, 0.9, 0.9, 0.9)):
        assert cv2.contourArea(cuts[k]) == pytest.approx(keep * area, rel=1e-3)
        assert polygon_cover(cuts[k], box) == pytest.approx(1.0, abs=1e-3)  # inside the box
    # the four cuts of one share each leave out a different side: the two cut from opposite
    # sides overlap by 2 * 0.6 - 1 of the box
    assert polygon_cover(cuts[0], cuts[1]) == pytest.approx(0.2 / 0.6, abs=1e-3)
    assert polygon_cover(cuts[2], cuts[3]) == pytest.approx(0.2 / 0.6, abs=1e-3)
    assert polygon_cover(cuts[0], cuts[2]) == pytest.approx(0.6, abs=1e-3)


def _pile_with_a_coin(
    pile, lone, rng: np.random.Generator, coin: float
) -> tuple[np.ndarray, Detections]:
    """Three copies of `pile` and one card `lone`, side by side, each turned at random; a coin
    lies on the lone card's drawing, covering `coin` of its length from one end and sticking out
    as far, and the lone card's box takes the coin in, as the detector's does."""
    frames, boxes = [], []
    for k, card in enumerate([pile, pile, pile, lone]):
        frame, box = _table_view(card, rng, cast=(1.0, 1.0, 1.0), turn=float(rng.uniform(0, 360)))
        frames.append(frame)
        boxes.append(box + np.array([400.0 * k, 0, 0, 0, 0]))
    frame = np.hstack(frames)
    cx, cy, w, h, r = boxes[3]
    along = np.array([np.cos(r), np.sin(r)])
    radius = int(max(h, w * coin) * 0.6)
    centre = np.array([cx, cy]) + along * (w / 2 - w * coin + radius)
    cv2.circle(frame, tuple(int(v) for v in centre), radius, (90, 95, 100), -1)
    middle = np.array([cx, cy]) + along * w * coin / 2
    boxes[3] = np.array([*middle, w * (1 + coin), max(h, 2 * radius), r])
    return frame, Detections.from_obb(np.array(boxes, np.float32), [0.9] * 4, [0] * 4)


@pytest.mark.parametrize("coin", [0.3, 0.4, 0.5])
def test_a_copy_boxed_with_a_coin_on_it_counts_to_its_pile(profile, coin: float) -> None:
    # the shipped network: without the second look the copy reads as no deck; with it, it
    # joins its pile, or stays unknown (a coin can leave too little), never another deck
    hurt, back, wrong = 0, 0, []
    for seed, (k, deck) in itertools.product(range(3), enumerate(DECK_NAMES)):
        card = render_back(deck, width=320)
        frame, dets = _pile_with_a_coin(card, card, np.random.default_rng(10 * seed + k), coin)
        args = (frame, dets, profile.references, profile.names, profile.embedder.embed)
        if identify(*args, second_look=None).deck_name(3) == deck:
            continue  # this coin left enough of the drawing
        hurt += 1
        got = identify(*args).deck_name(3)
        back += got == deck
        if got not in (deck, "unknown"):
            wrong.append((deck, got))
    assert hurt >= 5  # the coins do hide the drawings
    assert not wrong
    assert back >= 0.75 * hurt, f"{back} of {hurt} back in their pile"


def test_a_lone_design_nobody_enrolled_stays_unknown_at_a_second_look(profile) -> None:
    for seed in range(24):
        rng = np.random.default_rng(100 + seed)
        pile = render_back(DECK_NAMES[seed % 8], width=320)
        stranger = render_random_back(rng, width=320)
        for coin in (0.0, 0.4):
            frame, dets = _pile_with_a_coin(pile, stranger, rng, coin)
            out = identify(frame, dets, profile.references, profile.names, profile.embedder.embed)
            assert out.deck_name(3) == "unknown", f"seed {seed}, coin {coin}: {out.deck_name(3)}"


@pytest.mark.parametrize("turn_deg", [0.0, 33.0])
def test_scaled_boxes_keep_the_centre_and_the_corner_order(turn_deg: float) -> None:
    from blitzcam.vision.back_boxes import scaled_boxes
    from blitzcam.vision.detections import obb_corners

    box = obb_corners(np.array([[200, 150, 80, 40, np.deg2rad(turn_deg)]], np.float32))[0]
    boxes = scaled_boxes(box, (0.9, 1.1))
    assert boxes.shape == (3, 4, 2)
    np.testing.assert_array_equal(boxes[0], box)
    for scaled, factor in zip(boxes[1:], (0.9, 1.1), strict=True):
        np.testing.assert_allclose(scaled.mean(axis=0), box.mean(axis=0), atol=1e-3)
        # each corner on the ray from the centre through the box's own corner
        np.testing.assert_allclose(
            scaled - box.mean(axis=0), factor * (box - box.mean(axis=0)), atol=1e-3
        )
    assert scaled_boxes(box, ()).shape == (1, 4, 2)
    # a stack of boxes, each scaled as it would be alone
    stack = np.stack([box, box + 50])
    both = scaled_boxes(stack, (0.9, 1.1))
    assert both.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(both[0], boxes, atol=1e-4)
    np.testing.assert_allclose(both[1], scaled_boxes(box + 50, (0.9, 1.1)), atol=1e-4)


def test_mean_readings_average_each_drawings_own_rows() -> None:
    from blitzcam.vision.identify import mean_readings

    e = np.eye(3, dtype=np.float32)
    readings = np.stack([e[0], e[1], e[0], e[2], e[2], e[2]])  # two drawings, three readings each
    means = mean_readings(readings, 3)
    np.testing.assert_allclose(means[0], np.array([2, 1, 0]) / np.sqrt(5), atol=1e-6)
    np.testing.assert_allclose(means[1], e[2], atol=1e-6)
    np.testing.assert_allclose(mean_readings(readings, 1), readings)


def _ink_square_scene() -> tuple[np.ndarray, Detections]:
    """White paper with a black square, boxed exactly: a box grown takes paper in, one shrunk
    only ink."""
    frame = np.full((200, 200, 3), 255, np.uint8)
    frame[80:120, 80:120] = 0
    return frame, Detections.from_obb(np.array([[100, 100, 40, 40, 0]], np.float32), [0.9], [0])


def _darkness_embed(calls: list[int]):
    """A stand-in network: a patch's darkness d read as the unit vector (d, 1 - d, 0)."""

    def embed(patches: np.ndarray) -> np.ndarray:
        calls.append(len(patches))
        dark = 1.0 - patches.reshape(len(patches), -1).mean(axis=1) / 255.0
        rows = np.stack([dark, 1.0 - dark, np.zeros_like(dark)], axis=1).astype(np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return embed


@pytest.mark.parametrize("scales", [(), (0.9, 1.1), (0.8, 0.9, 1.1, 1.2)])
def test_each_box_is_read_at_every_size_and_the_readings_averaged(scales) -> None:
    from blitzcam.vision.back_boxes import scaled_boxes
    from blitzcam.vision.embedding import References, drawing_patch
    from blitzcam.vision.identify import mean_readings

    frame, dets = _ink_square_scene()
    # one deck, read as ink: every reading of the square is near it, so none is read again
    # along a snapped box
    references = References(np.float32([[1.0, 0.0, 0.0]]), np.int64([0]))
    calls: list[int] = []
    embed = _darkness_embed(calls)
    out = identify(frame, dets, references, ("ink",), embed, read_scales=scales)
    assert calls == [1 + len(scales)]  # one drawing, read at each size in one batch
    cuts = scaled_boxes(dets.corners[0], scales)
    expected = mean_readings(embed(np.stack([drawing_patch(frame, c) for c in cuts])), len(cuts))
    assert out.similarity[0] == pytest.approx(float(expected[0, 0]), abs=1e-6)
    assert out.deck_name(0) == "ink"
    if scales:  # the grown box took paper in: the mean reading differs from the box's own
        assert out.similarity[0] < identify(
            frame, dets, references, ("ink",), embed, read_scales=()
        ).similarity[0]
