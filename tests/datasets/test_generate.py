"""Dataset writing: same seed same bytes, holdout, atomic folder, ultralytics can read it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from blitzcam.datasets.generate import GenerateRequest, families_for, generate_dataset
from blitzcam.datasets.labels import SPLITS, parse_obb_line
from blitzcam.errors import UserError


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _request(out: Path, **kw: object) -> GenerateRequest:
    base = {"n": 6, "seed": 5, "res": (640, 360), "progress": False, "workers": 1}
    return GenerateRequest(out=out, **{**base, **kw})  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_dataset(_request(tmp_path_factory.mktemp("gen") / "ds", n=10, res=None))


def test_layout_of_the_folder(dataset: Path) -> None:
    files = _files(dataset)
    assert "data.yaml" in files and "generator.json" in files
    for kind, ext in (("images", "jpg"), ("labels", "txt"), ("scenes", "json")):
        stems = sorted(
            p.stem for split in SPLITS for p in (dataset / kind / split).glob(f"*.{ext}")
        )
        assert stems == [f"{i:06d}" for i in range(10)], kind
    assert len(list((dataset / "images" / "train").glob("*.jpg"))) == 8
    assert not list(dataset.parent.glob("ds.tmp-*"))


def test_labels_are_normalised_and_match_ground_truth(dataset: Path) -> None:
    for split in SPLITS:
        for label in (dataset / "labels" / split).glob("*.txt"):
            truth = json.loads((dataset / "scenes" / split / f"{label.stem}.json").read_text())
            lines = label.read_text().splitlines()
            assert len(lines) == len(truth["objects"])
            backs = 0
            for line, obj in zip(lines, truth["objects"], strict=True):
                cls, corners = parse_obb_line(line)
                assert corners.min() >= 0.0 and corners.max() <= 1.0
                assert cls == {"back": 0, "face": 1}[obj["class"]]
                backs += cls == 0
            assert sum(truth["counts"].values()) == backs
            assert truth["face_up"] == len(lines) - backs
            assert truth["resolution"][0] in range(1280, 1921)
            assert sum(d["count"] for d in truth["decks"]) == backs


def test_same_seed_same_bytes_whatever_the_workers(tmp_path: Path) -> None:
    a = generate_dataset(_request(tmp_path / "a", workers=1))
    b = generate_dataset(_request(tmp_path / "b", workers=2))
    fa, fb = _files(a), _files(b)
    assert fa.keys() == fb.keys()
    for name in fa:
        assert fa[name] == fb[name], name
    c = generate_dataset(_request(tmp_path / "c", seed=6))
    assert _files(c)["images/train/000000.jpg"] != fa["images/train/000000.jpg"]


def test_late_rounds_are_big_games_spread_tight(tmp_path: Path) -> None:
    # 6-8 players each counting most of a deck: tables of 100-300 backs, which the mix of
    # every other scene draws only now and then
    root = generate_dataset(_request(tmp_path / "late", n=4, res=None, late_rounds=1.0))
    assert json.loads((root / "generator.json").read_text())["late_rounds"] == 1.0
    # other datasets keep their bytes, the manifest's too (training names crops by its hash)
    plain = generate_dataset(_request(tmp_path / "plain", n=1))
    assert "late_rounds" not in json.loads((plain / "generator.json").read_text())
    for truth_file in sorted(root.glob("scenes/*/*.json")):
        truth = json.loads(truth_file.read_text())
        assert truth["scene"]["late_round"] is True
        assert 6 <= len(truth["decks"]) <= 8
        assert sum(truth["counts"].values()) >= 60, truth_file.name


def test_a_share_of_late_rounds_mixes_them_in(tmp_path: Path) -> None:
    root = generate_dataset(_request(tmp_path / "mixed", n=8, late_rounds=0.5))
    late = [
        json.loads(f.read_text())["scene"].get("late_round", False)
        for f in sorted(root.glob("scenes/*/*.json"))
    ]
    assert any(late) and not all(late)


def test_wide_art_adds_the_wider_families_to_training_scenes_only(
    tmp_path: Path, standin_art: ModuleType
) -> None:
    wider, hold = standin_art.WIDE_FAMILIES, standin_art.HOLDOUT_FAMILY
    train = families_for("train", holdout=True, art=standin_art, wide=True)
    assert set(wider) <= set(train) and hold not in train
    # the first families keep their places: a scene's draws of them are as before
    assert train[: len(train) - len(wider)] == families_for("train", holdout=True, art=standin_art)
    assert families_for("test", holdout=True, art=standin_art, wide=True) == (hold,)
    assert not set(wider) & set(families_for("val", holdout=True, art=standin_art))
    root = generate_dataset(
        _request(tmp_path / "w", n=30, holdout=True, wide_art=True,
                 art_module=str(standin_art.__file__), photometric=False)
    )  # fmt: skip
    assert json.loads((root / "generator.json").read_text())["wide_art"] is True
    seen: dict[str, set[str]] = {split: set() for split in SPLITS}
    for split in SPLITS:
        for path in (root / "scenes" / split).glob("*.json"):
            seen[split] |= set(json.loads(path.read_text())["random_families"])
    assert set(wider) & seen["train"], seen
    assert hold not in seen["train"] | seen["val"] and not set(wider) & seen["test"]
    # a dataset that did not ask keeps its bytes, its manifest's too
    plain = generate_dataset(_request(tmp_path / "plain", n=1))
    assert "wide_art" not in json.loads((plain / "generator.json").read_text())


def test_wide_art_from_an_art_module_without_wider_families_is_refused() -> None:
    class NoWider:
        RANDOM_FAMILIES = ("a", "b")
        HOLDOUT_FAMILY = "b"

    assert families_for("train", holdout=True, art=NoWider) == ("a",)
    with pytest.raises(ValueError, match=r"NoWider.*has no wider art families"):
        families_for("train", holdout=True, art=NoWider, wide=True)


def test_a_late_round_share_out_of_range_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="late_rounds must be a share from 0 to 1"):
        _request(tmp_path / "x", late_rounds=1.5)


def test_holdout_family_only_in_test(tmp_path: Path, standin_art: ModuleType) -> None:
    hold = standin_art.HOLDOUT_FAMILY
    assert hold not in families_for("train", holdout=True, art=standin_art)
    assert hold not in families_for("val", holdout=True, art=standin_art)
    assert families_for("test", holdout=True, art=standin_art) == (hold,)
    assert hold in families_for("train", holdout=False, art=standin_art)
    root = generate_dataset(
        _request(
            tmp_path / "h",
            n=30,
            holdout=True,
            art_module=str(standin_art.__file__),
            photometric=False,
        )
    )
    seen: dict[str, set[str]] = {split: set() for split in SPLITS}
    for split in SPLITS:
        for path in (root / "scenes" / split).glob("*.json"):
            seen[split] |= set(json.loads(path.read_text())["random_families"])
    assert hold not in seen["train"] | seen["val"]
    assert seen["train"], "some train scenes should have random art"


def test_a_folder_a_killed_run_left_is_deleted_by_the_next_run(tmp_path: Path) -> None:
    # SIGKILL or a power cut leaves DIR.tmp-*: gigabytes of scenes nobody would ever delete.
    # A folder is the next run's to delete when the lock its writer held is free
    import fcntl
    import os

    def unfinished(name: str, *, held: bool) -> Path:
        folder = tmp_path / name
        (folder / "images").mkdir(parents=True)
        lock = folder.with_name(folder.name + ".lock")
        lock.touch()
        if held:  # a run writing now, in this process or on another machine of a shared disk
            fd = os.open(lock, os.O_RDWR)
            fcntl.flock(fd, fcntl.LOCK_EX)
            kept.append(fd)
        return folder

    kept: list[int] = []
    abandoned = unfinished("ds.tmp-abc123", held=False)
    writing = unfinished("ds.tmp-def456", held=True)
    other = unfinished("ds2.tmp-ghi789", held=False)  # another dataset's: its own run's to sweep
    before = tmp_path / "ds.tmp-jkl012"  # from before the locks: no lock file, left alone
    before.mkdir()
    try:
        generate_dataset(_request(tmp_path / "ds", n=1))
    finally:
        for fd in kept:
            os.close(fd)
    assert not abandoned.exists() and not abandoned.with_name("ds.tmp-abc123.lock").exists()
    assert writing.is_dir() and other.is_dir() and before.is_dir()
    assert (tmp_path / "ds" / "generator.json").is_file()
    # and the run's own lock is gone with its folder
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ds.")) == [
        "ds.tmp-def456", "ds.tmp-def456.lock", "ds.tmp-jkl012"]


def test_a_dataset_a_killed_overwrite_was_replacing_is_put_back_or_deleted(
    tmp_path: Path,
) -> None:
    # `--overwrite` moves the old dataset aside, renames the new one in, deletes the old: a
    # kill between the renames left neither at DIR (the old one under a hidden name forever),
    # a kill while deleting left the old one's gigabytes beside the new
    out = tmp_path / "ds"
    generate_dataset(_request(out, n=1))

    def killed_run(name: str) -> Path:
        unfinished = tmp_path / name
        (unfinished / "images").mkdir(parents=True)  # the finished new dataset
        unfinished.with_name(f"{name}.lock").touch()  # its lock, free: the run was killed
        return unfinished.with_name(f"{name}.old")

    replaced = killed_run("ds.tmp-abc123")
    out.rename(replaced)  # killed between the two renames
    with pytest.raises(UserError, match="not empty"):  # the old dataset is back, and kept
        generate_dataset(_request(out, n=1))
    assert (out / "generator.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]
    replaced = killed_run("ds.tmp-def456")
    (replaced / "scenes").mkdir(parents=True)  # killed while deleting the old one
    generate_dataset(_request(out, n=1, overwrite=True))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_refuses_non_empty_folder_and_overwrites_on_request(tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    (out / "precious.txt").write_text("keep me")
    with pytest.raises(UserError, match="not empty"):
        generate_dataset(_request(out, n=1))
    assert (out / "precious.txt").read_text() == "keep me"
    # --overwrite replaces only a dataset: one slip in --out deleted any folder's files
    with pytest.raises(UserError, match="not a dataset this command wrote"):
        generate_dataset(_request(out, n=1, overwrite=True))
    assert (out / "precious.txt").read_text() == "keep me"
    (out / "precious.txt").unlink()
    generate_dataset(_request(out, n=1))
    (out / "notes.txt").write_text("put there since")  # (deleted with the dataset: review)
    with pytest.raises(UserError, match=r"holds notes\.txt, which this command did not write"):
        generate_dataset(_request(out, n=1, overwrite=True))
    (out / "notes.txt").unlink()
    generate_dataset(_request(out, n=1, overwrite=True))
    assert (out / "data.yaml").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]
    # ... nor a photo of a real table added to its images, with its label (deleted: review)
    (out / "images" / "train" / "my-table.jpg").write_bytes(b"mine")
    (out / "labels" / "train" / "my-table.txt").write_text("0 .1 .1 .2 .1 .2 .2 .1 .2")
    with pytest.raises(UserError, match=r"holds images/train/my-table\.jpg and 1 more, which"):
        generate_dataset(_request(out, n=1, overwrite=True))
    assert (out / "images" / "train" / "my-table.jpg").read_bytes() == b"mine"
    (out / "images" / "train" / "my-table.jpg").unlink()
    (out / "labels" / "train" / "my-table.txt").unlink()
    (out / "labels" / "train.cache").write_bytes(b"ultralytics'")  # (training writes them)
    (out / "images" / "train" / ".DS_Store").write_bytes(b"Finder's")  # (a look: diff review)
    generate_dataset(_request(out, n=1, overwrite=True))


def test_a_folder_made_at_out_while_the_scenes_are_made_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (checked once before the scenes: notes put there meanwhile, or another run's dataset,
    # were replaced without --overwrite; review)
    from blitzcam.datasets import generate

    out = tmp_path / "ds"
    swap_in = generate._swap_in

    def someone_meanwhile(tmp: Path, to: Path) -> None:
        raise AssertionError("swapped in without a second look")

    real_check = generate._check_out_dir
    calls = []

    def check(folder: Path, *, overwrite: bool) -> None:
        calls.append(folder)
        if len(calls) == 2:  # the scenes made: someone's notes are there now
            folder.mkdir(exist_ok=True)
            (folder / "notes.txt").write_text("mine")
        real_check(folder, overwrite=overwrite)

    monkeypatch.setattr(generate, "_check_out_dir", check)
    monkeypatch.setattr(generate, "_swap_in", someone_meanwhile)
    with pytest.raises(UserError, match=r"folder is not empty .*they are kept beside it"):
        generate_dataset(_request(out, n=2, keep_unfinished=True))
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    monkeypatch.setattr(generate, "_check_out_dir", real_check)
    monkeypatch.setattr(generate, "_swap_in", swap_in)
    (out / "notes.txt").unlink()
    generate_dataset(_request(out, n=2, keep_unfinished=True))  # (the kept scenes taken up)
    assert len(list((out / "scenes").glob("*/*.json"))) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds"]


def test_an_out_folder_that_is_a_loop_of_links_is_one_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(UserError, match="loop: a loop of links"):
        generate_dataset(_request(loop, n=1))


def test_an_out_folder_linked_to_a_drive_not_plugged_in_is_refused_and_nothing_made(
    tmp_path: Path,
) -> None:
    # (its scenes went onto the system's disk under the mount point, hidden once it was back)
    link = tmp_path / "ds"
    link.symlink_to(tmp_path / "media" / "usb" / "ds")
    with pytest.raises(UserError, match=r"ds: a link to .*usb/ds, in no folder that is there"):
        generate_dataset(_request(link, n=1))
    assert not (tmp_path / "media").exists()
    # ... and a folder on the way that is one (`runs` linked to the drive)
    (tmp_path / "runs").symlink_to(tmp_path / "media" / "usb" / "runs")
    with pytest.raises(UserError, match=r"runs is a link to .*usb/runs, in no folder that is"):
        generate_dataset(_request(tmp_path / "runs" / "ds", n=1))
    assert not (tmp_path / "media").exists()


def test_empty_folder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "ds").mkdir()
    assert (generate_dataset(_request(tmp_path / "ds", n=1)) / "data.yaml").is_file()


def test_failed_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash mid-run (here: the art module breaks on the 3rd scene) writes no dataset."""
    from blitzcam.datasets import generate

    real = generate.render_scene_files

    def flaky(request: GenerateRequest, art: object, index: int) -> object:
        if index == 2:
            raise RuntimeError("art exploded")
        return real(request, art, index)  # type: ignore[arg-type]

    monkeypatch.setattr(generate, "render_scene_files", flaky)
    with pytest.raises(RuntimeError, match="exploded"):
        generate_dataset(_request(tmp_path / "ds", n=4))
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_run_that_keeps_its_scenes_goes_on_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # training's stage generates thousands of scenes (half an hour on 2 cores): a Ctrl+C there
    # started them again from nothing at the next --resume
    from blitzcam.datasets import generate

    whole = _files(generate_dataset(_request(tmp_path / "whole", n=8)))
    real, rendered = generate.render_scene_files, []

    def interrupted_at(stop: int | None):
        def render(request: GenerateRequest, art: object, index: int) -> object:
            if index == stop:
                raise KeyboardInterrupt
            rendered.append(index)
            return real(request, art, index)  # type: ignore[arg-type]

        return render

    out = tmp_path / "ds"
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(5))
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(_request(out, n=8, keep_unfinished=True))
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if "tmp" in p.name] == [
        "ds.tmp-kept"]  # fmt: skip
    # a scene the interrupt cut short: its files go, it is rendered again
    (tmp_path / "ds.tmp-kept" / "scenes" / "train" / "000004.json").write_text("{")
    rendered.clear()
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(None))
    generate_dataset(_request(out, n=8, keep_unfinished=True))
    assert rendered == [4, 5, 6, 7]  # only what the first run had not written whole
    assert _files(out) == whole  # byte for byte the dataset of one run
    assert not (tmp_path / "ds.tmp-kept").exists()
    # scenes kept for another request are not taken: deleted, the scenes rendered afresh
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(3))
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(_request(tmp_path / "other", n=8, keep_unfinished=True))
    rendered.clear()
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(None))
    generate_dataset(_request(tmp_path / "other", n=8, seed=6, keep_unfinished=True))
    assert rendered == list(range(8)) and not (tmp_path / "other.tmp-kept").exists()
    # an interrupt before the first scene keeps nothing: no empty folders to go on from (the
    # command said "the 0 scenes made so far are kept")
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(0))
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(_request(tmp_path / "none", n=8, keep_unfinished=True))
    assert not any(p.name.startswith("none") for p in tmp_path.iterdir())
    assert generate.kept_unfinished(tmp_path / "none") is None
    # without asking, an interrupt leaves nothing (`blitzcam dataset generate`)
    monkeypatch.setattr(generate, "render_scene_files", interrupted_at(2))
    with pytest.raises(KeyboardInterrupt):
        generate_dataset(_request(tmp_path / "plain", n=8))
    assert not any(p.name.startswith("plain") for p in tmp_path.iterdir())


@pytest.mark.slow
def test_ultralytics_accepts_the_dataset(dataset: Path, tmp_path: Path) -> None:
    from blitzcam.offline import import_ultralytics

    import_ultralytics()
    from ultralytics.data.utils import check_det_dataset, verify_image_label

    moved = tmp_path / "moved"  # a dataset copied elsewhere (a GPU machine) still trains
    shutil.copytree(dataset, moved)
    info = check_det_dataset(str(moved / "data.yaml"), autodownload=False)
    assert Path(info["train"]) == moved / "images" / "train"
    assert info["names"] == {0: "back", 1: "face"}
    assert info["nc"] == 2
    assert Path(info["train"]).is_dir()
    # Every image and label file passes the check ultralytics runs when it caches labels.
    for image in sorted(dataset.glob("images/*/*.jpg")):
        label = dataset / "labels" / image.parent.name / f"{image.stem}.txt"
        result = verify_image_label((str(image), str(label), "", False, 2, 0, 0, False))
        lines = label.read_text().splitlines()
        assert result[-1] in ("", None), result[-1]  # no warning
        assert len(result[1]) == len(lines)  # every object kept (none dropped as duplicate)


def test_a_write_that_fails_is_one_line_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk mid-run was a traceback; now a UserError naming the folder."""
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if self.name == "000002.jpg":
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(UserError, match=r"ds: could not write the dataset \(No space left"):
        generate_dataset(_request(tmp_path / "ds", n=4))
    assert list(tmp_path.iterdir()) == []


def test_an_unlistable_folder_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Path):
        raise PermissionError(13, "Permission denied")

    (tmp_path / "ds").mkdir()
    monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(UserError, match=r"ds: cannot use it as the dataset folder \(Permission"):
        generate_dataset(_request(tmp_path / "ds", n=1))


def test_the_dataset_folder_gets_the_users_usual_permissions(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        out = generate_dataset(_request(tmp_path / "ds", n=1))
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o755  # mkdtemp's 0700 kept other users out


def test_a_name_a_folder_may_have_is_one_a_dataset_may_have(tmp_path: Path) -> None:
    # (the unfinished folder's lock, `<name>.tmp-XXXXXXXX.lock`, went past 255 bytes: "File
    # name too long" for a name mkdir takes)
    out = tmp_path / ("é" * 120)  # 240 bytes
    generate_dataset(_request(out, n=2))
    assert (out / "data.yaml").is_file()
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no lock, no unfinished folder


def test_a_mount_point_as_out_is_refused_before_any_scene(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (the dataset was written on the disk above it and refused at the end: Device or resource
    # busy, after every scene)
    import os

    out = tmp_path / "usb"
    out.mkdir()
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == out)
    with pytest.raises(UserError, match=r"usb: a mount point: .* give a folder inside it"):
        generate_dataset(_request(out, n=2))
    assert [p.name for p in tmp_path.iterdir()] == ["usb"] and not list(out.iterdir())


def test_a_write_protected_folder_is_not_replaced(tmp_path: Path, monkeypatch) -> None:
    # an empty folder one may not write into was replaced by the new dataset, its protection
    # gone (as root here every folder is writable: the system's answer is stood in for)
    import os

    import blitzcam.datasets.generate as generate

    out = tmp_path / "ro"
    out.mkdir()
    real_access = os.access
    monkeypatch.setattr(generate.os, "access",
                        lambda path, mode: False if Path(path) == out else real_access(path, mode))  # fmt: skip
    with pytest.raises(UserError, match=r"ro: the folder is write-protected: choose another$"):
        generate_dataset(GenerateRequest(out=out, n=1, seed=1, workers=1, progress=False))
    assert list(out.iterdir()) == [] and list(tmp_path.iterdir()) == [out]
