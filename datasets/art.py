"""Card art for blitzcam: the eight deck backs, the 40 faces and random backs, drawn in code.

All art is original (we may not ship the publisher's): engraving-style line drawings in one ink on
a white rounded card for backs (`blitzcam.datasets.symbols`, `blitzcam.datasets.lineart`), and fully
coloured faces (`blitzcam.datasets.faces`). Every render is a `CardImage`; the built-in ones are
cached per width and returned read-only so that no caller can corrupt the cache.
"""

from __future__ import annotations

import colorsys
from contextlib import ExitStack
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.datasets import engrave
from blitzcam.datasets.faces import FACE_COLOURS, paint_face
from blitzcam.datasets.lineart import FAMILIES, WIDE_FAMILIES, random_drawing
from blitzcam.datasets.symbols import symbol_drawing
from blitzcam.files import staged, write_bytes_atomic
from blitzcam.game.decks import CARD_ASPECT, DECK_NAMES, deck_by_name
from blitzcam.paths import resolved

CORNER_RADIUS: Final[float] = 0.06  # corner radius as a fraction of the card width (~3.4 mm)
PAPER: Final[tuple[int, int, int]] = (252, 251, 247)  # the white of a back
# Printing inks of the backs. The yellow is a golden mustard: faint on white, as on real backs.
INKS: Final[dict[str, tuple[int, int, int]]] = {
    "green": (18, 122, 62),
    "red": (196, 30, 42),
    "yellow": (214, 160, 20),
    "blue": (26, 72, 160),
}
SYMBOL_SIZE: Final[float] = 0.55  # the symbol's longer side as a fraction of the card width
RANDOM_SIZE: Final[tuple[float, float]] = (0.35, 0.65)  # random drawings' longer side, same unit
MIN_INK_CONTRAST: Final[float] = 45.0  # luma steps between a random ink and the paper
DRAWING_THRESHOLD: Final[float] = 0.25  # ink coverage from which a pixel counts as drawing
MIN_WIDTH: Final = 16
MIN_EXPORT_WIDTH: Final = 500
# about 1,070 dpi across a 57 mm card, more than printers need (10,000 px took 7.4 GB of memory;
# 2,400 px takes about half a gigabyte)
MAX_EXPORT_WIDTH: Final = 2_400

# The families every dataset draws from; WIDE_FAMILIES are drawn too where a dataset asks for
# them (`--wide-art`). A back whose family is None is drawn from RANDOM_FAMILIES alone: adding a
# family must not change the designs older datasets and the shipped models were made from.
RANDOM_FAMILIES: Final[tuple[str, ...]] = tuple(f for f in FAMILIES if f not in WIDE_FAMILIES)
# The scene generator keeps this family out of training, to measure how "a drawing on a back"
# generalises to drawings of a kind never seen.
HOLDOUT_FAMILY: Final[str] = "animal"


@dataclass(frozen=True)
class CardImage:
    """One rendered card, upright, filling its image.

    rgba: (H, W, 4) uint8, RGB order; alpha 0 outside the rounded corners, 255 inside (edge pixels
    anti-aliased in between). drawing_mask: (H, W) bool, the ink of a back's drawing (all False on a
    face). kind: "back" or "face". deck: the deck name for built-in backs, else None.
    """

    rgba: np.ndarray
    drawing_mask: np.ndarray
    kind: str
    deck: str | None

    def __post_init__(self) -> None:
        if self.rgba.ndim != 3 or self.rgba.shape[2] != 4 or self.rgba.dtype != np.uint8:
            raise ValueError(
                f"rgba must be (H, W, 4) uint8, got {self.rgba.shape} {self.rgba.dtype}"
            )
        if self.drawing_mask.shape != self.rgba.shape[:2] or self.drawing_mask.dtype != np.bool_:
            raise ValueError(
                f"drawing_mask must be {self.rgba.shape[:2]} bool, "
                f"got {self.drawing_mask.shape} {self.drawing_mask.dtype}"
            )
        if self.kind not in ("back", "face"):
            raise ValueError(f"kind must be 'back' or 'face', got {self.kind!r}")


def card_height(width: int) -> int:
    """The card height in pixels for a card `width` pixels wide."""
    return round(width * CARD_ASPECT)


def render_back(deck: str, *, width: int) -> CardImage:
    """The back of one of the eight decks (`blitzcam.game.decks.DECK_NAMES`); cached, read-only."""
    deck_by_name(deck)  # raises a ValueError listing the deck names
    _check_width(width)
    return _render_back(deck, width)


def render_face(colour: str, number: int, *, width: int) -> CardImage:
    """A face: colour in red/blue/yellow/green, number 1..10; cached, read-only."""
    if colour not in FACE_COLOURS:
        raise ValueError(
            f"unknown face colour {colour!r}: expected one of {', '.join(FACE_COLOURS)}"
        )
    if not 1 <= number <= 10:
        raise ValueError(f"face number must be 1..10, got {number}")
    _check_width(width)
    return _render_face(colour, number, width)


def render_random_back(
    rng: np.random.Generator, *, width: int, family: str | None = None
) -> CardImage:
    """A white back with a random line drawing (family drawn from rng when None), any ink colour.

    Size: the drawing's longer side is RANDOM_SIZE of the card width; centred with a little jitter.
    Deterministic for a given rng state; not cached (each scene draws a few fresh designs).
    """
    _check_width(width)
    if family is None:
        family = str(rng.choice(RANDOM_FAMILIES))
    elif family not in FAMILIES:
        raise ValueError(
            f"unknown line-art family {family!r}: expected one of {', '.join(FAMILIES)}"
        )
    drawing = random_drawing(rng, family)
    ink = random_ink(rng)
    size = max(4, round(width * float(rng.uniform(*RANDOM_SIZE))))
    jitter = rng.uniform(-0.04, 0.04, 2) * width
    coverage = engrave.render(drawing, size, supersample=2 if size > 48 else 3)
    return _compose_back(
        coverage, ink, width, offset=(float(jitter[0]), float(jitter[1])), deck=None
    )


def random_ink(rng: np.random.Generator) -> tuple[int, int, int]:
    """An ink colour of any hue: a third faint and light, a third strong, a third dark.

    Faint inks are darkened until they stand at least MIN_INK_CONTRAST (luma) off the paper, about
    half the yellow deck's contrast: faint, never invisible.
    """
    hue = float(rng.random())
    tone = rng.integers(3)
    if tone == 0:
        sat, val = rng.uniform(0.3, 0.75), rng.uniform(0.75, 0.95)
    elif tone == 1:
        sat, val = rng.uniform(0.55, 1.0), rng.uniform(0.5, 0.85)
    else:
        sat, val = rng.uniform(0.0, 0.8), rng.uniform(0.08, 0.45)
    rgb = np.array(colorsys.hsv_to_rgb(hue, float(sat), float(val))) * 255.0
    luma = np.array([0.299, 0.587, 0.114])
    shortfall = MIN_INK_CONTRAST - float(luma @ (np.asarray(PAPER, float) - rgb))
    if shortfall > 0:
        rgb *= 1.0 - shortfall / float(luma @ rgb)
    r, g, b = (int(v) for v in np.clip(np.round(rgb), 0, 255))
    return r, g, b


def save_png_rgba(path: Path, rgba: np.ndarray) -> None:
    """Write an RGBA uint8 image as PNG atomically (temp file in the same folder, then rename)."""
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(
            f"{path}: expected an (H, W, 4) uint8 image, got {rgba.shape} {rgba.dtype}"
        )
    ok, data = cv2.imencode(".png", cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))
    if not ok:
        raise OSError(f"{path}: PNG encoding failed")
    write_bytes_atomic(path, data.tobytes())


def export_backs(out_dir: Path, *, width: int = 600) -> list[Path]:
    """Write the eight backs as out_dir/<deck>.png (RGBA, transparent corners); return the paths.
    All eight or none: each is written beside its place first, and all are moved in once every
    one is written (else a full disk leaves some, which the next export refuses as the user's
    own backs). An OSError names the back that could not be written (the error's own
    file name is the hidden file it is written through)."""
    if width < MIN_EXPORT_WIDTH:
        raise ValueError(f"export width must be >= {MIN_EXPORT_WIDTH} px, got {width}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{deck}.png" for deck in DECK_NAMES]
    with ExitStack() as moved_in_at_the_end:
        for deck, path in zip(DECK_NAMES, paths, strict=True):
            # (a link is written through: the file it names is replaced, the link stays)
            place = resolved(path) if path.is_symlink() else path
            try:
                beside = moved_in_at_the_end.enter_context(staged(place))
                save_png_rgba(beside, render_back(deck, width=width).rgba)
            except OSError as exc:
                raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    return paths


# --- internals -----------------------------------------------------------------------------------


def _check_width(width: int) -> None:
    if int(width) != width or width < MIN_WIDTH:
        raise ValueError(f"card width must be an integer >= {MIN_WIDTH} px, got {width!r}")


@lru_cache(maxsize=64)
def _card_alpha(width: int) -> np.ndarray:
    """The rounded-rectangle alpha of a card, anti-aliased, read-only."""
    ss = 4
    h, w = card_height(width), width
    big = np.zeros((h * ss, w * ss), np.uint8)
    r = max(1, round(CORNER_RADIUS * width * ss))
    cv2.rectangle(big, (r, 0), (w * ss - 1 - r, h * ss - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w * ss - 1, h * ss - 1 - r), 255, -1)
    for cx, cy in (
        (r, r),
        (w * ss - 1 - r, r),
        (r, h * ss - 1 - r),
        (w * ss - 1 - r, h * ss - 1 - r),
    ):
        cv2.circle(big, (cx, cy), r, 255, -1, cv2.LINE_AA)
    alpha = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    alpha.flags.writeable = False
    return alpha


@lru_cache(maxsize=64)
def _symbol_coverage(symbol: str, size: int) -> np.ndarray:
    """One symbol's ink coverage at a size: shared by both decks that print it (same mask)."""
    cov = engrave.render(engrave.fit(symbol_drawing(symbol)), size, supersample=3)
    cov.flags.writeable = False
    return cov


@lru_cache(maxsize=256)
def _render_back(deck: str, width: int) -> CardImage:
    d = deck_by_name(deck)
    coverage = _symbol_coverage(d.symbol, max(4, round(width * SYMBOL_SIZE)))
    return _compose_back(coverage, INKS[d.ink], width, offset=(0.0, 0.0), deck=deck)


@lru_cache(maxsize=1024)
def _render_face(colour: str, number: int, width: int) -> CardImage:
    h = card_height(width)
    rgb = paint_face(colour, number, width=width, height=h)
    rgba = np.dstack([rgb, _card_alpha(width)])
    mask = np.zeros((h, width), bool)
    return _frozen(CardImage(rgba, mask, "face", None))


def _compose_back(
    coverage: np.ndarray,
    ink: tuple[int, int, int],
    width: int,
    *,
    offset: tuple[float, float],
    deck: str | None,
) -> CardImage:
    """Print a drawing's coverage in one ink on a white card, centred (plus offset).

    Only the drawing's square is blended (in float); the rest is a copy of the cached blank card,
    which keeps a random back at width ~160 to a few milliseconds.
    """
    rgba = _blank_card(width).copy()
    h, w = rgba.shape[:2]
    mask = np.zeros((h, w), bool)
    size_y, size_x = coverage.shape
    x0 = round((w - size_x) / 2 + offset[0])
    y0 = round((h - size_y) / 2 + offset[1])
    sx0, sy0 = max(0, -x0), max(0, -y0)
    dx0, dy0, dx1, dy1 = max(0, x0), max(0, y0), min(w, x0 + size_x), min(h, y0 + size_y)
    if dx1 > dx0 and dy1 > dy0:
        cov = coverage[sy0 : sy0 + dy1 - dy0, sx0 : sx0 + dx1 - dx0]
        paper = np.asarray(PAPER, np.float32)
        blend = paper + (np.asarray(ink, np.float32) - paper) * cov[..., None]
        rgba[dy0:dy1, dx0:dx1, :3] = (blend + 0.5).astype(np.uint8)
        inside = rgba[dy0:dy1, dx0:dx1, 3] > 0
        mask[dy0:dy1, dx0:dx1] = (cov >= DRAWING_THRESHOLD) & inside
    return _frozen(CardImage(rgba, mask, "back", deck))


@lru_cache(maxsize=64)
def _blank_card(width: int) -> np.ndarray:
    """A white card with rounded transparent corners, read-only (copy before drawing on it)."""
    alpha = _card_alpha(width)
    rgba = np.empty((*alpha.shape, 4), np.uint8)
    rgba[..., :3] = PAPER
    rgba[..., 3] = alpha
    rgba.flags.writeable = False
    return rgba


def _frozen(card: CardImage) -> CardImage:
    card.rgba.flags.writeable = False
    card.drawing_mask.flags.writeable = False
    return card
