"""Photos labelled by hand in labelme (or a tool that exports its JSON: CVAT, Label Studio,
X-AnyLabeling), as scenes with boxes the detector can be scored on.

Each `photo.json` names its image (`imagePath`, relative to the JSON) and holds a shape per
card: its label a deck's name for a back, `face-up` for a face-up card, anything else for a
back of a deck nobody enrolled (which must stay unknown: `unknown` says so on purpose). A back
is boxed round its drawing, the part that shows, as the detector boxes it (not the whole card);
a polygon of four corners, a rectangle, or labelme's rotated rectangle. The photo is its file;
where that is not there, the copy labelme keeps inside the JSON (`imageData`). Reading only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.game.decks import typed_deck_name
from blitzcam.game.names import brief
from blitzcam.models.evaluation import SceneDataError
from blitzcam.models.metrics import SceneTruth
from blitzcam.paths import written_path
from blitzcam.vision.detections import UNKNOWN_NAME
from blitzcam.vision.images import ImageError, Picture, decode_picture, read_picture

FACE_UP_LABELS: Final = ("face-up", "face up", "face_up", "faceup", "face")
NO_DECK: Final = UNKNOWN_NAME  # a back of art nobody enrolled, labelled so on purpose
SHAPES: Final = ("polygon", "rectangle", "rotation")
# a file-level flag `blitzcam dataset prelabel` writes False: blitzcam's own labels, not yet
# looked over (labelme shows it as a box to tick)
CHECKED_FLAG: Final = "checked"
PHOTOS: Final = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp")
# a photo's side, and a point's distance from its corner, at most: a picture may have 2**30
# pixels (vision/images.py), a million on a side at the most elongated anyone takes
MAX_COORDINATE: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class PhotoInLabels:
    """A photo kept only inside its labelme file, as labelme saves it by default (`imageData`,
    base64): the JSON shared without the photo beside it."""

    labels: Path

    def __str__(self) -> str:
        return f"{self.labels} (the photo inside it)"


Photo = Path | PhotoInLabels


def labelme_files(folder: Path) -> list[Path]:
    """The labelme files in `folder` and in its folders (`ann/` beside `img/`, say), no deeper,
    so that `--data ~` does not walk a whole home: JSON objects with a list of shapes. (A JSON
    file that cannot be read or parsed is kept, for `labelme_scenes` to say so.)"""
    return [
        path
        for path in _beside_or_one_down(folder, lambda path: path.suffix.lower() == ".json")
        if _shapes_or_unreadable(path)
    ]


def _shapes_or_unreadable(path: Path) -> bool:
    """A labelme file, or one that may be but cannot be read: it says `"shapes"` (another
    tool's settings file, broken, is none of blitzcam's business)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError):
        return True
    try:
        record = json.loads(text)
    except (ValueError, RecursionError):
        return '"shapes"' in text
    return isinstance(record, dict) and "shapes" in record


def _beside_or_one_down(folder: Path, wanted: Callable[[Path], bool]) -> list[Path]:
    """The files in `folder` and its folders that are `wanted` (hidden ones left out)."""
    paths = [*folder.glob("*"), *folder.glob("*/*")]
    return sorted(
        path
        for path in paths
        if wanted(path)
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
        and path.is_file()
    )


def labelme_scenes(
    folder: Path, shapes_left_out: list[str] | None = None
) -> list[tuple[str, Photo, SceneTruth]]:
    """(name, image, truth) of each labelled photo under `folder`, the name its JSON's path
    there; SceneDataError naming the file (and shape) for one that cannot be scored. Shapes
    that box no card (a point, a line: a note) are said in `shapes_left_out`."""
    shapes_left_out = [] if shapes_left_out is None else shapes_left_out
    files = labelme_files(folder)
    if not files:
        raise SceneDataError(f"{folder}: no labelme file (*.json) to evaluate on")
    scenes, named = [], {}
    for path in files:
        record = read_labelme(path)
        image = labelled_photo(path, record)
        # (a photo kept inside two files, a copy of one, is one photo too: scored twice; told
        # by its digest, not its text: a folder's photos in base64 are megabytes each)
        key = (
            image.resolve()
            if isinstance(image, Path)
            # (surrogatepass: JSON may escape a lone surrogate, which UTF-8 cannot encode; such
            # text is no base64, refused when the photo is read)
            else hashlib.sha256(record["imageData"].encode("utf-8", "surrogatepass")).hexdigest()
        )
        if (other := named.get(key)) is not None:
            held = f"names the photo {other} names too ({image})"
            if not isinstance(image, Path):
                held = f"holds the photo {other} holds too"
            raise SceneDataError(f"{path}: {held}")
        named[key] = path
        truth = _truth(path, record, shapes_left_out)
        scenes.append((path.relative_to(folder).as_posix(), image, truth))
    return scenes


def read_labelme(path: Path) -> dict[str, Any]:
    """A labelme file's JSON object; SceneDataError naming the file when it is none."""
    try:
        record = json.loads(path.read_text(encoding="utf-8-sig"))  # (a byte-order mark: Windows')
    except OSError as exc:
        raise SceneDataError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise SceneDataError(f"{path}: not a labelme file (not JSON: {exc})") from None
    if not isinstance(record, dict) or not isinstance(record.get("shapes"), list):
        raise SceneDataError(f"{path}: not a labelme file (no list of 'shapes')")
    return record


def labelled_photo(path: Path, record: dict[str, Any]) -> Photo:
    """The photo the labels were drawn on: its file, which must be there unless the labels
    keep a copy of it (labelme keeps its path as written on the labelling machine: a Windows
    one's backslashes are read as folders)."""
    given = record.get("imagePath")
    kept_inside = isinstance(record.get("imageData"), str) and bool(record["imageData"])
    if not isinstance(given, str) or not given:
        if kept_inside:
            return PhotoInLabels(path)
        raise SceneDataError(f"{path}: no 'imagePath' naming the photo")
    written = PureWindowsPath(given) if "\\" in given else Path(given)
    try:
        image = written_path(path.parent, given)
        # labelled on another machine (C:\\Users\\..., /home/other/...), then copied with the
        # photo
        beside = path.parent / written.name
        for candidate in (image, beside):
            if candidate.is_file():
                return candidate
        missing = "not a file" if image.exists() else "no such file"
    except OSError as exc:  # (a name too long)
        missing = f"cannot be looked at ({exc.strerror or exc})"
    if kept_inside:  # (the file first: the same picture, where a person looks for it)
        return PhotoInLabels(path)
    beside_it = f", nor {written.name} beside it" if written.name else ""  # ('.' has no name)
    raise SceneDataError(
        f"{path}: its photo {given}: {missing}{beside_it}, nor a copy inside it (imageData)"
    )


def read_photo(photo: Photo) -> Picture:
    """A labelled photo's picture, from its file or from inside its labels; ImageError naming
    the file when it cannot be read (a labelme file's copy of it is read as a file's bytes)."""
    if isinstance(photo, Path):
        return read_picture(photo)
    where = str(photo)
    try:
        data = _kept_bytes(read_labelme(photo.labels)["imageData"])
    except SceneDataError as exc:
        raise ImageError(str(exc)) from None
    except (KeyError, TypeError, ValueError, binascii.Error):
        raise ImageError(f"{where}: its imageData is not an image in base64") from None
    return decode_picture(data, name=where)


def _kept_bytes(text: object) -> bytes:
    """The bytes of a photo kept in a labelme file, as labelme writes them (base64) or as a
    browser or another tool may: a data URL's head, lines broken. ValueError otherwise."""
    if not isinstance(text, str):
        raise TypeError("not a string")
    if text.startswith("data:"):
        head, _, text = text.partition(",")
        if not head.endswith(";base64"):
            raise ValueError("a data URL not in base64")
    return base64.b64decode("".join(text.split()), validate=True)


def _truth(path: Path, record: dict[str, Any], left_out: list[str]) -> SceneTruth:
    """The photo's truth; shapes that box no card (a point, a line) added to `left_out`."""
    corners, classes, decks = [], [], []
    for index, shape in enumerate(record["shapes"], start=1):
        where = f"{path}, shape {index}"
        if not isinstance(shape, dict):
            raise SceneDataError(f"{where}: not a shape (a JSON {type(shape).__name__})")
        label = shape.get("label")
        if not isinstance(label, str) or not label.strip():
            raise SceneDataError(f"{where}: no label")
        kind = shape.get("shape_type") or "polygon"  # (labelme's first files had none)
        if kind not in SHAPES:  # a point or a line a person added as a note: no card
            left_out.append(f"{where}: a {kind!r} shape")
            continue
        corners.append(_corners(where, shape, kind))
        face_up = label.strip().lower() in FACE_UP_LABELS
        classes.append(1 if face_up else 0)
        decks.append(None if face_up else typed_deck_name(label))
    return SceneTruth(
        corners=np.array(corners, np.float64).reshape(-1, 4, 2),
        classes=np.array(classes, np.int64),
        decks=tuple(decks),
        random_art=holds_random_art(decks),
        size=_size(path, record),
    )


def holds_random_art(decks: Sequence[str | None]) -> bool:
    """Whether a labelled photo's backs (`decks`, None for a face-up card) hold one labelled
    `unknown`, which must stay unknown (a label of no deck that says nothing of the kind is
    most likely a typo, and evaluate warns of it)."""
    return any(d is not None and (d == NO_DECK or d.startswith(f"{NO_DECK}:")) for d in decks)


def _corners(where: str, shape: dict[str, Any], kind: str) -> np.ndarray:
    """A shape's oriented box, (4, 2) in the photo's pixels: a rectangle's two corners (or
    four, as X-AnyLabeling saves one), a polygon's four, or the box round more."""
    try:
        given = shape["points"]
        # (true and false are numbers to numpy: a point [true, false] read as [1, 0])
        if isinstance(given, list) and any(
            isinstance(v, bool) for point in given if isinstance(point, list) for v in point
        ):
            raise TypeError("a true or false coordinate")
        points = np.asarray(given, np.float64)
    except (KeyError, ValueError, TypeError, OverflowError):
        raise SceneDataError(f"{where}: its 'points' are not [x, y] pairs") from None
    if points.ndim != 2 or points.shape[1] != 2 or not np.isfinite(points).all():
        raise SceneDataError(f"{where}: its 'points' are not finite [x, y] pairs")
    # (1e300 is finite, and became inf or nan in the float32 the box is measured in: a back
    # scored as a box nothing could match, a miss unsaid)
    if np.abs(points).max() > MAX_COORDINATE:
        raise SceneDataError(
            f"{where}: its 'points' lie past {MAX_COORDINATE:,} px: not a card on a photo"
        )
    if kind == "rectangle" and len(points) == 2:
        (x1, y1), (x2, y2) = points.min(axis=0), points.max(axis=0)
        points = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
    elif kind == "rectangle" and len(points) != 4:
        raise SceneDataError(f"{where}: a rectangle of {len(points)} points, not 2 or 4 corners")
    elif len(points) < 3:
        raise SceneDataError(f"{where}: a {kind} of {len(points)} points encloses nothing")
    elif len(points) == 3:  # (a click short: the box round a triangle lies along its long side,
        # a third of the card's, and the detector would be blamed for it)
        raise SceneDataError(
            f"{where}: a {kind} of 3 points: a card's box takes its 4 corners (a click short?)"
        )
    # a card traced with more corners, or four clicked across (a bow-tie): the box round them
    # (the overlap of boxes is measured for convex ones)
    if len(points) != 4 or not cv2.isContourConvex(points.astype(np.float32)):
        points = cv2.boxPoints(cv2.minAreaRect(points.astype(np.float32))).astype(np.float64)
    if cv2.contourArea(points.astype(np.float32)) <= 0:
        raise SceneDataError(f"{where}: its corners enclose no area")
    return points


def _size(path: Path, record: dict[str, Any]) -> tuple[int, int] | None:
    """(width, height) of the photo as labelled, where the file says."""
    width, height = record.get("imageWidth"), record.get("imageHeight")
    if width is None and height is None:
        return None
    if not all(  # (bounded first: float() of a whole number of 400 digits overflows)
        isinstance(v, int | float)
        and not isinstance(v, bool)
        and 0 < v <= MAX_COORDINATE
        and float(v).is_integer()
        for v in (width, height)
    ):
        raise SceneDataError(
            f"{path}: imageWidth {brief(width)}, imageHeight {brief(height)}: not a size"
        )
    return int(width), int(height)


def unlabelled_photos(folder: Path, scenes: Sequence[tuple[str, Photo, SceneTruth]]) -> list[Path]:
    """Photos in `folder` (and its folders) that no labelme file names: tables not scored."""
    named = {image.resolve() for _, image, _ in scenes if isinstance(image, Path)}
    return _beside_or_one_down(
        folder, lambda path: path.suffix.lower() in PHOTOS and path.resolve() not in named
    )


def unchecked(scenes: Sequence[tuple[str, Photo, SceneTruth]], folder: Path) -> list[str]:
    """The scenes whose labels are still blitzcam's own pre-labels, their `checked` flag
    unticked: scored as they are, they measure the counting against itself."""
    names = []
    for name, _, _ in scenes:
        flags = read_labelme(folder / name).get("flags")
        if isinstance(flags, dict) and flags.get(CHECKED_FLAG) is False:
            names.append(name)
    return names
