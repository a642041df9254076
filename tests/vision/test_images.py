"""Reading images: every kind of bad file gets a clear message naming it; a fuzz test never crashes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from blitzcam.vision.images import ImageError, decode_image, header_size, read_image, reduction_for


def _png(image: np.ndarray) -> bytes:
    return cv2.imencode(".png", image)[1].tobytes()


def _jpg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image)[1].tobytes()


RNG_IMAGE = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    ("data", "shape"),
    [
        (_png(RNG_IMAGE), (60, 80, 3)),  # plain colour PNG
        (_jpg(RNG_IMAGE), (60, 80, 3)),  # plain JPEG
        (_png(RNG_IMAGE[..., 0]), (60, 80, 3)),  # grayscale becomes BGR
        (_png(RNG_IMAGE.astype(np.uint16) * 257), (60, 80, 3)),  # 16-bit becomes 8-bit
        (_png(np.dstack([RNG_IMAGE, np.full((60, 80), 128, np.uint8)])), (60, 80, 3)),  # RGBA
    ],
)
def test_decodes_to_bgr8(data: bytes, shape) -> None:
    image = decode_image(data, name="x.png")
    assert image.shape == shape
    assert image.dtype == np.uint8


def test_sixteen_bit_keeps_values() -> None:
    image = decode_image(_png(RNG_IMAGE.astype(np.uint16) * 257), name="x.png")
    np.testing.assert_array_equal(image, RNG_IMAGE)


def test_very_large_image_is_read_reduced() -> None:
    big = np.zeros((9000, 12000, 3), np.uint8)
    data = _jpg(big)
    del big
    assert header_size(data) == (12000, 9000)
    assert reduction_for((12000, 9000)) == 2
    image = decode_image(data, name="huge.jpg")
    assert max(image.shape[:2]) == 4096


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),  # zero bytes
        (b"hello, this is not an image", "not an image"),  # text file
        (_png(RNG_IMAGE)[:200], "truncated"),  # PNG cut short
        (_jpg(RNG_IMAGE)[:300], "truncated"),  # JPEG cut short
    ],
)
def test_bad_bytes(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message) as info:
        decode_image(data, name="card.jpg")
    assert str(info.value).startswith("card.jpg: ")


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="no such file"):
        read_image(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="is a folder"):
        read_image(tmp_path)


@pytest.mark.slow
def test_fuzz_mutated_files_never_crash() -> None:
    """A few hundred mutated PNG/JPEG files: each either decodes to BGR uint8 or raises ImageError."""
    rng = np.random.default_rng(1234)
    seeds = [
        _png(RNG_IMAGE),
        _jpg(RNG_IMAGE),
        _png(RNG_IMAGE[..., 0]),
        _png(RNG_IMAGE.astype(np.uint16)),
    ]
    outcomes = {"ok": 0, "error": 0}
    for i in range(300):
        data = bytearray(seeds[i % len(seeds)])
        kind = rng.integers(0, 4)
        if kind == 0:  # flip random bytes
            for pos in rng.integers(0, len(data), rng.integers(1, 20)):
                data[pos] = int(rng.integers(0, 256))
        elif kind == 1:  # cut the file
            data = data[: int(rng.integers(0, len(data)))]
        elif kind == 2:  # insert garbage
            pos = int(rng.integers(0, len(data)))
            data[pos:pos] = (
                rng.integers(0, 256, int(rng.integers(1, 64))).astype(np.uint8).tobytes()
            )
        else:  # corrupt the header region
            for pos in rng.integers(0, min(64, len(data)), 4):
                data[pos] = int(rng.integers(0, 256))
        try:
            image = decode_image(bytes(data), name=f"fuzz{i}.png")
        except ImageError as exc:
            assert str(exc).startswith(f"fuzz{i}.png: ")
            outcomes["error"] += 1
        else:
            assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
            outcomes["ok"] += 1
    assert outcomes["ok"] and outcomes["error"]
