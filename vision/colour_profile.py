"""A photo's colours as sRGB, where its file says they are in a space far from it (an ICC
profile).

OpenCV's decoders ignore a profile, and the models learned their decks' inks in sRGB: a photo
exported from a raw developer in ProPhoto RGB read its red decks as no deck (table 1: 25 cards
counted of 99). A colour-managed viewer shows such a photo as this does. A space near
sRGB is left as it is: a phone's Display P3 moves a grid of colours by 11 levels on average
and Adobe RGB (1998) by 10.6 (its greens by up to 50), and photos of the demo tables in either
count the same as in sRGB, while converting a 12 MP photo costs 0.3 s here;
ProPhoto moves the grid by 24. A judgement by the mean, on two tables: a deck whose ink sits
where Adobe RGB moves colours most is the case to watch. Pure functions over Pillow's ImageCms
(littlecms); no profile, or one that cannot be read: the frame as it is.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any, Final

import numpy as np

from blitzcam.vision.file_signatures import PNG_SIGNATURE, png_chunks
from blitzcam.vision.jpeg_segments import segments

ICC_SEGMENT: Final = 0xE2  # APP2, where a JPEG's ICC profile is kept, in parts
ICC_NAME: Final = b"ICC_PROFILE\x00"

# a profile that moves the colours of `_GRID` by no more than this on average (levels of 255)
# is taken as sRGB near enough (see the module's note)
NEAR_SRGB_SHIFT: Final = 16.0
_LEVELS = np.linspace(0, 255, 9).astype(np.uint8)
_GRID: Final = np.stack(np.meshgrid(_LEVELS, _LEVELS, _LEVELS, indexing="ij"), -1).reshape(1, -1, 3)


def embedded_profile(data: bytes) -> bytes | None:
    """The ICC profile a picture file carries (JPEG APP2, PNG iCCP, WebP ICCP, TIFF tag), read
    by Pillow from its header; None where it has none, or the file is none Pillow reads. A
    JPEG or PNG without one is told by its segments or chunks, Pillow not imported (the
    counting's start-up; most photos carry none)."""
    if not may_carry_profile(data):
        return None
    import warnings

    from PIL import Image

    # (what it says of a damaged header, "Truncated File Read", names no file: the decode's
    # own error does)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with Image.open(io.BytesIO(data)) as image:
                profile = image.info.get("icc_profile")
        except Exception:  # (a probe: the decode says what is wrong with a file)
            return None
    return profile if isinstance(profile, bytes) and profile else None


def may_carry_profile(data: bytes) -> bool:
    """Whether `data` may hold an ICC profile: False for a JPEG without an ICC_PROFILE segment
    before its image data, or a PNG without an iCCP chunk before its first IDAT; True for any
    other file (its header is Pillow's to read)."""
    if data[:2] == b"\xff\xd8":
        return any(
            marker == ICC_SEGMENT and data[at + 4 : at + 4 + len(ICC_NAME)] == ICC_NAME
            for at, marker in segments(data, skip_junk=True)
        )
    if data[:8] == PNG_SIGNATURE:
        kinds = png_chunks(data)
        return b"iCCP" in kinds[: kinds.index(b"IDAT")] if b"IDAT" in kinds else False
    return True


def as_srgb(frame_bgr: np.ndarray, profile: bytes | None) -> np.ndarray:
    """`frame_bgr` (uint8, 3 channels) brought from the RGB space `profile` describes to sRGB;
    the frame itself where there is nothing to do (no profile, sRGB's own, a grey or CMYK one
    the decoder has already turned into BGR, a profile littlecms cannot read)."""
    if profile is None or frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        return frame_bgr
    transform = _to_srgb(profile)
    if transform is None:
        return frame_bgr
    from PIL import Image, ImageCms

    rgb = Image.fromarray(np.ascontiguousarray(frame_bgr[..., ::-1]))
    converted = ImageCms.applyTransform(rgb, transform)
    return np.ascontiguousarray(np.asarray(converted)[..., ::-1])


@lru_cache(maxsize=8)
def _to_srgb(profile: bytes) -> Any | None:
    """The littlecms transform from `profile` to sRGB (cached: a folder of one camera's
    photos carries one profile); None where none is needed or it cannot be built."""
    from PIL import Image, ImageCms

    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
        if source.profile.xcolor_space.strip() != "RGB" or _is_srgb(source):
            return None
        srgb = ImageCms.createProfile("sRGB")
        transform = ImageCms.buildTransform(
            source, srgb, "RGB", "RGB", ImageCms.Intent.RELATIVE_COLORIMETRIC
        )
        moved = np.asarray(ImageCms.applyTransform(Image.fromarray(_GRID), transform))
    except (OSError, ValueError, TypeError, ImageCms.PyCMSError):
        return None
    shift = float(np.abs(moved.astype(np.int16) - _GRID).mean())
    return transform if shift > NEAR_SRGB_SHIFT else None


def _is_srgb(profile: Any) -> bool:
    """Whether a profile is sRGB's (by its description, as cameras and editors name it)."""
    from PIL import ImageCms

    description = ImageCms.getProfileDescription(profile).strip().lower()
    return description.startswith(("srgb", "iec 61966-2")) or "srgb iec61966" in description
