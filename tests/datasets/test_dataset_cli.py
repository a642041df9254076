"""`blitzcam dataset generate|preview` through the real CLI entry point."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from blitzcam.cli import main


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--n", "0"], "--n must be from 1 to 1,000,000 scenes, got 0"),  # no scenes
        (["--n", "-4"], "--n must be from 1 to 1,000,000 scenes"),  # negative count
        # listed its scenes until memory ran out (killed, nothing said)
        (["--n", str(10**20)], "--n must be from 1 to 1,000,000 scenes"),
        (["--n", "2", "--res", "12x"], "--res"),  # height missing
        (["--n", "2", "--res", "0x720"], "--res"),  # zero width
        (["--n", "2", "--res", "1280x99999"], "--res"),  # absurd height
        (["--n", "2", "--res", "big"], "--res"),  # not a size at all
        (["--n", "2", "--seed", "-1"], "--seed"),  # SeedSequence needs >= 0
        # one 32-bit word: 2**32 + 5 drew seed 5's scenes, one scene on
        (["--n", "2", "--seed", str(2**32 + 5)], "--seed must be from 0 to 4294967295"),
        (["--n", "2", "--late-rounds", "1.5"], "--late-rounds must be a share from 0 to 1"),
        (["--n", "2", "--late-rounds", "-0.1"], "--late-rounds must be a share from 0 to 1"),
        (["--n", "2", "--late-rounds", "nan"], "--late-rounds must be a share from 0 to 1"),
    ],
)
def test_generate_rejects_bad_arguments(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = [] if "--seed" in args else ["--seed", "1"]  # (given twice is refused as such)
    argv = ["dataset", "generate", "--out", str(tmp_path / "ds"), *seed, *args]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err
    assert not (tmp_path / "ds").exists()


def _interrupted_at(index: int, *, of: int, out: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """`dataset generate` of `of` small scenes into `out`, Ctrl+C at scene `index` (exit 130,
    checked); its arguments, to run it again (the scenes rendered as usual from then on)."""
    from blitzcam.datasets import generate

    real = generate.render_scene_files

    def interrupted(request, art, at):
        if at == index:
            raise KeyboardInterrupt
        return real(request, art, at)

    argv = ["dataset", "generate", "--out", str(out), "--n", str(of), "--seed", "3",
            "--res", "640x360", "--workers", "1", "--no-progress"]  # fmt: skip
    with monkeypatch.context() as patched:
        patched.setattr(generate, "render_scene_files", interrupted)
        assert main(argv) == 130
    return argv


def test_generate_that_cannot_fit_on_the_disk_is_refused_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 10**6, 10**6))
    argv = ["dataset", "generate", "--out", str(tmp_path / "ds"), "--n", "1000", "--seed", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.endswith("ds: 1,000 scenes take at least 27.6 MB, and 1.0 MB are free there\n")
    assert list(tmp_path.iterdir()) == []  # nothing begun


def test_an_interrupted_generate_goes_on_where_the_disk_holds_only_what_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (the check counted every scene, the kept ones too: a run stopped at 99 % on a nearly
    # full disk could not be finished by "the same command again", as the note says)
    import shutil
    from collections import namedtuple

    from blitzcam.datasets import generate

    one_scene = 640 * 360 * generate.LEAST_JPEG_BYTES_PER_PIXEL
    usage = namedtuple("usage", "total used free")
    argv = _interrupted_at(6, of=8, out=tmp_path / "ds", monkeypatch=monkeypatch)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(0, 0, int(1.5 * one_scene)))
    assert main(argv) == 2  # room for one scene, two left: refused, the six still kept
    assert "2 scenes (of 8; 6 kept from before) take at least" in capsys.readouterr().err
    assert (tmp_path / "ds.tmp-kept").is_dir()
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(0, 0, int(2.5 * one_scene)))
    assert main(argv) == 0 and len(list((tmp_path / "ds").glob("images/*/*.jpg"))) == 8


def test_generate_runs_no_more_workers_than_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (--workers 1000 started a process per scene: ten, 1.3 GB, on two cores)
    import os

    from blitzcam.datasets import generate

    asked = []
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(generate, "generate_dataset", lambda request: asked.append(request) or tmp_path)
    argv = ["dataset", "generate", "--out", str(tmp_path / "ds"), "--n", "10", "--seed", "1"]
    assert main([*argv, "--workers", "1000"]) == 0
    assert capsys.readouterr().err == "note: --workers 1000: this machine has 2 cores; 2 used\n"
    assert main([*argv, "--workers", "2"]) == 0 and capsys.readouterr().err == ""
    assert [request.workers for request in asked] == [2, 2]


def test_generate_under_a_file_says_the_file_is_in_the_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # ("cannot create the dataset folder (File exists)": of a folder that was not there)
    (tmp_path / "notes.txt").write_text("mine")
    argv = ["dataset", "generate", "--out", str(tmp_path / "notes.txt" / "ds"), "--n", "1", "--seed", "1"]
    assert main(argv) == 2
    assert capsys.readouterr().err.endswith(f"({tmp_path / 'notes.txt'} is a file, not a folder)\n")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_an_interrupted_generate_keeps_its_scenes_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Ctrl+C threw away every scene made; the same command started again from 0
    from blitzcam.datasets import generate

    real = generate.render_scene_files
    argv = _interrupted_at(3, of=5, out=tmp_path / "ds", monkeypatch=monkeypatch)
    kept = tmp_path / "ds.tmp-kept"
    assert capsys.readouterr().err == (
        f"note: the 3 scenes made so far are kept in {kept}: the same command again goes on "
        "from them (another seed or size starts afresh and deletes them)\n"
        "blitzcam dataset generate: interrupted\n"
    )
    made = []
    monkeypatch.setattr(generate, "render_scene_files", lambda r, a, i: made.append(i) or real(r, a, i))
    assert main(argv) == 0 and made == [3, 4] and not kept.exists()


def test_generate_refuses_non_empty_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "notes.txt").write_text("mine")
    argv = ["dataset", "generate", "--out", str(tmp_path / "ds"), "--n", "1", "--seed", "0"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--overwrite" in err
    assert main([*argv, "--overwrite", "--res", "640x360", "--no-progress"]) == 2
    assert "not a dataset this command wrote" in capsys.readouterr().err
    assert (tmp_path / "ds" / "notes.txt").read_text() == "mine"
    # a dataset with a file of one's own put in since, or one made inside it: the dataset
    # was replaced, and they went with it (review)
    (tmp_path / "ds" / "notes.txt").unlink()
    assert main([*argv, "--overwrite", "--res", "640x360", "--no-progress"]) == 0
    (tmp_path / "ds" / "notes.txt").write_text("mine")
    (tmp_path / "ds" / "inner").mkdir()
    capsys.readouterr()
    assert main([*argv, "--overwrite", "--res", "640x360", "--no-progress"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"{tmp_path / 'ds'}: holds inner and 1 more, which this command did not write: "
        "--overwrite replaces only a dataset as it wrote it; move them out first"
    )
    assert (tmp_path / "ds" / "notes.txt").read_text() == "mine"


def test_generate_then_preview(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ds"
    argv = [
        "dataset",
        "generate",
        "--out",
        str(out),
        "--n",
        "4",
        "--seed",
        "3",
        "--res",
        "800x450",
        "--workers",
        "1",
        "--no-progress",
    ]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == str(out.resolve() / "data.yaml")
    image = cv2.imread(str(out / "images" / "train" / "000000.jpg"))
    assert image.shape == (450, 800, 3)
    sheet = tmp_path / "sheet.png"
    assert main(["dataset", "preview", str(out), "--out", str(sheet), "--n", "4"]) == 0
    drawn = cv2.imread(str(sheet))
    assert drawn is not None and drawn.shape[1] == 2 * 640


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "ds: no such folder"),  # nothing there (a typo: "not a dataset")
        (lambda p: p.write_text("x"), "ds: not a folder"),
        (lambda p: p.mkdir(), "not a dataset folder"),  # an empty folder
        (lambda p: (p / "images").mkdir(parents=True), "no images"),  # a dataset with no images
    ],
)
def test_preview_rejects_non_datasets(
    make, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "ds"
    make(root)
    assert main(["dataset", "preview", str(root), "--out", str(tmp_path / "s.png")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "s.png").exists()


@pytest.mark.parametrize("n", ["0", "100000"])
def test_preview_takes_a_sheet_s_worth_of_scenes(
    n: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ds" / "images").mkdir(parents=True)
    argv = ["dataset", "preview", str(tmp_path / "ds"), "--n", n, "--out", str(tmp_path / "s.png")]
    assert main(argv) == 2
    assert "--n must be from 1 to 400 scenes" in capsys.readouterr().err
    assert not (tmp_path / "s.png").exists()


def test_generate_refuses_a_file_as_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "ds"
    target.write_text("not a folder")
    assert main(["dataset", "generate", "--out", str(target), "--n", "1", "--seed", "0"]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert target.read_text() == "not a folder"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        # a scene file that is no object was an AttributeError traceback
        (lambda ds: (ds / "scenes/train/000000.json").write_text("[1]"),
         r"000000\.json: not a scene file"),
        (lambda ds: (ds / "scenes/train/000000.json").write_text("{cut"),
         r"000000\.json: not a scene file"),
        # a short label line did not name its file
        (lambda ds: (ds / "labels/train/000000.txt").write_text("0 0.1 0.2 0.3\n"),
         r"000000\.txt, line 1: an OBB line has 9 fields"),
        # a NaN corner drew garbage with a warning
        (lambda ds: (ds / "labels/train/000000.txt").write_text("0" + " nan" * 8 + "\n"),
         r"000000\.txt, line 1: a corner is not a finite number"),
        (lambda ds: (ds / "labels/train/000000.txt").write_bytes(b"\xff\xfe\x00"),
         r"000000\.txt: not a label file"),
        # a class the detector has not: drawn white, unsaid
        (lambda ds: (ds / "labels/train/000000.txt").write_text("7" + " 0.1 0.2" * 4 + "\n"),
         r"000000\.txt, line 1: class 7 is no class of the detector's \(0 back, 1 face\)$"),
        # a label file gone was "[Errno 2] No such file or directory: '...'"
        (lambda ds: (ds / "labels/train/000000.txt").unlink(),
         r"^blitzcam dataset preview: error: .*000000\.txt: cannot read it \(No such file or directory\)$"),
        # a JPEG cut short: libjpeg's own warning and a half-grey thumbnail, the sheet written
        (lambda ds: (ds / "images/train/000000.jpg").write_bytes(
            (ds / "images/train/000000.jpg").read_bytes()[:5000]),
         r"000000\.jpg: cannot decode image: the file is truncated$"),
    ],
)
def test_preview_names_a_damaged_label_or_scene_file(
    damage, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    ds = tmp_path / "ds"
    argv = ["dataset", "generate", "--out", str(ds), "--n", "2", "--seed", "3", "--res",
            "640x360", "--workers", "1", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    damage(ds)
    capsys.readouterr()
    assert main(["dataset", "preview", str(ds), "--out", str(tmp_path / "s.png")]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err, re.MULTILINE) and err.count("\n") == 1, err
    assert not (tmp_path / "s.png").exists()



def test_preview_writes_the_format_its_file_names_or_standard_output(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # (`--out sheet.jpg` held PNG bytes; `--out -` wrote a file named "-")
    ds = tmp_path / "ds"
    argv = ["dataset", "generate", "--out", str(ds), "--n", "2", "--seed", "3", "--res",
            "640x360", "--workers", "1", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    assert main(["dataset", "preview", str(ds), "--out", str(tmp_path / "s.jpg")]) == 0
    assert (tmp_path / "s.jpg").read_bytes()[:2] == b"\xff\xd8"
    capsysbinary.readouterr()
    assert main(["dataset", "preview", str(ds), "--out", "-"]) == 0
    assert capsysbinary.readouterr().out[:8] == b"\x89PNG\r\n\x1a\n"
    assert not Path("-").exists()
    assert main(["dataset", "preview", str(ds), "--out", str(tmp_path / "s.gif")]) == 2
    assert b"--out " in capsysbinary.readouterr().err and not (tmp_path / "s.gif").exists()


@pytest.mark.parametrize(
    ("redirect", "reason"),
    [(">/dev/full", "No space left on device"), (">&-", "standard output is closed")],
)
def test_a_preview_to_standard_output_that_cannot_be_written_is_one_line(
    tmp_path: Path, redirect: str, reason: str
) -> None:
    # the picture's bytes went around the guard on standard output: a traceback and exit 1
    import subprocess
    import sys

    ds = tmp_path / "ds"
    assert main(["dataset", "generate", "--out", str(ds), "--n", "1", "--seed", "3", "--res",
                 "640x360", "--workers", "1", "--no-progress"]) == 0  # fmt: skip
    command = [str(Path(sys.executable).parent / "blitzcam"), "dataset", "preview", str(ds),
               "--out", "-"]  # fmt: skip
    result = subprocess.run(["sh", "-c", f'"$@" {redirect}', "sh", *command],
                            stderr=subprocess.PIPE, text=True, check=False)  # fmt: skip
    assert result.stderr == f"blitzcam dataset preview: error: cannot write the output: {reason}\n"
    assert result.returncode == 74
