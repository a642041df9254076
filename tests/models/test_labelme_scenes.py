"""Photos labelled in labelme, read as scenes with boxes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from blitzcam.models.evaluation import SceneDataError, labels_of_no_deck
from blitzcam.models.labelme_scenes import labelme_files, labelme_scenes, unlabelled_photos


def _labelled(folder: Path, shapes: list, *, name: str = "table", **fields) -> Path:
    """A labelme file as labelme 5 saves it, beside its photo (bytes read only when counted)."""
    (folder / f"{name}.jpg").write_bytes(b"a photo")
    record = {
        "version": "5.4.1",
        "flags": {},
        "shapes": shapes,
        "imagePath": f"{name}.jpg",
        "imageData": None,
        "imageHeight": 720,
        "imageWidth": 1280,
    } | fields
    path = folder / f"{name}.json"
    path.write_text(json.dumps(record))
    return path


def _shape(label: str, points: list, kind: str = "polygon") -> dict:
    return {"label": label, "points": points, "group_id": None, "shape_type": kind, "flags": {}}


SQUARE = [[10, 10], [50, 10], [50, 60], [10, 60]]


def test_each_shape_is_a_back_of_its_deck_a_face_up_card_or_a_back_of_no_deck(
    tmp_path: Path,
) -> None:
    _labelled(
        tmp_path,
        [
            _shape("green-pump", SQUARE),
            _shape("Face-Up", SQUARE),
            _shape("unknown", SQUARE),
            _shape("red-plow", [[50, 60], [10, 10]], "rectangle"),  # (corners in either order)
        ],
    )
    ((name, image, truth),) = labelme_scenes(tmp_path)
    assert (name, image) == ("table.json", tmp_path / "table.jpg")
    assert truth.classes.tolist() == [0, 1, 0, 0]
    assert truth.decks == ("green-pump", None, "unknown", "red-plow")
    assert truth.random_art and truth.size == (1280, 720)
    assert np.array_equal(truth.corners[3], np.array(SQUARE, np.float64))
    # labelled `unknown` on purpose: no typo to warn of
    assert labels_of_no_deck([truth], ("green-pump", "red-plow")) == {}


def test_a_card_traced_with_more_corners_is_boxed_round_them(tmp_path: Path) -> None:
    traced = [[10, 10], [30, 9], [50, 10], [50, 60], [10, 60]]
    _labelled(tmp_path, [_shape("red-plow", traced)])
    ((_, _, truth),) = labelme_scenes(tmp_path)
    assert truth.corners.shape == (1, 4, 2)
    xs, ys = truth.corners[0].T
    assert xs.min() == pytest.approx(10, abs=1) and ys.max() == pytest.approx(60, abs=1.5)


def test_a_windows_image_path_and_a_json_folder_beside_the_photos_are_read(
    tmp_path: Path,
) -> None:
    # (Supervisely's and others' layout: ann/x.json naming ..\\img\\x.jpg, saved on Windows)
    (tmp_path / "img").mkdir()
    (tmp_path / "ann").mkdir()
    (tmp_path / "img" / "x.jpg").write_bytes(b"a photo")
    path = _labelled(tmp_path / "ann", [_shape("red-plow", SQUARE)], imagePath="..\\img\\x.jpg")
    (tmp_path / "ann" / "table.jpg").unlink()
    ((name, image, _),) = labelme_scenes(tmp_path)
    assert name == "ann/table.json" and image == path.parent / "../img/x.jpg"
    assert unlabelled_photos(tmp_path, labelme_scenes(tmp_path)) == []


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("~nosuchuser/x.jpg", "no such file, nor x.jpg beside it"),  # (a traceback: no home)
        ("x" * 300 + ".jpg", "cannot be looked at (File name too long)"),  # (a traceback)
    ],
)
def test_a_photo_path_that_names_no_file_is_said_in_a_line(tmp_path: Path, given: str, said: str) -> None:
    _labelled(tmp_path, [_shape("red-plow", SQUARE)], imagePath=given)
    with pytest.raises(SceneDataError, match=re.escape(said)):
        labelme_scenes(tmp_path)


def test_only_labelme_files_count_and_photos_no_file_names_are_found(tmp_path: Path) -> None:
    _labelled(tmp_path, [_shape("red-plow", SQUARE)])
    (tmp_path / "settings.json").write_text('{"theme": "dark"}')  # another tool's
    (tmp_path / "other.png").write_bytes(b"a photo")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.json").write_text('{"shapes": []}')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "deep.json").write_text('{"shapes": []}')  # (two folders down: not looked at)
    assert labelme_files(tmp_path) == [tmp_path / "table.json"]
    scenes = labelme_scenes(tmp_path)
    assert unlabelled_photos(tmp_path, scenes) == [tmp_path / "other.png"]


@pytest.mark.parametrize(
    ("shapes", "fields", "said"),
    [
        ([_shape("", SQUARE)], {}, "shape 1: no label"),
        ([_shape("red-plow", [[1, 2], [3, 4]])], {}, "shape 1: a polygon of 2 points encloses"),
        # (a click short: the box round the triangle lay along its long side; review)
        ([_shape("red-plow", [[0, 0], [100, 0], [100, 140]])], {}, "shape 1: a polygon of 3 "
         "points: a card's box takes its 4 corners"),
        ([_shape("red-plow", [[1, 2, 3]])], {}, "shape 1: its 'points' are not finite [x, y]"),
        ([_shape("red-plow", "here")], {}, "shape 1: its 'points' are not"),
        ([_shape("red-plow", [[0, 0], [1, 1], [2, 2], [3, 3]])], {}, "its corners enclose no area"),
        ([_shape("red-plow", [[1, 2], [3, 4], [5, 6]], "rectangle")], {}, "rectangle of 3 points, "
         "not 2 or 4 corners"),
        ([_shape("red-plow", [[1, 2], [3, float("nan")], [5, 6]])], {}, "not finite"),
        ([_shape("red-plow", SQUARE), "x"], {}, "shape 2: not a shape (a JSON str)"),
        ([], {"imagePath": "gone.jpg"}, "its photo gone.jpg: no such file, nor gone.jpg beside it"),
        ([], {"imagePath": None}, "no 'imagePath' naming the photo"),
        ([], {"imageWidth": "wide"}, "imageWidth 'wide', imageHeight 720: not a size"),
        # (review) a whole number past any float: an OverflowError traceback; said cut short
        ([], {"imageWidth": 10**400}, "imageWidth 1000000000000000000000000000...00000"),
        ([], {"imageWidth": 1e300}, "imageWidth 1e+300, imageHeight 720: not a size"),
        # finite, and inf or nan in float32: a box nothing could match, a miss unsaid
        ([_shape("red-plow", [[1e300, 2], [3, 4], [5, 6]])], {}, "shape 1: its 'points' lie past 1,000,000 px"),
        ([_shape("red-plow", [[1e39, 2], [3, 4], [5, 6]])], {}, "shape 1: its 'points' lie past"),
        ([_shape("red-plow", [[True, False], [3, 4], [5, 6]])], {}, "shape 1: its 'points' are not [x, y] pairs"),
        ([], {"imagePath": "."}, "its photo .: not a file, nor a copy inside it"),  # (", nor  beside it")
    ],
)
def test_a_file_that_cannot_be_scored_is_said_naming_it_and_the_shape(
    tmp_path: Path, shapes: list, fields: dict, said: str
) -> None:
    path = _labelled(tmp_path, shapes, **fields)
    with pytest.raises(SceneDataError) as caught:
        labelme_scenes(tmp_path)
    message = str(caught.value)
    assert message.startswith(str(path)) and said in message and "\n" not in message


def test_a_damaged_labelme_file_is_said_not_skipped(tmp_path: Path) -> None:
    _labelled(tmp_path, [_shape("red-plow", SQUARE)])
    (tmp_path / "cut.json").write_text('{"shapes": [{"label": "red-pl')  # cut short
    assert tmp_path / "cut.json" in labelme_files(tmp_path)
    with pytest.raises(SceneDataError, match=r"cut.json: not a labelme file \(not JSON: "):
        labelme_scenes(tmp_path)


def test_scenes_relabelled_in_labelme_score_as_their_generated_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same scenes, their ground truth written as labelme files: the same report, figure
    # for figure (shapes as polygons, faces as face-up, random art as its unknown: label)
    from blitzcam.cli import main
    from tests.models.relabelled import generated_scenes

    generated, hand = tmp_path / "generated", tmp_path / "hand"
    hand.mkdir()
    for path, record in generated_scenes(generated):
        shapes = [
            _shape("face-up" if o["class"] == "face" else o["deck"], o["polygon"])
            for o in record["objects"]
        ]
        width, height = record["resolution"]
        (hand / f"{path.parent.name}-{path.stem}.json").write_text(json.dumps({
            "shapes": shapes,
            "imagePath": str(generated / record["image"]),
            "imageWidth": width,
            "imageHeight": height,
        }))
    reports = []
    for args in (["--data", str(generated), "--split", "all"], ["--data", str(hand)]):
        assert main(["evaluate", *args, "--json", str(tmp_path / "r.json")]) == 0
        reports.append(json.loads((tmp_path / "r.json").read_text()))
    out = capsys.readouterr().out
    assert f"4 scenes from {hand} (labelled by hand)" in out
    from_scenes, from_labelme = reports
    for key in ("scenes", "detector", "scene_exact_rate", "scene_exact_rate_with_unknown",
                "per_deck", "mean_abs_count_error", "confusions", "face_up_counted",
                "exact_rate_by_conf", "labels_of_no_deck"):
        assert from_labelme[key] == from_scenes[key], key
    assert from_labelme["split"] is None and from_labelme["photos_without_labels"] == []
    # one image damaged: left out and said, the others scored, and the run fails (a generated
    # dataset's stopped the run, throwing away what was scored)
    image = next((generated / "images").glob("*/*.jpg"))
    image.write_bytes(image.read_bytes()[:2000])
    capsys.readouterr()
    for args in (["--data", str(hand)], ["--data", str(generated), "--split", "all"]):
        assert main(["evaluate", *args, "--json", str(tmp_path / "r.json")]) == 1
        report = json.loads((tmp_path / "r.json").read_text())
        assert report["scenes"] == 3 and len(report["unreadable"]) == 1
        assert f"{image}: cannot decode image" in report["left_out"][0]["why"]
        said = capsys.readouterr()
        assert "WARNING: pictures that do not decode" in said.out
        # (and on stderr: with the report on stdout, `--json -` failed without a word)
        last = said.err.splitlines()[-1]
        assert last.startswith("blitzcam evaluate: 1 picture could not be read, left out of every")
        assert f"{image}: cannot decode image" in last
    assert main(["evaluate", "--data", str(hand), "--json", "-"]) == 1
    said = capsys.readouterr()
    assert len(json.loads(said.out)["unreadable"]) == 1  # stdout: the report alone
    assert said.err.splitlines()[-1].startswith(
        "blitzcam evaluate: 1 picture could not be read, left out of every figure: "
    )


def test_evaluate_says_a_picture_that_does_not_decode_on_one_line(capsys) -> None:
    # (a name holding a line break split the line in two, and an escape code reached the
    # terminal; the picture's name was said twice)
    from blitzcam.commands.evaluate import _say_unreadable

    name = "shots/grey\nFAKE: all read \x1b[31m.jpg"
    _say_unreadable({"unreadable": [name, "b"], "left_out": [
        {"scene": name, "why": f"{name}: cannot decode image: the file is truncated"},
        {"scene": "b", "why": "b.jpg: cannot decode image"}]})
    err = capsys.readouterr().err
    assert err == ("blitzcam evaluate: 2 pictures could not be read, left out of every figure: "
                   "shots/grey\\nFAKE: all read \\x1b[31m.jpg: cannot decode image: the file is "
                   "truncated (and 1 more: see the report)\n")


def test_a_photo_resized_since_it_was_labelled_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # its boxes would lie off its cards: every back missed, every box an extra
    from blitzcam.cli import main

    demo = Path(__file__).parents[2] / "datasets" / "demo" / "table-1.jpg"  # 1280 x 720
    record = {"shapes": [_shape("red-plow", SQUARE)], "imagePath": str(demo),
              "imageWidth": 640, "imageHeight": 360}
    (tmp_path / "t.json").write_text(json.dumps(record))
    assert main(["evaluate", "--data", str(tmp_path)]) == 2
    last = capsys.readouterr().err.splitlines()[-1]  # (after the progress bar's)
    assert last.endswith(  # (named by its file: "t.json" alone said where it was not)
        f"error: {tmp_path / 't.json'}: labelled on a 640x360 picture, and the photo is 1280x720 "
        "(resized since?)"
    )
    # beside a photo that can be scored, it is left out and said, the other scored
    record = {"shapes": [], "imagePath": str(demo.parent / "table-2.jpg")}
    (tmp_path / "u.json").write_text(json.dumps(record))
    (tmp_path / "cut.jpg").write_bytes(demo.read_bytes()[:3000])
    record = {"shapes": [], "imagePath": "cut.jpg"}
    (tmp_path / "v.json").write_text(json.dumps(record))
    # (exit 1 for the picture that does not decode alone: a resized one is no failure to read)
    assert main(["evaluate", "--data", str(tmp_path), "--json", str(tmp_path / "r.txt")]) == 1
    out = capsys.readouterr().out
    assert json.loads((tmp_path / "r.txt").read_text())["unreadable"] == ["v.json"]
    assert "left out, not scored: t.json: labelled on a 640x360 picture, and the photo is " in out
    assert f"left out, not scored: v.json: {tmp_path / 'cut.jpg'}: cannot decode image" in out
    assert json.loads((tmp_path / "r.txt").read_text())["scenes"] == 1


def test_labels_in_any_case_or_spacing_name_their_decks(tmp_path: Path) -> None:
    # ("Green-Pump", "UNKNOWN": scored as decks nobody has, 0 % exact; the counts file took them)
    labels = ["Green-Pump", "RED PLOW", "blue_pump ", "UNKNOWN", "Face Up"]
    _labelled(tmp_path, [_shape(label, SQUARE) for label in labels])
    ((_, _, truth),) = labelme_scenes(tmp_path)
    assert truth.decks == ("green-pump", "red-plow", "blue-pump", "unknown", None)
    assert truth.random_art


def test_shapes_as_other_tools_save_them_are_read(tmp_path: Path) -> None:
    shapes = [
        _shape("red-plow", [[10, 10], [50, 10], [50, 60], [10, 60]], "rectangle"),  # X-AnyLabeling's
        _shape("red-plow", [[10, 10], [50, 12], [10, 60], [52, 60]]),  # clicked across: a bow-tie
        {"label": "red-plow", "points": SQUARE, "shape_type": None},  # (a null type: a polygon)
        _shape("note", [[5, 5]], "point"),  # a person's note: no card
    ]
    _labelled(tmp_path, shapes, imageWidth=1280.0)
    left_out: list[str] = []
    ((_, _, truth),) = labelme_scenes(tmp_path, left_out)
    assert len(truth.decks) == 3 and truth.size == (1280, 720)
    assert left_out == [f"{tmp_path / 'table.json'}, shape 4: a 'point' shape"]
    from blitzcam.vision.polygons import polygon_iou

    bow_tie = truth.corners[1]
    assert polygon_iou(bow_tie, np.array(SQUARE, np.float64)) > 0.8  # (it was 0.0: scored a miss)


def test_a_photo_path_of_another_machine_finds_the_photo_beside_the_file(tmp_path: Path) -> None:
    _labelled(tmp_path, [], imagePath="C:\\Users\\me\\Pictures\\table.jpg")
    ((_, image, _),) = labelme_scenes(tmp_path)
    assert image == tmp_path / "table.jpg"


def test_a_byte_order_mark_is_read_and_another_tools_broken_json_passed_by(tmp_path: Path) -> None:
    path = _labelled(tmp_path, [_shape("red-plow", SQUARE)])
    path.write_text("\ufeff" + path.read_text(), encoding="utf-8")
    (tmp_path / "camera-settings.json").write_text('{"exposure": ')  # broken, no shapes: not ours
    assert labelme_files(tmp_path) == [path]
    assert len(labelme_scenes(tmp_path)) == 1


def test_two_files_naming_one_photo_are_refused(tmp_path: Path) -> None:
    first = _labelled(tmp_path, [_shape("red-plow", SQUARE)])
    (tmp_path / "table (copy).json").write_text(first.read_text())
    with pytest.raises(SceneDataError, match=r"table.json: names the photo .*table \(copy\).json "
                       r"names too"):
        labelme_scenes(tmp_path)


def test_labelme_files_in_a_folder_called_scenes_are_not_an_unfinished_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from blitzcam.commands.evaluate import _data_kind

    (tmp_path / "scenes").mkdir()
    _labelled(tmp_path / "scenes", [_shape("red-plow", SQUARE)])
    assert _data_kind(tmp_path) == "labelme"
    (tmp_path / "counts.csv").write_text("image,red-plow\nscenes/table.jpg,1\n")
    assert _data_kind(tmp_path) == "photos"  # both: the counts, and said
    assert "holds labelme files and a counts.csv: scored on the counts" in capsys.readouterr().err


def test_a_photo_kept_only_inside_its_labelme_file_is_read_from_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # labelme saves the photo inside the JSON by default; shared without the photo, the file
    # was refused ("its photo ...: no such file")
    import base64

    from blitzcam.cli import main
    from blitzcam.datasets.generate import GenerateRequest, generate_dataset
    from blitzcam.models.labelme_scenes import PhotoInLabels, read_photo
    from blitzcam.vision.images import read_picture

    generated, beside, inside = tmp_path / "generated", tmp_path / "beside", tmp_path / "inside"
    generate_dataset(
        GenerateRequest(out=generated, n=2, seed=60, res=(1280, 720), workers=1, progress=False)
    )
    beside.mkdir()
    inside.mkdir()
    for path in sorted((generated / "scenes").glob("*/*.json")):
        record = json.loads(path.read_text())
        photo = generated / record["image"]
        labels = {
            "shapes": [
                _shape("face-up" if o["class"] == "face" else o["deck"], o["polygon"])
                for o in record["objects"]
            ],
            "imagePath": photo.name,
            "imageWidth": record["resolution"][0],
            "imageHeight": record["resolution"][1],
        }
        (beside / photo.name).write_bytes(photo.read_bytes())
        (beside / f"{photo.stem}.json").write_text(json.dumps(labels | {"imageData": None}))
        kept = base64.b64encode(photo.read_bytes()).decode("ascii")
        (inside / f"{photo.stem}.json").write_text(json.dumps(labels | {"imageData": kept}))
    scenes = labelme_scenes(inside)
    assert [image for _, image, _ in scenes] == [
        PhotoInLabels(inside / name) for name, _, _ in scenes
    ]
    first = scenes[0][1]
    assert np.array_equal(
        read_photo(first).frame, read_picture(beside / f"{first.labels.stem}.jpg").frame
    )
    assert unlabelled_photos(inside, scenes) == []
    reports = []
    for folder in (beside, inside):
        assert main(["evaluate", "--data", str(folder), "--json", str(tmp_path / "r.json")]) == 0
        reports.append(json.loads((tmp_path / "r.json").read_text()))
    for key in ("scenes", "detector", "scene_exact_rate", "per_deck", "mean_abs_count_error"):
        assert reports[0][key] == reports[1][key], key
    # with the photo beside it too, the photo's file is read (the same picture)
    photo = f"{first.labels.stem}.jpg"
    (inside / photo).write_bytes((beside / photo).read_bytes())
    assert labelme_scenes(inside)[0][1] == inside / photo
    capsys.readouterr()


@pytest.mark.parametrize(
    ("kept", "said"),
    [
        ("not base64 at all!", "its imageData is not an image in base64"),
        ("\ud800AAAA", "its imageData is not an image in base64"),  # (a UnicodeEncodeError)
        ("aGVsbG8gd29ybGQ=", "cannot decode image"),  # base64 of "hello world"
    ],
)
def test_a_copy_inside_that_is_no_picture_is_left_out_and_said(
    tmp_path: Path, kept: str, said: str
) -> None:
    from blitzcam.models.labelme_scenes import PhotoInLabels, read_photo
    from blitzcam.vision.images import ImageError

    path = _labelled(tmp_path, [_shape("red-plow", SQUARE)], imagePath="gone.jpg", imageData=kept)
    ((_, image, _),) = labelme_scenes(tmp_path)
    assert image == PhotoInLabels(path)
    with pytest.raises(ImageError) as caught:
        read_photo(image)
    message = str(caught.value)
    assert message.startswith(f"{path} (the photo inside it)") and said in message
    assert "\n" not in message


def test_a_labels_file_whose_photo_is_only_inside_it_is_no_other_photo_s(tmp_path: Path) -> None:
    # prelabel must not take it for the photo's own labels file (and write over it)
    from blitzcam.models.prelabel import labels_of

    path = _labelled(tmp_path, [], imagePath="elsewhere/t.jpg", imageData="aGVsbG8=")
    (tmp_path / "table.jpg").write_bytes(b"a photo")
    assert labels_of(path, tmp_path / "table.jpg") is False


def test_a_photo_kept_inside_is_read_as_other_tools_write_it(tmp_path: Path) -> None:
    # (lines broken every 76 characters, a data URL's head: "not an image in base64")
    import base64

    from blitzcam.models.labelme_scenes import read_photo
    from blitzcam.vision.images import read_picture

    demo = Path(__file__).parents[2] / "datasets" / "demo" / "table-1.jpg"
    raw = demo.read_bytes()
    for name, kept in (
        ("broken", base64.encodebytes(raw).decode("ascii")),
        ("url", "data:image/jpeg;base64," + base64.b64encode(raw).decode("ascii")),
    ):
        folder = tmp_path / name
        folder.mkdir()
        _labelled(folder, [], imagePath="gone.jpg", imageData=kept)
        ((_, image, _),) = labelme_scenes(folder)
        assert np.array_equal(read_photo(image).frame, read_picture(demo).frame)


def test_two_files_keeping_one_photo_inside_are_refused(tmp_path: Path) -> None:
    # a copy of a labelme file whose photo is only inside it was scored twice
    kept = "aGVsbG8="
    _labelled(tmp_path, [], name="a", imagePath="gone.jpg", imageData=kept)
    _labelled(tmp_path, [], name="b", imagePath="gone.jpg", imageData=kept)
    with pytest.raises(SceneDataError, match=r"b\.json: holds the photo .*a\.json holds too$"):
        labelme_scenes(tmp_path)
    _labelled(tmp_path, [], name="b", imagePath="gone.jpg", imageData="b3RoZXI=")  # another
    assert len(labelme_scenes(tmp_path)) == 2
