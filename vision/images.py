"""Reading one image file into a BGR uint8 frame, whatever the file holds, or a clear error.

Grayscale, 16-bit and RGBA files are normalised to 8-bit BGR; very large photos are decoded at a
reduced scale (cv2.IMREAD_REDUCED_*) chosen from the size in the file's header, so a 12000x9000
picture never needs its full-resolution pixels in memory. Truncated PNG/JPEG files are refused
rather than counted with a grey band where the missing rows would be.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.errors import UserError

MAX_SIDE: Final = 4096  # frames are shrunk to at most this many pixels on the long side
MAX_FILE_BYTES: Final = 512 * 1024 * 1024
IMAGE_SUFFIXES: Final = frozenset(
    {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".jp2", ".pbm", ".pgm", ".ppm"}
)
_REDUCED: Final = {
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


class ImageError(UserError):
    """An image file that cannot be turned into a frame; the message names the file."""


def header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header without decoding; None for other formats."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:2] == b"\xff\xd8":
        pos = 2
        while pos + 9 <= len(data):
            if data[pos] != 0xFF:
                pos += 1
                continue
            marker = data[pos + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                pos += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", data[pos + 2 : pos + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[pos + 5 : pos + 9])
                return width, height
            pos += 2 + length
    return None


def is_truncated(data: bytes) -> bool:
    """A PNG without its IEND chunk or a JPEG without its end-of-image marker."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return b"IEND" not in data[-32:]
    if data[:2] == b"\xff\xd8":
        return b"\xff\xd9" not in data[-64:]
    return False


def reduction_for(size: tuple[int, int] | None, max_side: int = MAX_SIDE) -> int:
    """The IMREAD_REDUCED factor (1, 2, 4 or 8) that keeps the long side at or above max_side."""
    if size is None:
        return 1
    factor = 1
    while factor < 8 and max(size) // (factor * 2) >= max_side:
        factor *= 2
    return factor


def to_bgr8(image: np.ndarray) -> np.ndarray:
    """Any decoded image (gray, gray+alpha, BGR, BGRA; 8/16-bit or float) -> BGR uint8.

    Transparent pixels are laid on white, the colour of a card's surroundings in exported backs.
    """
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        image = np.clip(
            np.nan_to_num(image.astype(np.float32)) * (255 if image.max() <= 1 else 1), 0, 255
        )
        image = image.astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    channels = image.shape[2]
    if channels == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if channels == 2:  # gray + alpha
        return _over_white(cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR), image[:, :, 1])
    if channels == 4:
        return _over_white(image[:, :, :3], image[:, :, 3])
    return np.ascontiguousarray(image[:, :, :3])


def _over_white(bgr: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    a = alpha.astype(np.float32)[..., None] / 255.0
    return (bgr.astype(np.float32) * a + 255.0 * (1 - a)).astype(np.uint8)


def decode_image(data: bytes, *, name: str, max_side: int = MAX_SIDE) -> np.ndarray:
    """Image file bytes -> BGR uint8 frame, long side at most max_side; ImageError if not."""
    if not data:
        raise ImageError(f"{name}: cannot decode image: the file is empty (0 bytes)")
    if is_truncated(data):
        raise ImageError(f"{name}: cannot decode image: the file is truncated")
    size = header_size(data)
    if size is not None and (size[0] < 1 or size[1] < 1):
        raise ImageError(f"{name}: cannot decode image: the header says {size[0]}x{size[1]} pixels")
    factor = reduction_for(size, max_side)
    buffer = np.frombuffer(data, dtype=np.uint8)
    flags = _REDUCED[factor] if factor > 1 else cv2.IMREAD_UNCHANGED
    try:
        image = cv2.imdecode(buffer, flags)
    except cv2.error as exc:
        raise ImageError(
            f"{name}: cannot decode image: {str(exc).strip().splitlines()[-1]}"
        ) from None
    if image is None or image.size == 0:
        raise ImageError(
            f"{name}: cannot decode image: not an image file OpenCV can read, or corrupt"
        )
    image = to_bgr8(image)
    long_side = max(image.shape[:2])
    if long_side > max_side:
        scale = max_side / long_side
        new_wh = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
        image = cv2.resize(image, new_wh, interpolation=cv2.INTER_AREA)
    return image


def read_image(path: Path, *, max_side: int = MAX_SIDE) -> np.ndarray:
    """Read an image file as a BGR uint8 frame; ImageError naming the file when it cannot be."""
    path = Path(path)
    try:
        if path.is_dir():
            raise ImageError(f"{path}: is a folder, not an image file")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ImageError(
                f"{path}: cannot decode image: {size} bytes is too large for an image file"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except PermissionError:
        raise ImageError(f"{path}: cannot read the file: permission denied") from None
    except OSError as exc:
        raise ImageError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    return decode_image(data, name=str(path), max_side=max_side)


def write_png_atomic(path: Path, image_bgr: np.ndarray) -> None:
    """Write a PNG whole or not at all (readers never see half a file); creates the folder."""
    from blitzcam.files import write_bytes_atomic

    ok, encoded = cv2.imencode(".png", image_bgr)
    if not ok:
        raise ImageError(f"{path}: cannot encode the image as PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, encoded.tobytes())
