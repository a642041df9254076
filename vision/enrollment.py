"""Deck enrollment: find the single card in a photo, rectify it, store it as the deck's reference.

`find_card` takes the largest bright quadrilateral contour (a back is white paper on a darker
table); `rectify` warps it flat and upright with a perspective transform; the result is written
atomically to data_dir()/decks/<deck>.png, where the deck profile picks it up.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.errors import UserError
from blitzcam.game.decks import DECK_NAMES
from blitzcam.vision.detections import UNKNOWN_NAME
from blitzcam.vision.images import ImageError, read_image, write_png_atomic
from blitzcam.vision.references import card_patches, user_decks_dir

CARD_WIDTH: Final = 400  # stored references are this wide, upright
CARD_ASPECT: Final = 89.0 / 57.0
MIN_CARD_AREA: Final = 0.02  # of the picture: smaller bright blobs are not the card
CAMERA_WARMUP_FRAMES: Final = 10  # auto-exposure settles before a frame is used
CAMERA_TRIES: Final = 40
DECK_NAME_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")  # the whole name: fullmatch


def order_corners(points: np.ndarray) -> np.ndarray:
    """(4,2) points -> top-left, top-right, bottom-right, bottom-left."""
    points = np.asarray(points, np.float32).reshape(4, 2)
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # clockwise from the left in image coordinates
    start = np.argmin(ordered.sum(axis=1))  # top-left: smallest x + y
    return np.roll(ordered, -start, axis=0)


def find_card(image_bgr: np.ndarray) -> np.ndarray | None:
    """The corners (4,2, ordered) of the largest bright quadrilateral, or None."""
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    scale = 800 / max(grey.shape)
    small = (
        cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if scale < 1
        else grey
    )
    scale = min(scale, 1.0)
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    _t, bright = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))  # close ink lines
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = MIN_CARD_AREA * bright.size
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
        area = cv2.contourArea(contour)
        if area < area_min or area > 0.98 * bright.size:
            continue
        hull = cv2.convexHull(contour)
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(quad) != 4:  # rounded corners or a soft edge: fall back to the oriented box
            if (
                cv2.contourArea(hull)
                / max(1.0, cv2.minAreaRect(hull)[1][0] * cv2.minAreaRect(hull)[1][1])
                < 0.85
            ):
                continue
            quad = cv2.boxPoints(cv2.minAreaRect(hull))
        return order_corners(np.asarray(quad, np.float32).reshape(4, 2) / scale)
    return None


def rectify(image_bgr: np.ndarray, corners: np.ndarray, *, width: int = CARD_WIDTH) -> np.ndarray:
    """The card warped flat, portrait, `width` pixels wide at the card's aspect ratio."""
    tl, tr, br, bl = corners
    side_w = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    side_h = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    if side_w > side_h:  # landscape in the photo: turn so the card stands upright
        corners = np.roll(corners, -1, axis=0)
    height = round(width * CARD_ASPECT)
    dst = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    matrix = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    return cv2.warpPerspective(image_bgr, matrix, (width, height), flags=cv2.INTER_AREA)


def enroll_image(
    deck: str, image_bgr: np.ndarray, *, source: str, out_dir: Path | None = None
) -> Path:
    """Find, rectify, check and store one deck's back; returns the file written."""
    corners = find_card(image_bgr)
    if corners is None:
        raise UserError(
            f"{source}: no card found (lay one back flat on a darker surface, filling "
            "a good part of the picture)"
        )
    card = rectify(image_bgr, corners)
    # raises when the card, read as a profile will read it, shows no drawing
    card_patches(card, name=source)
    target = (out_dir or user_decks_dir()) / f"{deck}.png"
    try:
        write_png_atomic(target, card)
    except OSError as exc:
        raise UserError(f"{target}: cannot store the deck's back: {exc.strerror or exc}") from None
    return target


class FrameEnroller:
    """Enrollment from a live frame, for the app: `enroll(deck, frame)` -> a one-line result.

    Raises UserError when the view shows no card or no drawing; the caller shows its message.
    """

    def __init__(self, out_dir: Path | None = None) -> None:
        self._out_dir = out_dir

    def enroll(self, deck: str, frame_bgr: np.ndarray) -> str:
        target = enroll_image(
            check_deck_name(deck), frame_bgr, source="the camera view", out_dir=self._out_dir
        )
        return f"{deck}: enrolled (stored {target})"


def _grab_from_camera(spec: str) -> np.ndarray:
    from blitzcam.vision.sources import open_source

    last = None
    with open_source(spec) as source:
        for index, frame in enumerate(source):
            last = frame.image
            if index >= CAMERA_WARMUP_FRAMES and find_card(frame.image) is not None:
                return frame.image
            if index >= CAMERA_TRIES:
                break
    if last is None:
        raise UserError(f"{spec}: the source gave no frames")
    return last


def check_deck_name(deck: str) -> str:
    """`deck` if it can name a deck (and a file); UserError otherwise."""
    if deck == UNKNOWN_NAME:
        raise UserError(f"deck name {deck!r} is reserved for backs of no deck: choose another")
    if not DECK_NAME_PATTERN.fullmatch(deck):
        raise UserError(
            f"deck name {deck!r}: expected one of {', '.join(DECK_NAMES)} or a name of lowercase "
            "letters, digits and dashes"
        )
    return deck


def enroll_command(args: argparse.Namespace) -> int:
    """`blitzcam decks enroll DECK --image FILE | --camera SOURCE`."""
    deck = check_deck_name(args.deck)
    if args.image is not None:
        try:
            image = read_image(Path(args.image))
        except ImageError as exc:
            raise UserError(str(exc)) from None
        source = str(args.image)
    else:
        image = _grab_from_camera(str(args.camera))
        source = str(args.camera)
    target = enroll_image(deck, image, source=source)
    note = "" if deck in DECK_NAMES else " (a deck of your own: counted under this name)"
    print(f"enrolled {deck} from {source}: stored {target}{note}")
    return 0
