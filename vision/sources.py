"""Frame sources: one interface for a webcam, a video file, an image, a folder of images, a stream.

`open_source(spec)` picks the kind from the spec (an int or digits: camera index; rtsp://, http://,
https://: network stream; a folder; an image file; any other file: video). Every source yields
`Frame` records until it ends: `read_frame()` gives the next record, `read()` just its image (the
app's protocol); both return None at the end. Network streams reconnect when
they drop; cameras and live streams are read on a thread of their own so that a read gives the
newest frame (`NewestFrame`). Errors are SourceError (a UserError: one line naming the source).

This module reads a spec and opens its source; the sources themselves are in `capture_source`
(OpenCV's captures, image files) and `stream_source` (reconnecting streams, the newest-frame
reader), and what a stream's address is, and how it is shown, in `source_address`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from blitzcam.paths import expand_home
from blitzcam.vision.capture_source import (
    Capture,
    CaptureSource,
    FrameSource,
    ImageFiles,
    SourceError,
    is_camera_device,
    open_capture,
)
from blitzcam.vision.file_signatures import is_text
from blitzcam.vision.images import HEIC_SUFFIXES, IMAGE_SUFFIXES, is_picture
from blitzcam.vision.other_headers import video_kind
from blitzcam.vision.source_address import (
    ANY_ADDRESS,
    HOST_AND_PORT,
    RTSP_PORTS,
    SCHEME_ONE_SLASH,
    SCHEME_WITHOUT_COLON,
    STREAM_SCHEMES,
    address_problem,
    as_pasted,
    is_stream,
    shown_address,
)
from blitzcam.vision.stream_source import (
    NewestFrame,
    StreamSource,
)

MAX_CAMERA_INDEX: Final = 9999  # (OpenCV takes a C int; a camera index is small)
DEMO: Final = "demo"  # the app's word for its bundled footage (ui/frame_sources.py)


def is_demo(spec: str) -> bool:
    """Whether a source as typed names the demo footage: `demo` in any case ("Demo", as a
    phone's keyboard or a shift key types it, was "no such file or folder" to `count` while the
    app took it), spaces around it aside, unless a file or folder of that name is there (a
    picture named `demo` is counted)."""
    spec = spec.strip()
    return spec.casefold() == DEMO and not expand_home(Path(spec)).exists()


def _in_name_order(path: Path) -> tuple[tuple[int, int | str], ...]:
    """As a file browser sorts: letters whatever their case, numbers by value (img2 before
    img10), so a folder of photos plays in the order it was shot."""
    parts = re.split(r"(\d+)", path.name.casefold())  # the numbers at odd places
    keys = tuple((0, int(part)) if i % 2 else (1, part) for i, part in enumerate(parts))
    return (*keys, (1, path.name))  # img01 / img1, IMG1 / img1: one order whatever the disk


def image_files(folder: Path) -> list[Path]:
    """The image files of a folder, in name order (`_in_name_order`); SourceError naming it
    when it has none."""
    try:
        images = sorted(  # not hidden files: macOS leaves '._IMG.jpg' beside each photo
            (
                p
                for p in Path(folder).iterdir()
                if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file() and not p.name.startswith(".")
            ),
            key=_in_name_order,
        )
    except OSError as exc:
        raise SourceError(f"{folder}: cannot read the folder: {exc.strerror or exc}") from None
    if not images and (heic := _heic_photos(folder)):
        raise SourceError(
            f"{folder}: its pictures are HEIC photos ({heic} of them, as iPhones take them), "
            "which cannot be read here: save them as JPEG (or set the camera to take 'Most "
            "Compatible' photos)"
        )
    if not images:
        raise SourceError(
            f"{folder}: the folder holds no image files ({', '.join(sorted(IMAGE_SUFFIXES))})"
        )
    return images


def _heic_photos(folder: Path) -> int:
    """How many HEIC photos a folder holds (by their names: a folder of them read as none)."""
    try:
        return sum(
            p.suffix.lower() in HEIC_SUFFIXES and not p.name.startswith(".") and p.is_file()
            for p in Path(folder).iterdir()
        )
    except OSError:
        return 0


class SpecKind(enum.Enum):
    """What a source spec names."""

    CAMERA = "camera"  # by index
    CAMERA_DEVICE = "camera device"  # by its device file, /dev/video0
    STREAM = "stream"
    FOLDER = "folder"  # of images
    IMAGE = "image"
    VIDEO = "video"


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A source spec read: its kind, and the camera index, address or path it names."""

    kind: SpecKind
    target: int | str | Path

    @property
    def live(self) -> bool:
        """A camera or a stream, not a file or a folder."""
        return self.kind in (SpecKind.CAMERA, SpecKind.CAMERA_DEVICE, SpecKind.STREAM)


def read_spec(spec: int | str | Path) -> SourceSpec:
    """What a source spec names: an int or digits, a camera's index; rtsp://, http://, https://,
    a stream; a folder; an image file (by its name, or its first bytes); a camera's device file;
    any other file, a video (a leading ~ is the home folder). SourceError for one that names
    none of them: empty, an address of another scheme (its password hidden), a file that is not
    there, cannot be read or is text. The commands and the app both read a spec with it, so
    that they take it alike."""
    if isinstance(spec, int) or (
        isinstance(spec, str) and spec.strip().isascii() and spec.strip().isdigit()
    ):  # ascii: str.isdigit() also takes '²', which int() refuses
        # (OpenCV's C int: a traceback past it; and int() refuses over 4300 digits)
        given = str(spec).strip()
        digits = given.lstrip("0") or "0"  # (an int's "-1" too: refused below)
        if (
            not digits.isdigit()
            or len(digits) > len(str(MAX_CAMERA_INDEX))
            or int(digits) > MAX_CAMERA_INDEX
        ):
            shown = given if len(given) <= 20 else f"{given[:12]}... ({len(given)} digits)"
            raise SourceError(
                f"camera {shown}: no such camera (an index is 0 to {MAX_CAMERA_INDEX})"
            )
        return SourceSpec(SpecKind.CAMERA, int(digits))
    text = as_pasted(str(spec))
    if not text.strip():  # Path("") is the current folder
        raise SourceError("an empty source names no camera, file, folder or stream")
    if is_demo(text):
        raise SourceError(
            f"{DEMO}: the app's demo footage (blitzcam app --camera demo); here, a camera's "
            "index, a video, a picture or a folder of pictures, or a stream's address"
        )
    if is_stream(text.strip()):  # (spaces around an address pasted in)
        # FFmpeg knows http:// but not Http:// (a phone's keyboard capitalises the first letter):
        # a scheme is the same in any case (RFC 3986)
        scheme, rest = text.strip().split("://", 1)
        address = f"{scheme.lower()}://{rest}"
        if (problem := address_problem(address)) is not None:
            raise SourceError(f"{shown_address(address)}: {problem}")
        return SourceSpec(SpecKind.STREAM, address)
    if ANY_ADDRESS.match(text):  # rstp://, rtmp://: said as an address, its password hidden
        raise SourceError(
            f"{shown_address(text.strip())}: not an address blitzcam can read (a stream's "
            f"starts with {', '.join(STREAM_SCHEMES)})"
        )
    path = expand_home(Path(text))
    if not path.exists():
        typed = text.strip()
        # (Path made http//host of it http/host)
        for mistyped, takes in (
            (SCHEME_WITHOUT_COLON, "a colon"),
            (SCHEME_ONE_SLASH, "two slashes"),
        ):
            if found := mistyped.match(typed):
                raise SourceError(
                    f"{shown_address(typed)}: no such file or folder (an address? its scheme "
                    f"takes {takes}: {found.group(1).lower()}://)"
                )
        if found := HOST_AND_PORT.match(typed):
            scheme = "rtsp" if found.group("port") in RTSP_PORTS else "http"
            raise SourceError(
                f"{shown_address(typed)}: no such file or folder (an address? a stream's "
                f"starts with {' or '.join(STREAM_SCHEMES[::2])}: "
                f"{shown_address(f'{scheme}://{typed}')})"  # (its password hidden there too)
            )
        raise SourceError(f"{shown_address(str(path))}: no such file or folder")
    if path.is_dir():
        return SourceSpec(SpecKind.FOLDER, path)
    if path.suffix.lower() in IMAGE_SUFFIXES and not _video_named_as_a_picture(path):
        return SourceSpec(SpecKind.IMAGE, path)
    if is_camera_device(path):  # opened as the camera it is (a read open can hold it)
        return SourceSpec(SpecKind.CAMERA_DEVICE, path)
    if not path.is_file():  # a named pipe, a socket: what is read of it now is lost to FFmpeg
        return SourceSpec(SpecKind.VIDEO, path)
    try:
        with path.open("rb") as file:
            head = file.read(4096)
    except OSError as exc:
        raise SourceError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    if is_picture(head) and path.suffix.lower() not in MOTION_JPEG_SUFFIXES:
        return SourceSpec(SpecKind.IMAGE, path)  # (named otherwise: a photo all the same)
    if (
        is_text(head)
        and path.suffix.lower() not in TEXT_VIDEO_SUFFIXES
        and not head.startswith(TEXT_VIDEO_SIGNATURES)
    ):
        # FFmpeg plays any text file as a video of its characters (notes.txt: 640 x 400)
        raise SourceError(f"{path}: a text file, not a video")
    return SourceSpec(SpecKind.VIDEO, path)


def open_source(
    spec: int | str | Path,
    *,
    opener: Callable[[int | str], Capture] = open_capture,
    video_every_s: float = 0.0,
) -> FrameSource:
    """The frame source a spec names (`read_spec`); `video_every_s` as `open_spec` takes it."""
    return open_spec(read_spec(spec), opener=opener, video_every_s=video_every_s)


def open_spec(
    read: SourceSpec,
    *,
    opener: Callable[[int | str], Capture] = open_capture,
    video_every_s: float = 0.0,
) -> FrameSource:
    """The frame source of a spec already read (`read_spec`), not read again: a named pipe's
    bytes are read once, and a video file named `./0` is no camera. `video_every_s`: a video
    file's frames given that far apart at least, on its own clock (0: every frame), on disk or
    served over HTTP."""
    target, kind = read.target, read.kind
    if kind is SpecKind.CAMERA:
        return NewestFrame(CaptureSource(target, name=f"camera {target}", opener=opener))
    if kind is SpecKind.STREAM:
        stream = StreamSource(str(target), opener=opener, every_s=video_every_s)
        return stream if stream.is_clip() else NewestFrame(stream)
    path = Path(target)
    if kind is SpecKind.FOLDER:
        return ImageFiles(image_files(path), name=str(path))
    if kind is SpecKind.IMAGE:
        return ImageFiles([path], name=str(path))
    if kind is SpecKind.CAMERA_DEVICE:
        return NewestFrame(CaptureSource(str(path), name=str(path), opener=opener))
    return CaptureSource(str(path), name=str(path), opener=opener, every_s=video_every_s)


def _video_named_as_a_picture(path: Path) -> bool:
    """Whether a file named as a picture begins as a video container does (a video saved as
    .jpg is not "cannot decode image"). One that cannot be read is the picture's reader's
    to say."""
    try:  # (a named pipe is not opened here: its open waits for a writer)
        if not path.is_file():
            return False
        with path.open("rb") as file:
            return video_kind(file.read(4096)) is not None
    except OSError:
        return False


# videos of JPEG frames one after another, which start as a JPEG picture does
MOTION_JPEG_SUFFIXES: Final = (".mjpeg", ".mjpg")
# the text files FFmpeg reads as videos on purpose: a stream's playlist, an RTP session
TEXT_VIDEO_SUFFIXES: Final = (".m3u8", ".m3u", ".sdp", ".y4m")
# ... and videos whose first bytes can read as text: raw frames after a text header, as a dark
# YUV4MPEG2 video's do (no byte of them 0 nor over 127)
TEXT_VIDEO_SIGNATURES: Final = (b"YUV4MPEG2",)
