"""Photos labelled in ultralytics' YOLO format (Roboflow's, CVAT's exports), read as scenes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from blitzcam.models.evaluation import SceneDataError, in_pixels
from blitzcam.models.yolo_scenes import default_split, label_path, yolo_scenes

NAMES = ["green-pump", "Red Plow", "face-up", "unknown"]
SQUARE = "0.1 0.1 0.5 0.1 0.5 0.6 0.1 0.6"


def _dataset(root: Path, splits: dict[str, dict[str, str | None]], **data: object) -> Path:
    """A dataset as ultralytics lays one out: images/<split>/x.jpg, labels/<split>/x.txt (None:
    no label file), and its data.yaml."""
    for split, images in splits.items():
        (root / "images" / split).mkdir(parents=True)
        (root / "labels" / split).mkdir(parents=True)
        for name, labels in images.items():
            (root / "images" / split / f"{name}.jpg").write_bytes(b"a photo")
            if labels is not None:
                (root / "labels" / split / f"{name}.txt").write_text(labels)
    record = {split: f"images/{split}" for split in splits} | {"names": NAMES} | data
    (root / "data.yaml").write_text(json.dumps(record))  # (JSON is YAML)
    return root


def test_each_line_is_a_back_of_its_deck_a_face_up_card_or_a_back_of_no_deck(
    tmp_path: Path,
) -> None:
    labels = f"0 {SQUARE}\n2 {SQUARE}\n\n3 {SQUARE}\n1 0.3 0.35 0.4 0.5\n"
    _dataset(tmp_path, {"test": {"t": labels}})
    ((name, image, truth),) = yolo_scenes(tmp_path, "test")
    assert (name, image) == ("images/test/t.jpg", tmp_path / "images" / "test" / "t.jpg")
    assert truth.classes.tolist() == [0, 1, 0, 0]
    assert truth.decks == ("green-pump", None, "unknown", "red-plow")
    assert truth.random_art and truth.relative and truth.size is None
    # an upright box's centre and size: the same corners as the four given
    square = np.array([[0.1, 0.1], [0.5, 0.1], [0.5, 0.6], [0.1, 0.6]])
    assert np.allclose(truth.corners[0], square) and np.allclose(truth.corners[3], square)
    # in a picture's pixels when it is read
    assert np.allclose(in_pixels(truth, (1000, 500)).corners[0], square * [1000, 500])
    assert not in_pixels(truth, (1000, 500)).relative


def test_a_polygon_is_boxed_round_its_points_and_an_image_without_labels_shows_no_card(
    tmp_path: Path,
) -> None:
    polygon = "0.1 0.1 0.3 0.09 0.5 0.1 0.5 0.6 0.1 0.6"
    _dataset(tmp_path, {"test": {"a": f"0 {polygon}", "b": None}})
    (_, _, a), (_, _, b) = yolo_scenes(tmp_path, "test")
    xs, ys = a.corners[0].T
    assert a.corners.shape == (1, 4, 2)
    assert xs.min() == pytest.approx(0.1, abs=0.01) and ys.max() == pytest.approx(0.6, abs=0.02)
    assert b.corners.shape == (0, 4, 2) and b.classes.tolist() == []


def test_roboflow_s_layout_and_names_as_a_mapping_are_read(tmp_path: Path) -> None:
    # Roboflow: train/images beside data.yaml, named "../train/images" (ultralytics drops the
    # "../" where the folder is not there); names as {number: name}
    for split in ("train", "valid"):
        (tmp_path / split / "images").mkdir(parents=True)
        (tmp_path / split / "labels").mkdir(parents=True)
        (tmp_path / split / "images" / "x.jpg").write_bytes(b"a photo")
        (tmp_path / split / "labels" / "x.txt").write_text(f"7 {SQUARE}")
    (tmp_path / "data.yaml").write_text(
        "train: ../train/images\nval: ../valid/images\nnc: 2\nnames:\n  5: face-up\n  7: blue-plow\n"
    )
    assert default_split(tmp_path) == "all"  # (no test split: every split)
    scenes = yolo_scenes(tmp_path, "all")
    assert [name for name, _, _ in scenes] == ["train/images/x.jpg", "valid/images/x.jpg"]
    assert scenes[0][2].decks == ("blue-plow",)
    assert [name for name, _, _ in yolo_scenes(tmp_path, "val")] == ["valid/images/x.jpg"]


def test_a_root_path_a_list_of_folders_and_a_listing_file_name_the_images(tmp_path: Path) -> None:
    root = _dataset(tmp_path / "data", {"a": {"x": f"0 {SQUARE}"}, "b": {"y": f"1 {SQUARE}"}})
    (root / "test.txt").write_text("./images/a/x.jpg\n\n./images/b/y.jpg\n")
    (tmp_path / "data.yaml").write_text(
        json.dumps({"path": "data", "train": ["images/a", "images/b"], "test": "test.txt",
                    "names": NAMES})
    )
    assert default_split(tmp_path) == "test"
    names = [name for name, _, _ in yolo_scenes(tmp_path, "test")]
    assert names == ["data/images/a/x.jpg", "data/images/b/y.jpg"]
    # an image named by two splits is one scene
    assert len(yolo_scenes(tmp_path, "all")) == 2


def test_a_split_with_no_label_file_at_all_is_refused_not_scored_as_empty_tables(
    tmp_path: Path,
) -> None:
    # (labels/ renamed: precision 0, every count wrong, exit 0, nothing said; review)
    _dataset(tmp_path, {"test": {"a": None, "b": None}})
    with pytest.raises(SceneDataError, match=r"data.yaml: none of the 2 images of its test split "
                       r"has a label file \(looked for .*labels/test/a.txt and the like"):  # fmt: skip
        yolo_scenes(tmp_path, "test")
    (tmp_path / "labels" / "test" / "a.txt").write_text(f"0 {SQUARE}\n")  # one table empty
    assert [truth.classes.tolist() for _, _, truth in yolo_scenes(tmp_path, "test")] == [[0], []]


@pytest.mark.parametrize("tilt", [15, 45, 60])
def test_a_polygon_s_box_is_fitted_as_the_picture_s_pixels_lie(tmp_path: Path, tilt: float) -> None:
    # in shares of a 16:9 picture, the box round a tilted card's outline lay askew: 0.71-0.89
    # alike to the card (review)
    import cv2

    size = np.array([1280.0, 720.0])
    card = cv2.boxPoints(((640, 360), (200, 300), tilt)).astype(np.float64)
    outline = np.concatenate([card, (card + np.roll(card, -1, axis=0)) / 2])  # corners, sides
    outline = outline[[0, 4, 1, 5, 2, 6, 3, 7]]
    line = "0 " + " ".join(f"{v:.6f}" for v in (outline / size).ravel())
    _dataset(tmp_path, {"test": {"t": line}})
    cv2.imwrite(str(tmp_path / "images" / "test" / "t.jpg"), np.zeros((720, 1280, 3), np.uint8))
    ((_, _, truth),) = yolo_scenes(tmp_path, "test")
    boxed = in_pixels(truth, (1280, 720)).corners[0].astype(np.float32)
    common, _ = cv2.intersectConvexConvex(boxed, card.astype(np.float32))
    union = cv2.contourArea(boxed) + cv2.contourArea(card.astype(np.float32)) - common
    assert common / union > 0.99


def test_label_files_are_found_where_ultralytics_looks(tmp_path: Path) -> None:
    image = tmp_path / "images" / "set" / "images" / "x.png"
    assert label_path(image) == tmp_path / "images" / "set" / "labels" / "x.txt"


@pytest.mark.parametrize(
    ("data", "labels", "said"),
    [
        ({"names": ["back", "face"]}, "",
         r"data.yaml: class 0 'back' names no deck: evaluate scores each deck's count"),
        ({"names": []}, "", r"data.yaml: no 'names' of classes"),
        ({"names": {"x": "green-pump"}}, "", r"data.yaml: names: 'x' is not a class number"),
        ({"names": [None]}, "", r"data.yaml: names: class 0 has no name"),
        ({}, f"9 {SQUARE}", r"t.txt, line 1: class 9, which the data.yaml's names do not name"),
        ({}, "0 120 80 400 80 400 300 120 300",
         r"t.txt, line 1: coordinates past 0 to 1: YOLO labels are shares of the picture's "
         r"width and height, not pixels"),
        ({}, f"\n0 {SQUARE} 0.3", r"t.txt, line 2: 9 coordinates: not a box \(4\), four corners"),
        ({}, "green-pump 0.3 0.3 0.1 0.1", r"t.txt, line 1: not a class number and coordinates"),
        ({}, "0 0.3 nan 0.1 0.1", r"t.txt, line 1: a coordinate that is not a number"),
        ({}, "0 0.3 0.3 0 0.1", r"t.txt, line 1: its corners enclose no area"),
        # (a click short: the box round the triangle lay along its long side; review)
        ({}, "0 0.1 0.1 0.3 0.1 0.3 0.4", r"t.txt, line 1: 6 coordinates, a polygon of 3 points"),
    ],
)
def test_a_dataset_that_cannot_be_scored_is_said_naming_the_file_and_line(
    tmp_path: Path, data: dict, labels: str, said: str
) -> None:
    _dataset(tmp_path, {"test": {"t": labels}}, **data)
    with pytest.raises(SceneDataError, match=said):
        yolo_scenes(tmp_path, "test")


@pytest.mark.parametrize(
    ("data", "split", "said"),
    [
        ("names: [green-pump\n", "all", r"data.yaml: not YAML \("),
        ("- a list\n", "all", r"data.yaml: not a YOLO data file"),
        ("names: [green-pump]\n", "all", r"data.yaml: names no split"),
        ("names: [green-pump]\ntrain: images/train\n", "all",
         r"data.yaml: train: images/train: no such folder"),
        ("names: [green-pump]\ntrain: images/train\n", "test",
         r"data.yaml: no test split \(it names train; --split"),
        ("names: [green-pump]\ntrain: images/\n", "all", r"data.yaml: no images in its all split"),
    ],
)
def test_a_data_file_that_is_no_dataset_is_said(
    tmp_path: Path, data: str, split: str, said: str
) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "data.yaml").write_text(data)
    with pytest.raises(SceneDataError, match=said):
        yolo_scenes(tmp_path, split)


def test_scenes_exported_as_a_yolo_dataset_score_as_their_generated_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same scenes, their ground truth written as an ultralytics OBB dataset in Roboflow's
    # layout (corners in shares of the picture, classes the decks): the same report
    from blitzcam.cli import main
    from tests.models.relabelled import generated_scenes

    generated, exported = tmp_path / "generated", tmp_path / "exported"
    names = ["face-up", "unknown", "blue-plow", "blue-pump", "green-bucket", "green-pump",
             "red-buggy", "red-plow", "yellow-bucket", "yellow-buggy"]
    for path, record in generated_scenes(generated):
        width, height = record["resolution"]
        image = generated / record["image"]
        for kind in ("images", "labels"):
            (exported / path.parent.name / kind).mkdir(parents=True, exist_ok=True)
        (exported / path.parent.name / "images" / image.name).write_bytes(image.read_bytes())
        lines = []
        for o in record["objects"]:
            deck = "face-up" if o["class"] == "face" else o["deck"]
            deck = "unknown" if deck.startswith("unknown:") else deck
            corners = " ".join(f"{x / width:.6f} {y / height:.6f}" for x, y in o["polygon"])
            lines.append(f"{names.index(deck)} {corners}")
        (exported / path.parent.name / "labels" / f"{path.stem}.txt").write_text("\n".join(lines))
    (exported / "data.yaml").write_text(
        "train: ../train/images\nval: ../val/images\ntest: ../test/images\n"
        f"names: {json.dumps(names)}\n"
    )
    reports = []
    for data in (generated, exported):
        args = ["evaluate", "--data", str(data), "--split", "all", "--json", str(tmp_path / "r")]
        assert main(args) == 0
        reports.append(json.loads((tmp_path / "r").read_text()))
    assert f"4 scenes from {exported} (all)" in capsys.readouterr().out
    from_scenes, from_yolo = reports
    for key in ("scenes", "detector", "scene_exact_rate", "scene_exact_rate_with_unknown",
                "per_deck", "mean_abs_count_error", "confusions", "face_up_counted",
                "exact_rate_by_conf", "labels_of_no_deck"):
        assert from_yolo[key] == from_scenes[key], key
    # one photo damaged: left out and said, the others scored, the run failed for it
    image = next((exported / "train" / "images").glob("*.jpg"))
    image.write_bytes(image.read_bytes()[:2000])
    assert main(["evaluate", "--data", str(exported), "--split", "all"]) == 1
    out = capsys.readouterr().out
    assert "3 scenes from" in out
    assert f"left out, not scored: train/images/{image.name}: {image}: cannot decode image" in out
