"""Things on a card table that are not cards: phones, coins, pens, a player's hand.

Each function draws one object, seen from above, as an RGBA uint8 sprite sized from the
scene's card width in pixels (real proportions: a card is ~5.7 cm wide).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import cv2
import numpy as np

Sprite = Callable[[np.random.Generator, int], np.ndarray]


def _shade(rgba: np.ndarray, rng: np.random.Generator, strength: float) -> np.ndarray:
    """A soft top-left to bottom-right light ramp, so flat fills look like lit objects."""
    h, w = rgba.shape[:2]
    ramp = np.add.outer(np.linspace(0, 1, h), np.linspace(0, 1, w)) / 2
    if rng.random() < 0.5:
        ramp = ramp[::-1]
    light = (1 + strength * (0.5 - ramp)).astype(np.float32)[..., None]
    rgba[..., :3] = np.clip(rgba[..., :3] * light, 0, 255).astype(np.uint8)
    return rgba


def _rounded_rect(
    canvas: np.ndarray, x0: int, y0: int, x1: int, y1: int, r: int, colour: tuple[int, ...]
) -> None:
    cv2.rectangle(canvas, (x0 + r, y0), (x1 - r, y1), colour, -1, cv2.LINE_AA)
    cv2.rectangle(canvas, (x0, y0 + r), (x1, y1 - r), colour, -1, cv2.LINE_AA)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(canvas, (cx, cy), r, colour, -1, cv2.LINE_AA)


def phone(rng: np.random.Generator, card_px: int) -> np.ndarray:
    """A smartphone, screen up (dark glass, sometimes lit) or face down (coloured case)."""
    w = max(8, round(card_px * rng.uniform(1.15, 1.35)))
    h = round(w * rng.uniform(1.9, 2.15))
    rgba = np.zeros((h, w, 4), np.uint8)
    r = max(2, w // 7)
    body = (*tuple(int(v) for v in rng.integers(10, 60, 3)), 255)
    if rng.random() < 0.4:
        body = (*tuple(int(v) for v in rng.integers(30, 230, 3)), 255)
    _rounded_rect(rgba, 0, 0, w - 1, h - 1, r, body)
    if rng.random() < 0.6:
        m = max(1, w // 22)
        lit = rng.random() < 0.4
        screen = tuple(
            int(v) for v in (rng.integers(60, 200, 3) if lit else rng.integers(5, 30, 3))
        )
        _rounded_rect(rgba, m, m, w - 1 - m, h - 1 - m, max(1, r - m), (*screen, 255))
    else:
        cam = max(2, w // 5)
        cv2.rectangle(
            rgba, (w // 10, h // 30), (w // 10 + cam, h // 30 + cam), (20, 20, 20, 255), -1
        )
    return _shade(rgba, rng, 0.5)


def coin(rng: np.random.Generator, card_px: int) -> np.ndarray:
    """A coin: metallic disc with a rim and a little relief."""
    d = max(6, round(card_px * rng.uniform(0.3, 0.5)))
    rgba = np.zeros((d, d, 4), np.uint8)
    metal = rng.choice([[200, 160, 70], [190, 190, 195], [180, 110, 70]]) * rng.uniform(0.7, 1.1)
    c = (d - 1) / 2
    cv2.circle(
        rgba,
        (round(c), round(c)),
        d // 2,
        (*np.clip(metal, 0, 255).astype(int).tolist(), 255),
        -1,
        cv2.LINE_AA,
    )
    rim = np.clip(metal * 0.75, 0, 255).astype(int).tolist()
    cv2.circle(
        rgba, (round(c), round(c)), max(1, d // 2 - max(1, d // 12)), (*rim, 255), 1, cv2.LINE_AA
    )
    relief = np.clip(metal * 0.85, 0, 255).astype(int).tolist()
    cv2.circle(rgba, (round(c), round(c)), max(1, d // 5), (*relief, 255), -1, cv2.LINE_AA)
    return _shade(rgba, rng, 0.8)


def pen(rng: np.random.Generator, card_px: int) -> np.ndarray:
    """A pen or pencil lying flat: long thin capsule with a tip and a clip."""
    length = max(10, round(card_px * rng.uniform(2.2, 2.7)))
    thick = max(3, round(card_px * rng.uniform(0.1, 0.16)))
    rgba = np.zeros((thick + 2, length, 4), np.uint8)
    body = tuple(int(v) for v in rng.integers(0, 256, 3))
    mid = (thick + 1) // 2
    cv2.line(
        rgba, (thick // 2 + 1, mid), (length - thick * 2, mid), (*body, 255), thick, cv2.LINE_AA
    )
    tip = np.array(
        [
            [length - thick * 2, mid - thick // 2],
            [length - 1, mid],
            [length - thick * 2, mid + thick // 2],
        ],
        np.int32,
    )
    cv2.fillConvexPoly(rgba, tip, (225, 200, 160, 255), cv2.LINE_AA)
    cv2.line(
        rgba,
        (thick, mid - thick // 4),
        (length // 3, mid - thick // 4),
        (200, 200, 205, 255),
        max(1, thick // 4),
    )
    return _shade(rgba, rng, 0.6)


def hand(rng: np.random.Generator, card_px: int) -> np.ndarray:
    """A hand reaching in, palm down, fingers towards the sprite's top; wrist at the bottom edge
    (the composer puts that edge at the frame's edge)."""
    w = max(12, round(card_px * rng.uniform(1.6, 2.1)))
    h = round(w * rng.uniform(2.4, 2.9))  # includes the forearm running out of the frame
    rgba = np.zeros((h, w, 4), np.uint8)
    skin = np.array(
        rng.choice([[224, 172, 140], [198, 134, 96], [141, 85, 54], [92, 58, 40], [236, 196, 170]]),
        float,
    ) * rng.uniform(0.85, 1.1)
    colour = (*np.clip(skin, 0, 255).astype(int).tolist(), 255)
    palm_c = (w // 2, round(h * 0.45))
    cv2.ellipse(rgba, palm_c, (round(w * 0.4), round(h * 0.16)), 0, 0, 360, colour, -1, cv2.LINE_AA)
    cv2.rectangle(rgba, (round(w * 0.2), palm_c[1]), (round(w * 0.8), h - 1), colour, -1)
    finger_w = max(2, round(w * 0.15))
    spread = rng.uniform(-0.15, 0.15)
    for i, length in enumerate((0.22, 0.27, 0.26, 0.2)):
        x = round(w * (0.2 + 0.2 * i))
        top = round(palm_c[1] - h * (0.1 + length * rng.uniform(0.75, 1.0)))
        dx = round((i - 1.5) * spread * w)
        cv2.line(rgba, (x, palm_c[1]), (x + dx, max(top, finger_w)), colour, finger_w, cv2.LINE_AA)
    thumb_side = 1 if rng.random() < 0.5 else -1
    tx = w // 2 + thumb_side * round(w * 0.38)
    cv2.line(
        rgba,
        (w // 2 + thumb_side * round(w * 0.2), round(h * 0.55)),
        (min(max(tx, finger_w), w - finger_w), round(h * 0.38)),
        colour,
        finger_w + 1,
        cv2.LINE_AA,
    )
    sleeve = rng.random() < 0.6
    if sleeve:
        cloth = tuple(int(v) for v in rng.integers(10, 230, 3))
        cv2.rectangle(
            rgba, (round(w * 0.15), round(h * 0.78)), (round(w * 0.85), h - 1), (*cloth, 255), -1
        )
    return _shade(rgba, rng, 0.35)


CLUTTER: Final[dict[str, Sprite]] = {"phone": phone, "coin": coin, "pen": pen}
