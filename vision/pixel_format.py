"""Any decoded picture as 8-bit BGR, the one format the pipeline takes: gray, gray+alpha, BGR,
BGRA; 8- or 16-bit samples, or float. Pure numpy (and OpenCV's colour conversions): what a file
holds is read in vision/images.py, and its pixels made into a frame here.
"""

from __future__ import annotations

import cv2
import numpy as np


def to_bgr8(image: np.ndarray, *, over: int = 255) -> np.ndarray:
    """Any decoded image (gray, gray+alpha, BGR, BGRA; 8/16-bit or float) -> BGR uint8.

    Transparent pixels are laid on grey `over`: by default white, the colour of a card's
    surroundings in exported backs. 16-bit samples that never pass 4095 are a 10- or 12-bit
    camera's, stored as they came (a PNG's sBIT, which says so, is not read by OpenCV): they are
    scaled by the bits they use, or such a picture read as nearly black (0-15).
    """
    if image.dtype == np.uint16:
        image = _eight_bits(image)
    elif image.dtype != np.uint8:
        values = np.nan_to_num(image.astype(np.float32))  # NaN -> 0, before the range test
        if image.dtype.kind == "f":
            # a float picture is 0..1 by convention; a few highlights over 1 (a processed TIFF)
            # read it as 0..255 and black: judged by nearly all of it (a sample, for speed)
            sample = values.ravel()[:: max(1, values.size // 100_000)]
            unit = bool(np.quantile(sample, 0.999) <= 1.5)
        else:
            unit = bool(values.max() <= 1)
        image = np.clip(values * (255 if unit else 1), 0, 255)
        image = image.astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    channels = image.shape[2]
    if channels == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if channels == 2:  # gray + alpha
        return _laid_on(cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR), image[:, :, 1], over)
    if channels == 4:
        return _laid_on(image[:, :, :3], image[:, :, 3], over)
    return np.ascontiguousarray(image[:, :, :3])


def without_empty_alpha(image: np.ndarray) -> np.ndarray:
    """A BMP's or TIFF's `image` without its alpha channel where that is zero everywhere: a
    32-bit BMP's padding byte (GIMP's X8R8G8B8), a TIFF's sample of no stated meaning, as photo
    viewers and browsers take them (laid on white, the picture reads blank and counts 0). A PNG
    wholly transparent shows nothing, and is laid on white as it is."""
    if image.ndim != 3 or image.shape[2] not in (2, 4) or image[..., -1].any():
        return image
    return image[..., :-1]


def has_transparency(image: np.ndarray) -> bool:
    """Whether a decoded image has an alpha channel that is not opaque everywhere."""
    if image.ndim != 3 or image.shape[2] not in (2, 4):
        return False
    alpha = image[..., -1]
    if image.dtype.kind in "ui":
        opaque = float(np.iinfo(image.dtype).max)
    else:  # a float picture: 0..1, or 0..255 (as `to_bgr8` reads it)
        opaque = 1.0 if float(np.nanmax(alpha)) <= 1.5 else 255.0
    return bool(np.nanmin(alpha) < opaque)


def wholly_transparent(image: np.ndarray) -> bool:
    """Whether a decoded image has an alpha channel that is 0 everywhere (it shows nothing:
    else said to have "no colour", with "take a colour photo")."""
    return image.ndim == 3 and image.shape[2] in (2, 4) and not np.nanmax(image[..., -1]) > 0


def _eight_bits(image: np.ndarray) -> np.ndarray:
    """16-bit samples as 8: the top 8 of 16 bits, or of the bits the colour uses where those
    are 12 or fewer. Alpha goes by the colour's bits unless it passes 4095 itself (a 16-bit
    alpha beside 12-bit colour); a 16-bit picture's faint alpha is not read as opaque."""
    alpha = image.ndim == 3 and image.shape[2] in (2, 4)
    colour = image[..., :-1] if alpha else image
    top = int(colour.max()) if colour.size else 0
    shift = 8 if top >= 1 << 12 else max(8, top.bit_length()) - 8
    eight = (colour >> shift).astype(np.uint8)
    if not alpha:
        return eight
    opacity = image[..., -1:]
    alpha_shift = 8 if int(opacity.max()) >= 1 << 12 else shift
    opacity = np.minimum(opacity >> alpha_shift, 255).astype(np.uint8)
    return np.concatenate([eight, opacity], axis=-1)


def _laid_on(bgr: np.ndarray, alpha: np.ndarray, over: int) -> np.ndarray:
    if alpha.min() == 255:  # opaque throughout (as many editors save): no blend in float
        return np.ascontiguousarray(bgr)
    a = alpha.astype(np.float32)[..., None] / 255.0
    return (bgr.astype(np.float32) * a + float(over) * (1 - a)).astype(np.uint8)
