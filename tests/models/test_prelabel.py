"""Photos pre-labelled with what blitzcam counts, as labelme files to correct by hand."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from blitzcam.models.prelabel import Shape, counted_shapes, labelme_record, labels_file

DEMO = Path(__file__).parents[2] / "datasets" / "demo"


def test_a_record_is_a_labelme_file_flagged_unchecked() -> None:
    corners = np.array([[1.04, 2], [3, 2], [3, 4], [1, 4]])
    record = labelme_record("t.jpg", (1920, 1080), [Shape("red-plow", corners, 0.973)])
    assert record["flags"] == {"checked": False}
    assert (record["imagePath"], record["imageWidth"], record["imageHeight"]) == ("t.jpg", 1920, 1080)
    assert record["imageData"] is None
    (shape,) = record["shapes"]
    assert shape["label"] == "red-plow" and shape["shape_type"] == "polygon"
    assert shape["points"] == [[1.0, 2.0], [3.0, 2.0], [3.0, 4.0], [1.0, 4.0]]
    assert shape["description"] == "blitzcam 0.97"


def test_shapes_are_in_the_photos_pixels_faces_labelled_face_up() -> None:
    class Found:  # (a frame's Detections, as counted_shapes reads them)
        corners = np.array([[[0, 0], [10, 0], [10, 20], [0, 20]]] * 2, np.float32)
        confidence = np.array([0.9, 0.8], np.float32)

        def __len__(self) -> int:
            return 2

        def of_class(self, name: str) -> np.ndarray:
            return np.array([False, True]) if name == "face" else np.array([True, False])

        def deck_name(self, row: int) -> str:
            return "unknown"

    back, face = counted_shapes(Found(), (2.0, 1.5))
    assert (back.label, face.label) == ("unknown", "face-up")
    assert back.corners[2].tolist() == [20.0, 30.0] and back.confidence == pytest.approx(0.9)


def test_the_file_goes_beside_the_photo_or_into_out_naming_the_photo_from_there(
    tmp_path: Path,
) -> None:
    photo = tmp_path / "night" / "t.jpg"
    assert labels_file(photo, None) == (tmp_path / "night" / "t.json", "t.jpg")
    assert labels_file(photo, tmp_path / "labels") == (tmp_path / "labels" / "t.json", "../night/t.jpg")


def test_prelabelled_photos_evaluate_as_counted_and_are_warned_of_until_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # what blitzcam counted, read back as the truth: every figure 100 %, in the photo's own
    # pixels (a 4800 px photo is counted shrunk: its boxes scaled back), and said to measure
    # nothing until a person has looked
    from blitzcam.cli import main

    small = tmp_path / "table-3.jpg"
    small.write_bytes((DEMO / "table-3.jpg").read_bytes())
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(small)), (4800, 2700)))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a photo")
    assert main(["dataset", "prelabel", str(small), str(broken), str(big)]) == 1
    captured = capsys.readouterr()
    assert f"{small}: 77 backs, 0 face-up: wrote {tmp_path / 'table-3.json'}" in captured.out
    assert f"blitzcam dataset prelabel: error: {broken}: cannot decode" in captured.err
    assert json.loads((tmp_path / "big.json").read_text())["imageWidth"] == 4800
    assert not (tmp_path / "broken.json").exists()
    broken.unlink()

    assert main(["evaluate", "--data", str(tmp_path), "--json", str(tmp_path / "r.txt")]) == 0
    out, err = capsys.readouterr()
    assert "evaluate: 100%" in err  # (its progress bar)
    assert "WARNING: 2 of 2 photos' labels are blitzcam's own, their 'checked' flag unticked" in out
    report = json.loads((tmp_path / "r.txt").read_text())
    assert report["detector"]["all"]["precision"] == report["detector"]["all"]["recall"] == 1.0
    assert report["scene_exact_rate"] == 1.0 and report["labels_unchecked"] == ["big.json", "table-3.json"]

    # corrected and ticked by hand: kept by a second run, no longer warned of
    record = json.loads((tmp_path / "table-3.json").read_text())
    record["flags"]["checked"] = True
    record["shapes"] = record["shapes"][1:]  # (a box on no card, taken out)
    (tmp_path / "table-3.json").write_text(json.dumps(record))
    assert main(["dataset", "prelabel", str(small)]) == 0
    assert f"{small}: kept {tmp_path / 'table-3.json'}, there already" in capsys.readouterr().err
    assert json.loads((tmp_path / "table-3.json").read_text()) == record
    assert main(["evaluate", "--data", str(tmp_path), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "evaluate:" not in err  # (for logs: the bar's frames filled them; CLI review)
    assert "WARNING: 1 of 2 photos' labels are blitzcam's own" in out
    assert "scenes counted exactly (each deck's count right):  50.00%" in out


def test_a_photo_whose_labels_file_is_another_photos_is_not_labelled_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (t.png beside t.jpg, or two folders' t.jpg into one --out: "kept", exit 0, unlabelled)
    from blitzcam.cli import main

    for folder in ("night", "day"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "t.jpg").write_bytes((DEMO / "table-3.jpg").read_bytes())
    night, day, out = tmp_path / "night" / "t.jpg", tmp_path / "day" / "t.jpg", tmp_path / "lab"
    assert main(["dataset", "prelabel", str(night), str(day), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert f"wrote {out / 't.json'}" in captured.out
    # (it said "give --out DIR" to an --out, where any one folder has one name for both)
    assert (f"blitzcam dataset prelabel: error: {day}: not labelled: {out / 't.json'} is there, the "
            "labels of another photo or no labelme file (rename one of them)") in captured.err
    assert json.loads((out / "t.json").read_text())["imagePath"] == "../night/t.jpg"
    # the photo's own, given again: kept
    assert main(["dataset", "prelabel", str(night), "--out", str(out)]) == 0
    assert "kept" in capsys.readouterr().err
    (tmp_path / "a-file").write_text("")
    assert main(["dataset", "prelabel", str(night), "--out", str(tmp_path / "a-file")]) == 2
    assert "--out " + str(tmp_path / "a-file") + ": not a folder" in capsys.readouterr().err
    (tmp_path / "usb").symlink_to(tmp_path / "unplugged")  # (a drive not plugged in)
    assert main(["dataset", "prelabel", str(night), "--out", str(tmp_path / "usb" / "l")]) == 2
    assert f"{tmp_path / 'usb'} is a link to {tmp_path / 'unplugged'}, which is not there" in (
        capsys.readouterr().err
    )
    # refused for another option: no --out folder made (an empty one was left)
    for bad in (["--in-play", "nosuchdeck"], ["--decks", str(tmp_path / "no-decks")]):
        assert main(["dataset", "prelabel", str(night), "--out", str(tmp_path / "new"), *bad]) == 2
        assert capsys.readouterr().err.count("\n") == 1
        assert not (tmp_path / "new").exists()
    # no photo labelled: no empty --out folder left
    gone = tmp_path / "gone.jpg"
    assert main(["dataset", "prelabel", str(gone), "--out", str(tmp_path / "new")]) == 1
    assert str(gone) in capsys.readouterr().err and not (tmp_path / "new").exists()


def test_the_command_and_the_reader_name_one_counts_file() -> None:
    # (the command says the name without importing the reader, whose imports every command
    # would pay for)
    from blitzcam.commands.evaluate import COUNTS_FILE
    from blitzcam.models import counted_scenes

    assert COUNTS_FILE == counted_scenes.COUNTS_FILE


def test_a_photo_turned_since_it_was_labelled_is_said_not_scored_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # turned half a turn, its size unchanged: scored exact on its counts, every box missed,
    # and nothing said which photo (a review)
    import cv2

    from blitzcam.cli import main

    photo = tmp_path / "t.jpg"
    photo.write_bytes((DEMO / "table-3.jpg").read_bytes())
    assert main(["dataset", "prelabel", str(photo)]) == 0
    cv2.imwrite(str(photo), cv2.rotate(cv2.imread(str(photo)), cv2.ROTATE_180))
    assert main(["evaluate", "--data", str(tmp_path), "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert ("WARNING: the labels of 1 scene lie on few of the backs counted (under 20%: labels "
            "of another picture, or the photo turned or cropped since it was labelled?): t.json"
            ) in out
    assert json.loads((tmp_path / "r.json").read_text())["labels_off_scenes"] == ["t.json"]


def test_every_photo_is_labelled_when_the_reader_of_its_lines_goes_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (`prelabel ... | head -1` stopped at the first line after the reader left: 2 photos of 4
    # labelled; the labels are the work, the lines its log; CLI review)
    import io
    import sys

    from blitzcam.cli import main

    photos = []
    for name in ("a", "b", "c"):
        photos.append(tmp_path / f"{name}.jpg")
        photos[-1].write_bytes((DEMO / "table-3.jpg").read_bytes())
    kept = (tmp_path / "stdout").open("w")

    class ReaderGone(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self) -> int:
            return kept.fileno()

    monkeypatch.setattr(sys, "stdout", ReaderGone())
    with kept:
        code = main(["dataset", "prelabel", *map(str, photos), "--out", str(tmp_path / "lab")])
        assert code == 141
        assert sorted(p.name for p in (tmp_path / "lab").iterdir()) == ["a.json", "b.json", "c.json"]
        # a photo that could not be labelled outweighs the reader gone (said on stderr)
        (tmp_path / "bad.jpg").write_bytes(b"not a photo")
        with_a_bad_one = [*map(str, photos), str(tmp_path / "bad.jpg")]
        assert main(["dataset", "prelabel", *with_a_bad_one, "--out", str(tmp_path / "lab2")]) == 1
