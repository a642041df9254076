"""Photos labelled in ultralytics' YOLO format (what Roboflow, CVAT and Label Studio export as
"YOLOv8 OBB" or "YOLO"), as scenes with boxes the detector can be scored on.

A `data.yaml` names the classes and the splits' image folders (or lists of images); each image
`.../images/.../x.jpg` has its labels in `.../labels/.../x.txt`, a line per card: its class and
its box in shares of the picture's width and height (an oriented box's four corners, an upright
box's centre and size, or a polygon's points). A class is named for a deck (`green-pump`,
`Green Pump`), `face-up`, or `unknown` (a back of art nobody enrolled), as labelme labels are
(models/labelme_scenes.py); a class for every back alike (`back`, `card`) says no deck and is
refused: `evaluate` scores each deck's count. An image with no label file shows no card, as
ultralytics reads it. Reading only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import Any, Final

import cv2
import numpy as np

from blitzcam.datasets.labels import SPLITS
from blitzcam.game.decks import typed_deck_name
from blitzcam.game.names import brief
from blitzcam.models.evaluation import SceneDataError
from blitzcam.models.labelme_scenes import FACE_UP_LABELS, NO_DECK, PHOTOS, holds_random_art
from blitzcam.models.metrics import SceneTruth

DATA_FILES: Final = ("data.yaml", "data.yml")
# classes that box every back alike: a detector's labels, not a count's
DECKLESS_CLASSES: Final = ("back", "backs", "card", "cards", "card-back")
# a share past the picture by more than this is not a share: pixels, most likely (ultralytics
# refuses any past 1; a tool's rounding may leave a corner a hair outside)
SLACK: Final = 0.01


def data_file(folder: Path) -> Path | None:
    """`folder`'s data.yaml (a YOLO dataset's), else None."""
    return next((folder / name for name in DATA_FILES if (folder / name).is_file()), None)


def default_split(folder: Path) -> str:
    """The split `evaluate` scores unless told: test where the data.yaml names one (the
    images a model trained on the others never saw), else every one (photos exported as one
    split, CVAT's `train`, were labelled to be scored)."""
    return "test" if "test" in _splits(_data(folder)[1]) else "all"


def _splits(record: dict[str, Any]) -> tuple[str, ...]:
    return tuple(split for split in SPLITS if record.get(split))


def yolo_scenes(folder: Path, split: str) -> list[tuple[str, Path, SceneTruth]]:
    """(name, image, truth) of each labelled image of `split` ("all": every split named),
    the name the image's path in `folder`; SceneDataError naming the file (and line) that
    cannot be scored."""
    where, record = _data(folder)
    names = _classes(where, record.get("names"))
    named = _splits(record)
    if not named:
        raise SceneDataError(f"{where}: names no split (train, val or test) of images")
    if split != "all" and split not in named:
        raise SceneDataError(
            f"{where}: no {split} split (it names {', '.join(named)}; --split all scores every one)"
        )
    root = _root(where, record)
    images: list[Path] = []
    for one in named if split == "all" else (split,):
        images += _split_images(where, root, one, record[one])
    if not images:
        raise SceneDataError(f"{where}: no images in its {split} split")
    scenes, seen = [], set()
    for image in images:
        key = image.resolve()
        if key in seen:  # (a list of splits naming one folder twice: scored once)
            continue
        seen.add(key)
        # (read once, where a polygon's box is fitted)
        truth = _truth(label_path(image), names, aspect=cache(partial(_aspect, image)))
        scenes.append((_name(image, folder), image, truth))
    if not any(label_path(image).is_file() for image in images):
        # (else each is scored as an empty table: precision 0, every count wrong, nothing said)
        raise SceneDataError(
            f"{where}: none of the {len(images)} images "
            + ("it names" if split == "all" else f"of its {split} split")
            + f" has a label file (looked for {label_path(images[0])} and the like: labels/ "
            "beside images/)"
        )
    return scenes


def label_path(image: Path) -> Path:
    """Where ultralytics looks for an image's labels: its path with the last `images` folder
    read as `labels`, `.txt` for its extension."""
    parts = list(image.parts)
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == "images":
            parts[i] = "labels"
            break
    return Path(*parts).with_suffix(".txt")


def _data(folder: Path) -> tuple[Path, dict[str, Any]]:
    """`folder`'s data.yaml and its mapping; SceneDataError naming it when it is none."""
    import yaml

    where = data_file(folder)
    if where is None:
        raise SceneDataError(f"{folder}: no data.yaml")
    try:
        record = yaml.safe_load(where.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise SceneDataError(f"{where}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, yaml.YAMLError) as exc:
        said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SceneDataError(f"{where}: not YAML ({said})") from None
    if not isinstance(record, dict):
        raise SceneDataError(f"{where}: not a YOLO data file (not a mapping of names and splits)")
    return where, record


def _classes(where: Path, names: object) -> dict[int, tuple[int, str | None]]:
    """Each class number's (class, deck): 0 and the deck typed in its name for a back (a deck
    nobody knows stays its name, for `evaluate` to warn of), 1 and None for a face-up card."""
    if isinstance(names, list):
        names = dict(enumerate(names))
    if not isinstance(names, dict) or not names:
        raise SceneDataError(f"{where}: no 'names' of classes")
    classes = {}
    for number, name in names.items():
        if isinstance(number, str) and number.strip().isdigit():
            number = int(number)
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise SceneDataError(f"{where}: names: {brief(number)} is not a class number")
        if not isinstance(name, str) or not name.strip():
            raise SceneDataError(f"{where}: names: class {number} has no name")
        typed = typed_deck_name(name)
        if name.strip().lower() in FACE_UP_LABELS:
            classes[number] = (1, None)
        elif typed in DECKLESS_CLASSES:
            raise SceneDataError(
                f"{where}: class {number} {name!r} names no deck: evaluate scores each deck's "
                "count, so each back's class names its deck (green-pump, ...), face-up, or "
                f"{NO_DECK} for art nobody enrolled"
            )
        else:
            classes[number] = (0, typed)
    return classes


def _root(where: Path, record: dict[str, Any]) -> Path:
    """The folder the splits are named from: the data.yaml's `path` (from the data.yaml's own
    folder when relative), else the data.yaml's folder."""
    given = record.get("path")
    if given is None or given == "":
        return where.parent
    if not isinstance(given, str):
        raise SceneDataError(f"{where}: path: {brief(given)} is not a folder's name")
    return where.parent / Path(given).expanduser()


def _split_images(where: Path, root: Path, split: str, given: object) -> list[Path]:
    """The images a split names: a folder of them (and its folders), a text file listing them,
    or a list of either."""
    entries = given if isinstance(given, list) else [given]
    images = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            raise SceneDataError(f"{where}: {split}: {brief(entry)} is not a folder's name")
        place = _placed(root, where.parent, entry)
        if place.is_dir():
            images += sorted(
                p for p in place.rglob("*") if p.suffix.lower() in PHOTOS and p.is_file()
            )
        elif place.is_file() and place.suffix.lower() == ".txt":
            images += _listed_images(place, root)
        else:
            raise SceneDataError(f"{where}: {split}: {entry}: no such folder ({place})")
    return images


def _placed(root: Path, beside: Path, entry: str) -> Path:
    """A split's folder as ultralytics finds it: from the root; where that is not there and
    the name goes up a folder first (Roboflow writes `../train/images` beside its data.yaml),
    from the root without that step; else from the data.yaml's folder."""
    place = root / entry
    if not place.exists() and entry.startswith("../"):
        place = root / entry[3:]
    if not place.exists():
        place = beside / entry
    return place


def _listed_images(listing: Path, root: Path) -> list[Path]:
    """The images a split's text file lists, a path a line (`./` lines from the root)."""
    try:
        lines = listing.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, ValueError) as exc:
        raise SceneDataError(f"{listing}: cannot read it: {exc}") from None
    images = []
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        image = Path(line) if Path(line).is_absolute() else root / line
        if not image.is_file():
            raise SceneDataError(f"{listing}, line {number}: {line}: no such image")
        images.append(image)
    return images


def _name(image: Path, folder: Path) -> str:
    try:
        return image.relative_to(folder).as_posix()
    except ValueError:  # (a split named outside the dataset's folder)
        return image.as_posix()


def _aspect(image: Path) -> float:
    """An image's width over its height as scoring reads it (turned as its EXIF orientation
    says: read as `evaluate` reads it; Pillow's open, patched by ultralytics where it is
    loaded, asks to install pi-heif for a file it cannot read); 1 where it cannot be read
    (scoring it says why)."""
    from blitzcam.errors import UserError
    from blitzcam.vision.images import read_image

    try:
        height, width = read_image(image).shape[:2]
    except (UserError, OSError):
        return 1.0
    return width / height


def _truth(
    labels: Path, classes: dict[int, tuple[int, str | None]], *, aspect: Callable[[], float]
) -> SceneTruth:
    """One image's truth, its corners in shares of the picture; no cards where it has no
    label file. `aspect`: the image's width over its height, asked where a polygon's box is
    fitted (in shares of a picture not square, the box round it lay askew)."""
    try:
        text = labels.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        text = ""
    except (OSError, ValueError) as exc:
        raise SceneDataError(f"{labels}: cannot read it: {exc}") from None
    corners, kinds, decks = [], [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{labels}, line {number}"
        cls, points = _line(where, line, classes, aspect)
        kind, deck = classes[cls]
        corners.append(points)
        kinds.append(kind)
        decks.append(deck)
    return SceneTruth(
        corners=np.array(corners, np.float64).reshape(-1, 4, 2),
        classes=np.array(kinds, np.int64),
        decks=tuple(decks),
        random_art=holds_random_art(decks),
        relative=True,
    )


def _line(
    where: str,
    line: str,
    classes: dict[int, tuple[int, str | None]],
    aspect: Callable[[], float] = lambda: 1.0,
) -> tuple[int, np.ndarray]:
    """A label line's class and oriented box, (4, 2) in shares of the picture; a polygon's
    box fitted in the picture's proportions (`aspect`: its width over its height)."""
    fields = line.split()
    try:
        cls = int(fields[0])
        values = [float(v) for v in fields[1:]]
    except ValueError:
        raise SceneDataError(
            f"{where}: not a class number and coordinates: {line[:60]!r}"
        ) from None
    if cls not in classes:
        raise SceneDataError(f"{where}: class {cls}, which the data.yaml's names do not name")
    if not all(math.isfinite(v) for v in values):
        raise SceneDataError(f"{where}: a coordinate that is not a number")
    if len(values) == 4:  # an upright box: centre and size
        x, y, w, h = values
        x1, y1, x2, y2 = x - w / 2, y - h / 2, x + w / 2, y + h / 2
        points = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])
    elif len(values) == 6:  # (the box round a triangle lies along its long side)
        raise SceneDataError(
            f"{where}: 6 coordinates, a polygon of 3 points: a card's box takes its 4 corners"
        )
    elif len(values) >= 8 and len(values) % 2 == 0:  # four corners, or a polygon's points
        points = np.array(values, np.float64).reshape(-1, 2)
    else:
        raise SceneDataError(
            f"{where}: {len(values)} coordinates: not a box (4), four corners (8) or a polygon"
        )
    if points.min() < -SLACK or points.max() > 1 + SLACK:
        raise SceneDataError(
            f"{where}: coordinates past 0 to 1: YOLO labels are shares of the picture's width "
            "and height, not pixels"
        )
    if len(points) != 4 or not cv2.isContourConvex(points.astype(np.float32)):
        # fitted as the picture's pixels lie (in shares, a 16:9 picture's tilted card is
        # boxed 0.71-0.89 alike to itself)
        stretch = np.array([aspect(), 1.0])
        fitted = cv2.minAreaRect((points * stretch).astype(np.float32))
        points = cv2.boxPoints(fitted).astype(np.float64) / stretch
    if cv2.contourArea(points.astype(np.float32)) <= 0:
        raise SceneDataError(f"{where}: its corners enclose no area")
    return cls, points
