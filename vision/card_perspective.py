"""A card's shape seen through a camera's slant: whether a quadrilateral found in a picture is a
card seen through some lens, how many times longer than wide it is once the slant is undone,
and which of its sides are the long ones. Pure geometry of four corners and a picture size."""

from __future__ import annotations

from typing import Final

import numpy as np

# A quadrilateral this much longer than wide, or no more, is a card seen at a slant; outside it,
# two cards touching or a card cut by the frame (a card is 1.56).
CARD_SHAPE_RANGE: Final = (1.3, 1.9)
PARALLEL_SLANT: Final = 0.02  # sides converging less than this are parallel (seen square-on)
SLANT_TO_MEASURE: Final = 0.15  # both pairs of sides must converge this much to read the slant
FOCAL_RANGE: Final = (0.4, 4.0)  # a lens's focal length, in the picture's long sides
# a slant shortens the sides running along it, which then converge: past this angle between
# them, and looking less than LONG_ALONG_SLANT as long as the sides across, the card may lie
# either way (a card tilted 70 degrees along its length looks like one lying across, 0.61)
STEEP_CONVERGENCE_DEG: Final = 10.0
SQUARE_ON_DEG: Final = 2.0  # both pairs of sides closer to parallel than this: no slant to read
LONG_ALONG_SLANT: Final = 0.8  # a card's short sides look at most 1/CARD_ASPECT (0.64) as long


def _vanishing_directions(
    corners: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The directions (homogeneous) of the quadrilateral's two pairs of sides, at their
    vanishing points (`corners` ordered tl, tr, br, bl)."""
    tl, tr, br, bl = (np.append(np.asarray(c, np.float64), 1.0) for c in corners)
    k2 = np.dot(np.cross(tl, br), bl) / np.dot(np.cross(tr, br), bl)
    k3 = np.dot(np.cross(tl, br), tr) / np.dot(np.cross(bl, br), tr)
    return k2 * tr - tl, k3 * bl - tl


def _sides_at_focal(
    n2: np.ndarray, n3: np.ndarray, focal: float, image_wh: tuple[int, int]
) -> tuple[float, float]:
    """The rectangle's sides along `n2` and `n3` (`_vanishing_directions`), to one scale, seen
    through a lens of `focal` pixels whose principal point is the picture's centre."""
    u0, v0 = image_wh[0] / 2, image_wh[1] / 2
    inverse = np.linalg.inv(np.array([[focal, 0, u0], [0, focal, v0], [0, 0, 1]]))
    metric = inverse.T @ inverse
    return (
        float(np.sqrt(max(0.0, float(n2 @ metric @ n2)))),
        float(np.sqrt(max(0.0, float(n3 @ metric @ n3)))),
    )


def _ratio_at_focal(
    n2: np.ndarray, n3: np.ndarray, focal: float, image_wh: tuple[int, int]
) -> float:
    """The rectangle's length over width, seen through a lens of `focal` pixels whose
    principal point is the picture's centre."""
    first, second = _sides_at_focal(n2, n3, focal, image_wh)
    ratio = first / max(1e-6, second)
    return max(ratio, 1 / max(ratio, 1e-9))


def could_be_a_card(corners: np.ndarray, image_wh: tuple[int, int]) -> bool:
    """Whether some camera lens (FOCAL_RANGE) sees a card's shape (CARD_SHAPE_RANGE) as the
    quadrilateral `corners`: for the slants whose lens the picture cannot tell
    (`seen_card_ratio` None). Half a card, found where a shadow or the picture's edge cut it,
    is no card's shape through any lens."""
    n2, n3 = _vanishing_directions(corners)
    ratios = [
        _ratio_at_focal(n2, n3, share * max(image_wh), image_wh)
        for share in np.geomspace(*FOCAL_RANGE, 25)
    ]
    finite = [r for r in ratios if np.isfinite(r)]
    return not finite or (min(finite) <= CARD_SHAPE_RANGE[1] and max(finite) >= CARD_SHAPE_RANGE[0])


def seen_card_ratio(corners: np.ndarray, image_wh: tuple[int, int]) -> float | None:
    """How many times longer than wide the rectangle seen as `corners` (ordered) is, undoing
    the camera's slant (Zhang & He, "Whiteboard scanning and image enhancement", 2007: the
    focal length is estimated from the quadrilateral, the principal point taken as the
    picture's centre); None when the picture cannot tell (a trapezoid: one vanishing point at
    infinity leaves the focal length, and so the ratio, open).

    A parallelogram (seen square-on) gives its own side ratio."""
    u0, v0 = image_wh[0] / 2, image_wh[1] / 2
    n2, n3 = _vanishing_directions(corners)
    # how far each vanishing point is from infinity, as the slope of the sides' convergence
    slant = [abs(n[2]) * max(image_wh) / max(1e-9, float(np.hypot(n[0], n[1]))) for n in (n2, n3)]
    if max(slant) < PARALLEL_SLANT:
        ratio = float(np.hypot(n2[0], n2[1]) / max(1e-9, float(np.hypot(n3[0], n3[1]))))
    elif min(slant) < SLANT_TO_MEASURE:
        # nearly a trapezoid: a pixel's error in a corner swings the focal length estimated
        # from it by tens of times (a card tilted 40-45 degrees read as 1.2 or 1.9 long)
        return None
    else:
        d = n2[2] * n3[2]
        f2 = (
            -(
                (n2[0] * n3[0] - (n2[0] * n3[2] + n2[2] * n3[0]) * u0 + d * u0**2)
                + (n2[1] * n3[1] - (n2[1] * n3[2] + n2[2] * n3[1]) * v0 + d * v0**2)
            )
            / d
        )
        if not np.isfinite(f2) or f2 <= 0:
            return None
        f = float(np.sqrt(f2))
        if not FOCAL_RANGE[0] <= f / max(image_wh) <= FOCAL_RANGE[1]:  # no camera's lens
            return None
        return _ratio_at_focal(n2, n3, f, image_wh)
    return max(ratio, 1 / max(ratio, 1e-9))


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    cos = abs(float(a @ b)) / max(1e-9, float(np.linalg.norm(a) * np.linalg.norm(b)))
    return float(np.degrees(np.arccos(min(1.0, cos))))


def long_sides_down(corners: np.ndarray, image_wh: tuple[int, int] | None = None) -> bool | None:
    """Whether the card's long sides are the quadrilateral's left and right ones (`corners`
    ordered tl, tr, br, bl), its top and bottom (False), or None when the slant hides which.

    Comparing the sides as seen fails on a steep slant: a card tilted 55 degrees along its
    length looks wider than long and was stored turned and stretched. The sides along a slant
    converge and only they are shortened, so they are the long ones whenever they look more
    than LONG_ALONG_SLANT as long as the others (its short sides never look more than 0.64).
    Past that, in a picture of `image_wh`, the way that some camera lens sees (`_lens_tells`)."""
    tl, tr, br, bl = (np.asarray(c, np.float64) for c in corners)
    down = (np.linalg.norm(bl - tl) + np.linalg.norm(br - tr)) / 2
    across = (np.linalg.norm(tr - tl) + np.linalg.norm(br - bl)) / 2
    down_converge = _angle_deg(bl - tl, br - tr)
    across_converge = _angle_deg(tr - tl, br - bl)
    if max(down_converge, across_converge) < SQUARE_ON_DEG:  # seen square-on: as it looks
        return bool(down > across)
    along, other, converge = (
        (down, across, down_converge)
        if down_converge >= across_converge
        else (across, down, across_converge)
    )
    if along >= LONG_ALONG_SLANT * other:
        long_along = True
    elif converge > STEEP_CONVERGENCE_DEG:
        return None if image_wh is None else _lens_tells(corners, image_wh)
    else:
        long_along = False
    return long_along == (down_converge >= across_converge)


def _lens_tells(corners: np.ndarray, image_wh: tuple[int, int]) -> bool | None:
    """Whether the card's long sides run down the picture, as `long_sides_down` says, where
    only one way is a card's shape (CARD_SHAPE_RANGE) through some lens (FOCAL_RANGE); None
    where both are, or neither. How fast the sides converge grows with the share of the
    picture the card fills, so an angle alone refused a card lying across, 44 % of a phone's
    picture wide, seen 20 degrees off straight-down (its other reading needs 67 degrees and a
    lens no camera has)."""
    n2, n3 = _vanishing_directions(corners)  # the top side's direction, the left side's
    readings = set()
    for share in np.geomspace(*FOCAL_RANGE, 49):
        across, down = _sides_at_focal(n2, n3, share * max(image_wh), image_wh)
        if min(across, down) <= 0 or not np.isfinite(across / down):
            continue
        for long_down, ratio in ((True, down / across), (False, across / down)):
            if CARD_SHAPE_RANGE[0] <= ratio <= CARD_SHAPE_RANGE[1]:
                readings.add(long_down)
    return readings.pop() if len(readings) == 1 else None
