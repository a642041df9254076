"""Reading images: every kind of bad file gets a clear message naming it; a fuzz test never crashes."""

from __future__ import annotations

import io
import logging
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Final

import cv2
import numpy as np
import pytest

from blitzcam.vision.images import (
    GREY_FILL_MIN_DEPTH,
    ImageError,
    decode_image,
    decode_picture,
    grey_filled_edge,
    has_colour,
    header_size,
    is_truncated,
    read_image,
    reduction_for,
)
from blitzcam.vision.pixel_format import to_bgr8


def _png(image: np.ndarray) -> bytes:
    return cv2.imencode(".png", image)[1].tobytes()


def _jpg(image: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", image)[1].tobytes()


RNG_IMAGE = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
# a larger picture for the damage tests: JPEG data long enough to damage midway
NOISE = np.random.default_rng(3).integers(0, 255, (240, 320, 3), dtype=np.uint8)


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
        (b"hello, this is not an image", "a text file, not a picture"),  # text file
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


def _with_orientation(jpeg: bytes, orientation: int) -> bytes:
    """`jpeg` with an EXIF segment whose only tag is the orientation, as phones write it."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01"  # big-endian, IFD0 at 8, one entry
    tiff += b"\x01\x12\x00\x03\x00\x00\x00\x01" + orientation.to_bytes(2, "big") + b"\x00\x00"
    tiff += b"\x00\x00\x00\x00"  # no next IFD
    body = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + jpeg[2:]


def test_bytes_after_the_end_are_not_truncation() -> None:
    # motion photos append a video to the JPEG; some tools pad PNGs after IEND
    for data in (_jpg(RNG_IMAGE), _png(RNG_IMAGE)):
        padded = data + b"\x00" * 100 + b"ftypmp42" + bytes(range(256)) * 4
        assert not is_truncated(padded)
        np.testing.assert_array_equal(
            decode_image(padded, name="x"), decode_image(data, name="x")
        )
    # ... while a file cut short is still refused, whatever its tail holds
    jpeg, png = _jpg(RNG_IMAGE), _png(RNG_IMAGE)
    assert is_truncated(jpeg[: len(jpeg) // 2])
    assert is_truncated(png[: len(png) // 2])
    assert is_truncated(png[: len(png) - 12])  # just the IEND chunk missing
    for cut in (len(jpeg) - 3, len(jpeg) - 40, len(jpeg) // 2):  # into the last blocks
        with pytest.raises(ImageError, match="the file is truncated"):
            decode_image(jpeg[:cut], name="cut.jpg")


@pytest.mark.parametrize("progressive", [False, True])
def test_a_jpeg_whose_end_marker_alone_is_missing_is_read_as_it_was_made(progressive: bool) -> None:
    # (some cameras' snapshots end so; refused as "truncated", it decodes as the whole file)
    flags = [cv2.IMWRITE_JPEG_PROGRESSIVE, 1] if progressive else []
    whole = cv2.imencode(".jpg", RNG_IMAGE, flags)[1].tobytes()
    assert whole.endswith(b"\xff\xd9") and is_truncated(whole[:-2])
    np.testing.assert_array_equal(decode_image(whole[:-2], name="snap.jpg"),
                                  decode_image(whole, name="snap.jpg"))


def test_an_exif_thumbnail_does_not_hide_a_cut_photo() -> None:
    # the thumbnail's own end marker sits in the EXIF segment, before the photo's image data
    thumb = _jpg(RNG_IMAGE[:8, :8])
    body = b"Exif\x00\x00" + thumb
    photo = _jpg(RNG_IMAGE)
    with_thumb = photo[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + photo[2:]
    assert not is_truncated(with_thumb)
    assert is_truncated(with_thumb[: len(with_thumb) - 40])


@pytest.mark.parametrize("side", [400, 9000])  # decoded whole, and reduced by the JPEG decoder
def test_exif_orientation_is_applied_at_every_size(side: int) -> None:
    stored = np.zeros((side * 3 // 4, side, 3), np.uint8)
    stored[:, : side // 4] = 255  # a white band down the left side as stored
    picture = decode_picture(_with_orientation(_jpg(stored), 6), name="phone.jpg")
    del stored
    frame = picture.frame
    assert frame.shape[0] > frame.shape[1]  # turned upright: portrait
    assert picture.size == (side * 3 // 4, side)
    # orientation 6: the stored picture turned a quarter clockwise, its left side on top
    assert frame[: frame.shape[0] // 8].mean() > 200 and frame[-frame.shape[0] // 8 :].mean() < 50


def test_a_large_transparent_png_is_laid_on_white_too() -> None:
    for width in (400, 8200):  # 8200: shrunk to MAX_SIDE
        clear = np.zeros((100, width, 4), np.uint8)  # transparent, its hidden colour black
        assert decode_image(_png(clear), name="clear.png").min() == 255


def test_a_picture_knows_its_own_size() -> None:
    picture = decode_picture(_jpg(np.zeros((4000, 9000, 3), np.uint8)), name="wide.jpg")
    assert picture.size == (9000, 4000)
    assert max(picture.frame.shape[:2]) == 4096
    sx, sy = picture.scale
    assert sx == pytest.approx(9000 / picture.frame.shape[1])
    assert sy == pytest.approx(4000 / picture.frame.shape[0])
    small = decode_picture(_png(RNG_IMAGE), name="small.png")
    assert small.size == (80, 60) and small.scale == (1.0, 1.0)


def test_a_float_image_with_a_nan_keeps_its_picture() -> None:
    image = np.full((4, 4, 3), 0.5, np.float32)
    image[0, 0, 0] = np.nan
    out = to_bgr8(image)
    assert out[1:, 1:].min() == 127 and out[0, 0, 0] == 0


def test_a_large_image_of_a_type_resize_cannot_take_is_still_read(tmp_path: Path) -> None:
    wide = np.zeros((60, 5000), np.int32)  # a signed-integer TIFF, larger than the frame
    wide[:, :2500] = 2**30
    path = tmp_path / "wide.tif"
    assert cv2.imwrite(str(path), wide)
    frame = read_image(path)
    assert frame.shape[1] == 4096 and frame.dtype == np.uint8


def test_a_large_opaque_png_is_decoded_reduced_and_a_transparent_one_whole() -> None:
    from blitzcam.vision.images import _may_be_transparent

    opaque = _png(np.zeros((10, 10, 3), np.uint8))
    clear = _png(np.zeros((10, 10, 4), np.uint8))
    assert not _may_be_transparent(opaque) and _may_be_transparent(clear)
    assert not _may_be_transparent(_jpg(RNG_IMAGE))
    picture = decode_picture(_png(np.full((100, 8200, 3), 7, np.uint16)), name="wide.png")
    assert picture.size == (8200, 100) and max(picture.frame.shape[:2]) == 4096


def test_a_device_is_refused_and_a_pipe_is_read(tmp_path: Path) -> None:
    import os
    import threading

    # /dev/zero says 0 bytes and never ends: read whole, it ran out of memory
    with pytest.raises(ImageError, match=r"/dev/zero: is not an image file \(a device\?\)"):
        read_image(Path("/dev/zero"))
    # a pipe, as `... | blitzcam count /dev/stdin` gives one, is read to its end
    _ok, png = cv2.imencode(".png", np.full((30, 40, 3), 200, np.uint8))
    fifo = tmp_path / "photo.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(png.tobytes()))
    writer.start()
    try:
        assert read_image(fifo).shape == (30, 40, 3)
    finally:
        writer.join(timeout=10)


def test_a_small_file_is_read_without_reserving_the_size_limit(tmp_path: Path) -> None:
    import io

    from blitzcam.vision import images

    reads = []

    class Recording(io.BytesIO):
        def read(self, size: int = -1) -> bytes:
            reads.append(size)
            return super().read(size)

    assert images._read_at_most(Recording(b"x" * 191), images.MAX_FILE_BYTES, expected=191) == (
        b"x" * 191
    )
    assert max(reads) <= 1 << 20  # not one read of 512 MiB: that reserved it for every file
    assert images._read_at_most(Recording(b"x" * 100), 99, expected=0) is None  # a pipe, too big


def test_a_one_pixel_high_strip_is_decoded(tmp_path: Path) -> None:
    strip = np.tile(np.arange(256, dtype=np.uint8), 36)[None, :, None].repeat(3, axis=2)
    assert strip.shape == (1, 9216, 3) and reduction_for((9216, 1)) == 1
    path = tmp_path / "strip.png"
    cv2.imwrite(str(path), strip)
    frame = read_image(path)  # was OpenCV's "inv_scale_x > 0" from a half-size read
    assert frame.shape[0] == 1 and frame.dtype == np.uint8


def test_a_ten_bit_pgm_reads_as_bright_as_it_is(tmp_path: Path) -> None:
    grey = np.full((40, 60), 1023, np.uint16)
    grey[:, :30] = 512
    header = b"P5\n# made by a scanner\n60 40\n1023\n"
    path = tmp_path / "scan.pgm"
    path.write_bytes(header + grey.astype(">u2").tobytes())
    frame = read_image(path)
    assert int(frame[0, 59, 0]) == 255 and 126 <= int(frame[0, 0, 0]) <= 128
    four_bits = tmp_path / "four.pgm"  # an 8-bit file with a small maxval, too
    four_bits.write_bytes(b"P5 2 1 15\n" + bytes([15, 0]))
    assert [int(v) for v in read_image(four_bits)[0, :, 0]] == [255, 0]
    full = tmp_path / "full.pgm"  # a full-range file is untouched
    full.write_bytes(b"P5 60 40 65535\n" + (grey * 64).astype(">u2").tobytes())
    assert int(read_image(full)[0, 59, 0]) == 255


def _png_declaring(width: int, height: int, pixels: np.ndarray | None = None) -> bytes:
    """A small PNG (grey, or `pixels`) whose header says it is `width` x `height` (its CRC
    made right)."""
    import zlib

    data = bytearray(_png(np.full((8, 8, 3), 128, np.uint8) if pixels is None else pixels))
    ihdr = data.index(b"IHDR")
    data[ihdr + 4 : ihdr + 12] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[ihdr : ihdr + 17]))
    data[ihdr + 17 : ihdr + 21] = struct.pack(">I", crc)
    return bytes(data)


def test_a_picture_bigger_than_any_decoder_takes_is_said_in_our_words() -> None:
    # OpenCV refused it with a line naming its own source file and an assertion
    with pytest.raises(ImageError) as info:
        decode_image(_png_declaring(60000, 60000), name="bomb.png")
    assert str(info.value) == (
        "bomb.png: cannot decode image: the header says 60000x60000 pixels, more than the "
        "1,073,741,824 a picture may have"
    )


def _progressive_jpeg_declaring(width: int, height: int, subsampling: int) -> bytes:
    """A small progressive JPEG whose frame header says `width` x `height`."""
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 40, 40)).save(out, "JPEG", progressive=True, subsampling=subsampling)
    data = bytearray(out.getvalue())
    frame = data.index(b"\xff\xc2")
    data[frame + 5 : frame + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def test_a_progressive_jpeg_too_big_to_hold_is_refused_from_its_header() -> None:
    # libjpeg holds a progressive JPEG's every coefficient, however small it decodes it: a 12 MB
    # file of 32000 x 32000 px took 6.4 GB (review); a baseline one is read a band at a time
    with pytest.raises(ImageError) as info:
        decode_image(_progressive_jpeg_declaring(32000, 32000, 0), name="bomb.jpg")
    assert str(info.value) == (
        "bomb.jpg: cannot decode image: a 32000x32000 progressive JPEG is decoded whole, which "
        "would take 5.7 GiB of memory, more than the 2 GiB allowed: save it smaller, or as a "
        "baseline JPEG"
    )
    # its colour at a quarter of the pixels (4:2:0): 2.9 GiB; 24000 x 24000 of it, 1.6: let through
    with pytest.raises(ImageError, match=r"would take 2\.9 GiB"):
        decode_image(_progressive_jpeg_declaring(32000, 32000, 2), name="bomb.jpg")
    with pytest.raises(ImageError) as info:
        decode_image(_progressive_jpeg_declaring(24000, 24000, 2), name="big.jpg")
    assert "GiB" not in str(info.value)  # (what libjpeg makes of a header that lies)
    # its end marker missing too: refused from its header all the same (libjpeg, asked whether
    # only the marker is missing, read 515 bytes of it into 2.6 GB first)
    with pytest.raises(ImageError, match=r"would take 5\.7 GiB"):
        decode_image(_progressive_jpeg_declaring(32000, 32000, 0)[:-2], name="bomb.jpg")


def test_a_png_too_big_to_decode_whole_is_refused_from_its_header() -> None:
    # a PNG is decoded whole before it is shrunk: a 30000x30000 one took 2.7 GB, more than a
    # laptop may have free (a JPEG that size is read at a reduced scale); one decoded as it
    # is (its alpha kept) is held twice at the peak: a 16-bit RGBA one said to take 2.05 GB
    # took 4.06 (review)
    with pytest.raises(ImageError) as info:
        decode_image(_png_declaring(30000, 30000), name="huge.png")
    assert str(info.value) == (
        "huge.png: cannot decode image: a 30000x30000 PNG is decoded whole, which would take "
        "2.7 GiB of memory, more than the 2 GiB allowed: save it smaller, or as a JPEG"
    )
    big = _png_declaring(16000, 12000)  # 0.5 GiB decoded: let through to the decoder (whose
    with pytest.raises(ImageError, match=r"corrupt PNG \(libpng: Not enough image data\)"):
        decode_image(big, name="big.png")  # (its data is 8x8)
    # an opaque 16-bit one is read reduced, into 8-bit colour: 1.1 GiB, not 2.2, let through
    deep = _png_declaring(20000, 20000, np.full((8, 8, 3), 30000, np.uint16))
    with pytest.raises(ImageError, match=r"corrupt PNG \(libpng: Not enough image data\)"):
        decode_image(deep, name="deep.png")
    with pytest.raises(ImageError, match=r"would take 8\.9 GiB"):  # with alpha: as it is, twice
        decode_image(_png_declaring(20000, 30000, np.full((8, 8, 4), 30000, np.uint16)), name="a.png")


def _bmp_declaring(width: int, height: int, bits: int = 24) -> bytes:
    """A BMP's headers declaring `width` x `height` pixels of `bits` each, and no pixels."""

    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, bits, 0, 0, 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(info), 0, 0, 14 + len(info)) + info


def test_a_picture_of_another_kind_too_big_to_decode_whole_is_refused_from_its_header() -> None:
    # TIFF, WebP, BMP ... are decoded whole too: a 3.6 MB deflated 30000x30000 TIFF took 5.5 GB
    # (their headers are read by Pillow)
    from PIL import Image

    limit = Image.MAX_IMAGE_PIXELS  # Pillow's own, raised to ours while a header is read
    with pytest.raises(ImageError) as info:
        decode_image(_bmp_declaring(30000, 30000), name="huge.bmp")
    assert str(info.value) == (
        "huge.bmp: cannot decode image: a 30000x30000 BMP is decoded whole, which would take "
        "5.0 GiB of memory, more than the 2 GiB allowed: save it smaller, or as a JPEG"
    )
    with pytest.raises(ImageError, match="the header says 33000x33000 pixels, more than the"):
        decode_image(_bmp_declaring(33000, 33000, bits=8), name="many.bmp")
    # past twice that Pillow itself says no size: refused all the same
    with pytest.raises(ImageError, match=r"the header says more than 2,147,483,648 pixels"):
        decode_image(_bmp_declaring(60000, 60000), name="bomb.bmp")
    # one small enough goes on to the decoder (which finds no pixels here: its header alone,
    # a file cut short)
    with pytest.raises(ImageError, match=r"big\.bmp: cannot decode image: the file is truncated"):
        decode_image(_bmp_declaring(16000, 12000), name="big.bmp")
    assert limit == Image.MAX_IMAGE_PIXELS  # and set back


def test_a_gif_too_big_to_decode_whole_is_refused_from_its_header() -> None:
    # (a 650 KB GIF of 30000 x 30000 px took 7.2 GB and a minute: no header was read for it)
    import io

    from PIL import Image

    small = io.BytesIO()
    Image.new("P", (8, 8), 0).save(small, format="GIF")
    data = small.getvalue()
    declared = data[:6] + struct.pack("<HH", 30000, 30000) + data[10:]  # the screen's size
    declared = declared.replace(struct.pack("<HH", 8, 8), struct.pack("<HH", 30000, 30000), 1)
    with pytest.raises(ImageError, match=r"^huge\.gif: cannot decode image: a 30000x30000 GIF is decoded whole, which"):
        decode_image(declared, name="huge.gif")
    assert decode_image(data, name="small.gif").shape[:2] == (8, 8)


@pytest.mark.parametrize(
    ("header", "kind", "gib"),
    [
        (b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16000 +X 16000\n", "Radiance HDR", "5.7"),
        # (its size line as OpenCV reads it: any spaces, signs, words after; review)
        (b"#?RADIANCE\n\n-Y\t 16000  +X +16000 made by hand\n", "Radiance HDR", "5.7"),
        (b"PF\n16000 +16000\n-1.0\n", "PFM", "5.7"),
        (b"\x59\xa6\x6a\x95" + (30000).to_bytes(4, "big") * 2 + (24).to_bytes(4, "big"),
         "Sun raster", "6.7"),
    ],
)
def test_formats_pillow_does_not_read_are_refused_from_their_header_too(header, kind, gib) -> None:
    # (a 16 MB Radiance HDR of 16000 x 16000 px took 6.3 GB, counted; 12 bytes a pixel: review)
    side = "30000x30000" if kind == "Sun raster" else "16000x16000"
    with pytest.raises(ImageError) as info:
        decode_image(header + bytes(64), name=f"huge.{kind[:3].lower()}")
    assert f"a {side} {kind} is decoded whole, which would take {gib} GiB" in str(info.value)


def test_small_hdr_pfm_and_sun_raster_pictures_are_still_read() -> None:
    rng = np.random.default_rng(0)
    picture = rng.random((30, 40, 3)).astype(np.float32)
    for ext, pixels in ((".hdr", picture), (".pfm", picture), (".ras", (picture * 255).astype(np.uint8))):
        ok, encoded = cv2.imencode(ext, pixels)
        assert ok and decode_image(encoded.tobytes(), name=f"small{ext}").shape == (30, 40, 3)


def test_an_iphone_s_heic_photo_is_said_to_be_one() -> None:
    # ("not an image file OpenCV can read, or corrupt": the photo seemed damaged; review)
    heic = (24).to_bytes(4, "big") + b"ftypheic" + bytes(4) + b"mif1heic" + bytes(64)
    with pytest.raises(ImageError, match=r"^photo\.heic: cannot decode image: a HEIC photo \(as iPhones take them\)"):
        decode_image(heic, name="photo.heic")


@pytest.mark.parametrize("text", [b"Ann 12, Bob 9\n", "Zoë: 12\n".encode(), b"<html></html>"])
def test_a_text_file_given_as_a_picture_is_said_to_be_one(text: bytes) -> None:
    # (`blitzcam count notes.txt` said "not an image file OpenCV can read, or corrupt", where
    # a camera's check says "a text file, not a video"; review)
    with pytest.raises(ImageError) as caught:
        decode_image(text, name="notes.jpg")
    assert str(caught.value) == "notes.jpg: cannot decode image: a text file, not a picture"
    svg = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'
    with pytest.raises(ImageError, match=r"logo\.png: cannot decode image: an SVG drawing, which "):
        decode_image(svg, name="logo.png")


@pytest.mark.parametrize(("suffix", "fourcc", "kind"), [(".mp4", "mp4v", "MP4 or MOV"), (".avi", "MJPG", "AVI"), (".mkv", "MJPG", "Matroska or WebM")])  # fmt: skip
def test_a_video_given_as_a_picture_is_said_to_be_one(tmp_path, suffix, fourcc, kind) -> None:
    # (`blitzcam count clip.mp4` said "not an image file OpenCV can read, or corrupt"; review)
    path = tmp_path / f"clip{suffix}"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*fourcc), 10, (64, 48))
    for level in (0, 100, 200):
        writer.write(np.full((48, 64, 3), level, np.uint8))
    writer.release()
    with pytest.raises(ImageError) as caught:
        decode_image(path.read_bytes(), name="clip.jpg")
    assert str(caught.value) == (
        f"clip.jpg: cannot decode image: a video ({kind}), not a picture (a video is read as a "
        "camera: blitzcam app --camera FILE)"
    )


def test_what_begins_as_a_video_is_told_by_its_container_not_a_byte_or_two() -> None:
    from blitzcam.vision.other_headers import video_kind

    packets = b"".join(b"\x47" + bytes(187) for _ in range(8))
    assert video_kind(packets) == "MPEG transport stream"
    stamped = b"".join(bytes(4) + b"\x47" + bytes(187) for _ in range(8))  # a camcorder's .mts
    assert video_kind(stamped) == "MPEG transport stream"
    assert video_kind(b"\x00\x00\x01\xba" + bytes(60)) == "MPEG"
    # a GIF begins with the transport stream's sync byte; HEIC and AVIF pictures are ISO media
    gif = io.BytesIO()
    from PIL import Image

    Image.fromarray(np.zeros((300, 300, 3), np.uint8)).save(gif, format="GIF")
    heic = (24).to_bytes(4, "big") + b"ftypheic" + bytes(4) + b"mif1heic" + bytes(64)
    avif = (24).to_bytes(4, "big") + b"ftypavif" + bytes(4) + b"mif1avif" + bytes(64)
    for picture in (gif.getvalue(), heic, avif, b"\x47" + bytes(4000), cv2.imencode(".png", np.zeros((9, 9)))[1].tobytes()):  # fmt: skip
        assert video_kind(picture) is None


def test_an_avif_picture_s_size_is_read_from_its_header() -> None:
    import io

    from PIL import Image

    from blitzcam.vision.images import _header_pillow_reads, _pillow_header

    small = io.BytesIO()
    Image.new("RGB", (48, 32), (200, 30, 30)).save(small, format="AVIF")
    data = small.getvalue()
    assert _header_pillow_reads(data)
    header = _pillow_header(data, "small.avif")
    assert header is not None and header.size == (48, 32)
    assert decode_image(data, name="small.avif").shape[:2] == (32, 48)


# EXIF orientations and how each turns a stored picture upright
TURNED: Final = {
    1: lambda a: a,
    3: lambda a: cv2.rotate(a, cv2.ROTATE_180),
    6: lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE),
    8: lambda a: cv2.rotate(a, cv2.ROTATE_90_COUNTERCLOCKWISE),
    2: lambda a: cv2.flip(a, 1),
}


@pytest.mark.parametrize(("orientation", "turned"), list(TURNED.items()))
def test_an_avif_picture_is_turned_upright_as_its_rotation_says(
    orientation: int, turned: Callable[[np.ndarray], np.ndarray]
) -> None:
    # a phone's AVIF says its rotation in irot and imir (Pillow writes an EXIF orientation as
    # those), which OpenCV's decode does not apply: the picture came sideways, its boxes too
    from PIL import Image

    stored = np.zeros((40, 80, 3), np.uint8)
    stored[:, :20] = (255, 255, 255)  # a white band at the stored left, a grey one at the top
    stored[:10, 20:] = (128, 128, 128)
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    Image.fromarray(stored).save(out, format="AVIF", exif=exif.tobytes(), quality=100)
    picture = decode_picture(out.getvalue(), name="phone.avif")
    expected = turned(stored)
    assert picture.frame.shape == expected.shape
    assert np.abs(picture.frame.astype(int) - expected).mean() < 8  # (AVIF is lossy)
    assert picture.size == (expected.shape[1], expected.shape[0])


def _bmp_x8r8g8b8(bgr: np.ndarray) -> bytes:
    """A 32-bit BMP as GIMP's "X8 R8 G8 B8" export writes it: BI_BITFIELDS with colour masks,
    the fourth byte of each pixel 0 (padding, which OpenCV reads as alpha)."""

    h, w = bgr.shape[:2]
    pixels = np.dstack([bgr[::-1], np.zeros((h, w), np.uint8)]).tobytes()  # bottom-up
    header = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 32, 3, len(pixels), 2835, 2835, 0, 0)
    header += struct.pack("<III", 0xFF0000, 0xFF00, 0xFF)
    start = 14 + len(header)
    return b"BM" + struct.pack("<IHHI", start + len(pixels), 0, 0, start) + header + pixels


def test_an_alpha_of_zero_everywhere_is_padding_not_a_blank_picture() -> None:
    # (a 32-bit BMP's padding byte, a TIFF's extra sample of no stated meaning: laid on white
    # as transparency, the picture read blank and counted 0; a review)
    picture = decode_picture(_bmp_x8r8g8b8(NOISE), name="x.bmp")
    assert np.array_equal(picture.frame, NOISE) and not picture.transparent
    rgba = np.dstack([NOISE, np.zeros(NOISE.shape[:2], np.uint8)])
    tiff = cv2.imencode(".tiff", rgba)[1].tobytes()
    assert np.array_equal(decode_picture(tiff, name="x.tif").frame, NOISE)
    some = rgba.copy()
    some[0, 0, 3] = 255  # transparent but for a pixel: laid on white, as before
    laid = decode_picture(cv2.imencode(".tiff", some)[1].tobytes(), name="x.tif")
    assert laid.transparent and (laid.frame[1:, 1:] == 255).all()
    # a PNG wholly transparent shows nothing: laid on white as before
    assert (decode_picture(_png(rgba), name="x.png").frame == 255).all()


def _tiled_tiff(rgb: np.ndarray, tile: int, orientation: int) -> bytes:
    """An uncompressed tiled RGB TIFF of `rgb` (stored as it is), its Orientation tag
    `orientation`."""

    height, width = rgb.shape[:2]
    tiles = []
    for top in range(0, height, tile):
        for left in range(0, width, tile):
            block = np.zeros((tile, tile, 3), np.uint8)
            part = rgb[top : top + tile, left : left + tile]
            block[: part.shape[0], : part.shape[1]] = part
            tiles.append(block.tobytes())
    n = len(tiles)
    tags = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, None), (259, 3, 1, 1),
            (262, 3, 1, 2), (274, 3, 1, orientation), (277, 3, 1, 3), (284, 3, 1, 1),
            (322, 4, 1, tile), (323, 4, 1, tile), (324, 4, n, None), (325, 4, n, None)]  # fmt: skip
    bits_at = 8 + 2 + 12 * len(tags) + 4
    offsets_at = bits_at + 8
    counts_at = offsets_at + 4 * n
    data_at = counts_at + 4 * n
    entries = b""
    for tag, kind, count, value in tags:
        at = {258: bits_at, 324: offsets_at, 325: counts_at}.get(tag)
        if at is not None:
            entries += struct.pack("<HHII", tag, kind, count, at)
        elif kind == 3:
            entries += struct.pack("<HHIHH", tag, kind, count, value, 0)
        else:
            entries += struct.pack("<HHII", tag, kind, count, value)
    out = b"II*\x00" + struct.pack("<IH", 8, len(tags)) + entries + struct.pack("<I", 0)
    out += struct.pack("<HHH", 8, 8, 8) + b"\x00\x00"
    out += struct.pack(f"<{n}I", *(data_at + i * len(tiles[0]) for i in range(n)))
    out += struct.pack(f"<{n}I", *(len(t) for t in tiles))
    return out + b"".join(tiles)


@pytest.mark.parametrize(("orientation", "turned"), [(o, TURNED[o]) for o in (1, 3, 6, 8)])
def test_a_tiled_tiff_is_turned_upright_whole_not_tile_by_tile(
    orientation: int, turned: Callable[[np.ndarray], np.ndarray]
) -> None:
    # (OpenCV turned each tile, then the whole again: the picture scrambled, 110 cards counted
    # of 99 and no box in its place; a review)
    rgb = NOISE[:200, :300, ::-1]
    picture = decode_picture(_tiled_tiff(rgb, 64, orientation), name="scan.tif")
    expected = turned(np.ascontiguousarray(rgb[..., ::-1]))
    assert np.array_equal(picture.frame, expected)
    assert picture.size == (expected.shape[1], expected.shape[0])


def test_overlapping_quiet_spells_leave_opencv_as_loud_as_it_was() -> None:
    # the worker opening a stream while the window decodes an image: each saving and restoring
    # the process-wide level alone, the one that entered second restored "silent" for good
    import threading

    from blitzcam.vision.decoder_log import quiet_opencv

    levels = cv2.utils.logging
    before = levels.getLogLevel()
    inside, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with quiet_opencv():
            inside.set()
            leave.wait(timeout=10)

    with quiet_opencv():
        other = threading.Thread(target=hold)
        other.start()
        assert inside.wait(timeout=10)
    assert levels.getLogLevel() == levels.LOG_LEVEL_SILENT  # the other is still inside
    leave.set()
    other.join(timeout=10)
    assert levels.getLogLevel() == before


def test_a_float_image_with_highlights_over_one_keeps_its_picture() -> None:
    # one pixel at 1.02 made the whole picture read as 0..255: black, nothing counted
    image = np.full((40, 40, 3), 0.5, np.float32)
    image[0, 0] = 1.02
    assert to_bgr8(image)[20, 20].tolist() == [127, 127, 127]
    assert to_bgr8(image * 200)[20, 20].tolist() == [100, 100, 100]  # a 0..255 float picture


def _cut_midway(jpeg: bytes) -> bytes:
    """`jpeg` cut in the middle of its image data, its end marker put back: what a decoder
    makes of a file whose data ran out (a review's copy with 30 KB zeroed read the same)."""
    return jpeg[: len(jpeg) // 2] + b"\xff\xd9"


@pytest.mark.parametrize("orientation", [None, 6])
def test_a_jpeg_whose_data_is_damaged_is_refused_in_libjpegs_words(orientation: int | None) -> None:
    # (a copy with its data zeroed midway, end marker intact, decoded with its lower half a flat
    # grey: the count missed every card under it, exit 0)
    noise = NOISE.copy()
    damaged = _cut_midway(_jpg(noise))
    if orientation is not None:
        damaged = _with_orientation(damaged, orientation)
    assert not is_truncated(damaged)
    with pytest.raises(
        ImageError,
        match=r"^copy\.jpg: cannot decode image: its image data is damaged \(libjpeg: Corrupt "
        r"JPEG data: premature end of data segment\)$",
    ):
        decode_picture(damaged, name="copy.jpg")


def test_a_jpeg_with_flipped_bits_libjpeg_notices_is_refused() -> None:
    # (a copy with a few bits flipped: counted as 0 cards, 63 unidentified, exit 0, and an
    # unnamed "Corrupt JPEG data" line on the terminal). The decoder, put out of step, ends the
    # picture's blocks early and says thousands of bytes are left "before the end marker".
    clean = _jpg(NOISE)
    flipped = bytearray(clean)
    for at in range(len(clean) // 2, len(clean) // 2 + 400, 16):
        flipped[at] ^= 0x10
    with pytest.raises(
        ImageError,
        match=r"^copy\.jpg: cannot decode image: its image data is damaged \(libjpeg: Corrupt "
        r"JPEG data: \d{3,} extraneous bytes before marker 0xd9\)$",
    ):
        decode_picture(bytes(flipped), name="copy.jpg")


def _with_jfif_revision(jpeg: bytes, major: int) -> bytes:
    """`jpeg` whose JFIF header says another revision: libjpeg warns before any image data."""
    data = bytearray(jpeg)
    data[data.find(b"JFIF\x00") + 5] = major
    return bytes(data)


def _with_unknown_adobe_transform(jpeg: bytes) -> bytes:
    """`jpeg` with its JFIF header swapped for an Adobe one whose colour transform code (7)
    libjpeg does not know: it warns, then decodes as if there were no Adobe segment."""
    end_of_jfif = 4 + int.from_bytes(jpeg[4:6], "big")
    adobe = b"Adobe\x00\x64" + bytes(4) + b"\x07"
    return jpeg[:2] + b"\xff\xee" + (len(adobe) + 2).to_bytes(2, "big") + adobe + jpeg[end_of_jfif:]


def _with_sos_quirk(jpeg: bytes) -> bytes:
    """`jpeg` whose scan header ends its spectral selection at 62, not 63: libjpeg warns
    ("Invalid SOS parameters for sequential JPEG") before any image data, then decodes it."""
    data = bytearray(jpeg)
    scan = data.find(b"\xff\xda")
    data[scan + int.from_bytes(data[scan + 2 : scan + 4], "big")] = 62
    return bytes(data)


def _with_jfif_revision_2(jpeg: bytes) -> bytes:
    return _with_jfif_revision(jpeg, 2)


@pytest.mark.parametrize("metadata", [_with_jfif_revision_2, _with_unknown_adobe_transform])
def test_a_word_about_metadata_neither_hides_damage_nor_reaches_the_terminal(
    metadata: Callable[[bytes], bytes], capfd: pytest.CaptureFixture[str]
) -> None:
    # libjpeg's warning about the JFIF revision (or an Adobe code) ended its strict read before
    # the image data, so damage went unseen unless it left the grey band; and OpenCV's decoder
    # printed "Warning: unknown JFIF revision number 2.01" naming no file
    clean = _jpg(NOISE)
    capfd.readouterr()
    frame = decode_picture(metadata(clean), name="x.jpg").frame
    assert capfd.readouterr().err == ""
    assert np.array_equal(frame, decode_picture(clean, name="x.jpg").frame)
    flipped = bytearray(metadata(clean))
    for at in range(len(flipped) // 2, len(flipped) // 2 + 400, 16):
        flipped[at] ^= 0x10
    with pytest.raises(ImageError, match=r"^x\.jpg: cannot decode image: its image data is damaged"):
        decode_picture(bytes(flipped), name="x.jpg")


@pytest.mark.parametrize("orientation", [None, 6])  # the grey left at the bottom, or turned
def test_the_grey_band_still_refuses_damage_libjpeg_stopped_short_of(
    orientation: int | None,
) -> None:
    # an encoder's quirk in the scan header ends libjpeg's strict read before the image data:
    # the decoder's grey fill is then the sign left to see
    damaged = _with_sos_quirk(_cut_midway(_jpg(NOISE)))
    if orientation is not None:
        damaged = _with_orientation(damaged, orientation)
    with pytest.raises(ImageError, match=r"^copy\.jpg: cannot decode image: corrupt: a band \d+ px"):
        decode_picture(damaged, name="copy.jpg")
    assert decode_picture(_with_sos_quirk(_jpg(NOISE)), name="x.jpg").frame.shape == (240, 320, 3)


def test_a_jpeg_with_one_bar_of_the_decoders_grey_is_read_when_libjpeg_read_it_whole() -> None:
    # a picture with one bar of exactly that grey (a screenshot's, a scan's) was refused as
    # damaged; libjpeg, reading all its image data without a word, says otherwise
    picture = NOISE.copy()
    picture[-40:] = 128
    data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    frame = decode_picture(data, name="x.jpg").frame
    assert grey_filled_edge(frame) >= GREY_FILL_MIN_DEPTH  # what the grey band alone refused
    assert frame.shape == (240, 320, 3)


def test_stray_bytes_before_a_jpegs_end_are_read_quietly_as_the_same_picture(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # some cameras write bytes after the last block; OpenCV's decoder said so on the terminal,
    # "Corrupt JPEG data: 15 extraneous bytes before marker 0xd9", naming no file
    clean = _jpg(NOISE)
    quirky = clean[:-2] + bytes(range(1, 21)) + clean[-2:]
    capfd.readouterr()
    frame = decode_picture(quirky, name="x.jpg").frame
    assert capfd.readouterr().err == ""
    assert np.array_equal(frame, decode_picture(clean, name="x.jpg").frame)


def test_padding_between_a_jpegs_header_segments_is_read_quietly_as_the_same_picture(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # an encoder's stray bytes between two segments of the header (libjpeg: "2 extraneous bytes
    # before marker 0xdb") were refused as damaged image data; the picture decodes the same
    clean = _jpg(NOISE)
    quant = clean.find(b"\xff\xdb")
    padded = clean[:quant] + b"\x00\x00" + clean[quant:]
    capfd.readouterr()
    frame = decode_picture(padded, name="x.jpg").frame
    assert capfd.readouterr().err == ""
    assert np.array_equal(frame, decode_picture(clean, name="x.jpg").frame)


def test_bytes_left_before_a_progressive_jpegs_later_scan_are_still_damage() -> None:
    progressive = cv2.imencode(".jpg", NOISE, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1].tobytes()
    first = progressive.find(b"\xff\xda")
    second = progressive.find(b"\xff\xda", first + 2)
    later = [at for at in range(second - 1, first, -1) if progressive[at : at + 2] == b"\xff\xc4"]
    at = later[0] if later else second  # a table between scans, or the scan itself
    padded = progressive[:at] + b"\x00\x00" + progressive[at:]
    with pytest.raises(ImageError, match=r"^x\.jpg: .*image data is damaged .*extraneous bytes"):
        decode_picture(padded, name="x.jpg")


def _tiff_saying_samples_per_pixel(samples: int) -> bytes:
    """A small RGB TIFF from Pillow whose SamplesPerPixel tag (277) says `samples`."""

    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(NOISE[:32, :32, ::-1]).save(out, format="TIFF")
    data = bytearray(out.getvalue())
    directory = struct.unpack("<I", data[4:8])[0]
    for entry in range(struct.unpack("<H", data[directory : directory + 2])[0]):
        at = directory + 2 + 12 * entry
        if struct.unpack("<H", data[at : at + 2])[0] == 277:
            data[at + 8 : at + 10] = struct.pack("<H", samples)
    return bytes(data)


def test_what_pillow_logs_of_a_tiff_header_is_said_in_the_error_not_on_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # Pillow's probe logged "More samples per pixel than can be decoded: 7" through Python's
    # last-resort handler, onto the terminal naming no file, and the error said only "not an
    # image file OpenCV can read" (a review's fuzzing)
    capfd.readouterr()
    with pytest.raises(
        ImageError,
        match=r"^x\.tif: cannot decode image: .*\(Pillow: More samples per pixel than can be "
        r"decoded: 7\)$",
    ):
        decode_picture(_tiff_saying_samples_per_pixel(7), name="x.tif")
    assert capfd.readouterr().err == ""
    assert logging.getLogger("PIL").propagate  # and Pillow's logger is as it was
    assert decode_picture(_tiff_saying_samples_per_pixel(3), name="x.tif").frame.shape == (32, 32, 3)


def test_a_photo_with_a_flat_border_is_not_taken_for_damage() -> None:
    noise = NOISE.copy()
    for flat in (0, 127, 255):  # black, a grey a shade off the decoder's, white
        bordered = noise.copy()
        bordered[-32:] = flat
        bordered[:, :32] = flat
        assert decode_picture(_jpg(bordered), name="x.jpg").frame.shape == (240, 320, 3)
    grey = noise.copy()
    grey[-32:] = 128  # the decoder's grey, in a PNG: no decoder filled it
    assert decode_picture(_png(grey), name="x.png").frame.shape == (240, 320, 3)
    # ... and in a JPEG as bars laid on purpose, which come in pairs (a review's case: a
    # letterboxed picture was refused as corrupt)
    for bars in (np.s_[:40], np.s_[-40:]), (np.s_[:, :48], np.s_[:, -48:]):
        letterboxed = noise.copy()
        for bar in bars:
            letterboxed[bar] = 128
        for quality in (75, 95):
            data = cv2.imencode(".jpg", letterboxed, [cv2.IMWRITE_JPEG_QUALITY, quality])[1]
            assert decode_picture(data.tobytes(), name="x.jpg").frame.shape == (240, 320, 3)


def test_a_picture_has_colour_unless_its_three_channels_are_one() -> None:
    grey = np.repeat(RNG_IMAGE[..., :1], 3, axis=2)
    assert not has_colour(grey)
    speck = grey.copy()
    speck[31, 45, 2] ^= 1  # one channel of one pixel the sample does not see
    assert has_colour(speck) and has_colour(RNG_IMAGE)


def test_a_header_pillow_cannot_read_leaves_the_picture_to_opencv(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (in a process that imported ultralytics, its patched Image.open raises
    # ModuleNotFoundError for a file Pillow cannot identify)
    from PIL import Image

    def patched(*args: object, **kwargs: object) -> None:
        raise ModuleNotFoundError("No module named 'pi_heif'")

    monkeypatch.setattr(Image, "open", patched)
    with pytest.raises(ImageError, match=r"bad\.webp: cannot decode image: not an image file"):
        decode_image(b"RIFF\x12\x00\x00\x00WEBPVP8 not really", name="bad.webp")
    assert decode_image(_png(RNG_IMAGE), name="ok.png").shape == RNG_IMAGE.shape


def _damaged_png(where: str) -> bytes:
    """NOISE as a PNG with its image data damaged: a byte flipped (`crc`: the chunk's check no
    longer matches) or two flipped and the check made to match (`zlib`: the stream is wrong)."""
    import zlib

    data = bytearray(_png(NOISE))
    at = data.find(b"IDAT")
    length = int.from_bytes(data[at - 4 : at], "big")
    data[at + 4 + 40] ^= 0xFF
    if where == "zlib":
        data[at + 4 + 41] ^= 0x55
        crc = zlib.crc32(bytes(data[at : at + 4 + length]))
        data[at + 4 + length : at + 8 + length] = crc.to_bytes(4, "big")
    return bytes(data)


@pytest.mark.parametrize(
    ("where", "said"), [("crc", "IDAT: CRC error"), ("zlib", "incorrect data check")]
)
def test_a_damaged_png_is_said_in_libpngs_words_naming_the_file(
    where: str, said: str, capfd: pytest.CaptureFixture[str]
) -> None:
    # libpng printed "libpng error: IDAT: CRC error" on the terminal itself, naming no file,
    # beside our "not an image file OpenCV can read, or corrupt"
    capfd.readouterr()
    with pytest.raises(ImageError) as raised:
        decode_image(_damaged_png(where), name="dutch.png")
    assert str(raised.value).startswith("dutch.png: cannot decode image: corrupt PNG (libpng: ")
    assert said in str(raised.value) and "\n" not in str(raised.value)
    assert capfd.readouterr().err == ""


def test_what_others_write_while_libpng_is_listened_to_still_reaches_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    import os

    from blitzcam.vision.decoder_log import LIBPNG_LINES, decoder_lines

    capfd.readouterr()
    heard: list[str] = []
    with decoder_lines(heard, LIBPNG_LINES):
        os.write(2, b"libpng warning: iCCP: known incorrect sRGB profile\nan FFmpeg line\n")
    assert heard == ["libpng warning: iCCP: known incorrect sRGB profile"]
    assert capfd.readouterr().err == "an FFmpeg line\n"
    decode_image(_png(NOISE), name="fine.png")  # and stderr is the terminal's again after
    os.write(2, b"after\n")
    assert capfd.readouterr().err == "after\n"


def test_libjpeg_s_lines_about_a_jpeg_its_strict_read_could_not_judge_stay_off_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    # (a JPEG whose sampling simplejpeg cannot read: OpenCV decoded it, and libjpeg wrote
    # "Corrupt JPEG data: ..." on the terminal, naming no file, beside our own error; review)
    import cv2

    picture = cv2.GaussianBlur(RNG_IMAGE, (5, 5), 0)
    odd = bytearray(cv2.imencode(".jpg", picture)[1].tobytes())
    frame = odd.find(b"\xff\xc0")
    odd[frame + 11] = 0x13  # luma sampled 1 x 3: read by libjpeg, not by simplejpeg's header
    assert decode_image(bytes(odd), name="odd.jpg").shape == picture.shape
    scan = odd.find(b"\xff\xda")
    damaged = bytes(odd[: scan + 300]) + b"\xff\xd9"  # its image data cut short
    capfd.readouterr()
    with pytest.raises(ImageError, match=r"^odd\.jpg: cannot decode image: corrupt"):
        decode_image(damaged, name="odd.jpg")
    assert capfd.readouterr().err == ""


def test_a_png_decodes_where_libpng_cannot_be_listened_to(monkeypatch: pytest.MonkeyPatch) -> None:
    # no usable temp folder (a sandbox), no free descriptor: decoded all the same (found by
    # review: FileNotFoundError escaped, and an enrolled PNG back took the profile down)
    import tempfile

    def nowhere(*args, **kwargs):
        raise FileNotFoundError("No usable temporary directory found")

    monkeypatch.setattr(tempfile, "TemporaryFile", nowhere)
    assert decode_image(_png(NOISE), name="fine.png").shape == NOISE.shape
    with pytest.raises(ImageError, match="not an image file OpenCV can read, or corrupt"):
        decode_image(_damaged_png("crc"), name="dutch.png")  # (without libpng's words)


def test_a_twelve_bit_png_reads_by_the_bits_it_uses() -> None:
    # a 12-bit camera's samples stored in a 16-bit PNG as they came (0-4095) read as 0-15:
    # nearly black, and enrolled so (found by review)
    twelve = (RNG_IMAGE.astype(np.uint16) * 16).clip(0, 4095)
    assert np.abs(decode_image(_png(twelve), name="x.png").astype(int) - RNG_IMAGE).max() <= 1
    ten = np.full((4, 4, 3), 1023, np.uint16)
    assert int(decode_image(_png(ten), name="x.png").max()) == 255
    # a full 16-bit picture as before (its top 8 bits), however dark some of it is
    full = np.full((4, 4, 3), 30000, np.uint16)
    full[0, 0] = 4096
    assert int(decode_image(_png(full), name="x.png")[1, 1, 0]) == 30000 >> 8
    # and 12-bit colour with a full 16-bit alpha: each by its own bits
    rgba = np.dstack([np.full((4, 4, 3), 4095, np.uint16), np.full((4, 4), 65535, np.uint16)])
    assert int(decode_image(_png(rgba), name="x.png").min()) == 255
    # a 16-bit picture's faint alpha stays faint (a review: alpha 2000 of 65535, black, was
    # read as 12-bit, nearly opaque: 4 on white instead of 247)
    faint = np.dstack([np.zeros((4, 4, 3), np.uint16), np.full((4, 4), 2000, np.uint16)])
    faint[0, 0, :3] = 65535
    assert int(decode_image(_png(faint), name="x.png")[1, 1, 0]) >= 245


def test_a_picture_says_whether_any_of_it_is_transparent() -> None:
    opaque = np.dstack([RNG_IMAGE, np.full(RNG_IMAGE.shape[:2], 255, np.uint8)])
    assert not decode_picture(_png(opaque), name="x.png").transparent  # (an editor's RGBA)
    cut_out = opaque.copy()
    cut_out[:5, :5, 3] = 0
    assert decode_picture(_png(cut_out), name="x.png").transparent
    assert not decode_picture(_png(RNG_IMAGE), name="x.png").transparent
