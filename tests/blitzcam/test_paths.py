"""Where blitzcam keeps its files: the overrides, a leading ~, and a data folder it cannot use."""

from __future__ import annotations

from pathlib import Path

import pytest

from blitzcam.errors import UserError
from blitzcam.paths import cache_dir, data_dir, not_there, written_path


def test_a_data_folder_that_is_a_file_is_one_line(tmp_path: Path, monkeypatch) -> None:
    blocked = tmp_path / "afile"
    blocked.write_text("not a folder")
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(blocked / "data"))
    with pytest.raises(UserError, match=r"BLITZCAM_DATA_DIR=.*afile/data: cannot use .*"
                       r"\(.*afile is a file, not a folder\)$"):  # fmt: skip
        data_dir()
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(blocked))  # ("File exists", it said)
    with pytest.raises(UserError, match=r"afile: cannot use .*afile \(it is a file\)$"):
        data_dir()


def test_a_leading_tilde_is_the_home_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("BLITZCAM_DATA_DIR", "~/blitz-data")
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", "~/blitz-cache")
    assert data_dir() == tmp_path / "blitz-data" and data_dir().is_dir()
    assert cache_dir() == tmp_path / "blitz-cache"


def test_a_tilde_of_no_such_user_is_left_as_it_is(monkeypatch) -> None:
    from blitzcam.paths import expand_home

    assert expand_home(Path("~nosuchuser-blitzcam/caps")) == Path("~nosuchuser-blitzcam/caps")
    monkeypatch.setenv("BLITZCAM_CACHE_DIR", "~nosuchuser-blitzcam/cache")
    assert cache_dir() == Path("~nosuchuser-blitzcam/cache")


def test_a_data_folder_under_a_folder_not_there_is_refused_and_nothing_made(
    tmp_path: Path, monkeypatch
) -> None:
    # a typo in the variable was taken for a new, empty store (`match list`: "no matches
    # yet"), its folders made on the computer's disk
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path / "typo" / "data"))
    with pytest.raises(UserError, match=r"typo is not there \(a typo, or a drive not plugged in\?\)"):
        data_dir()
    assert not (tmp_path / "typo").exists()
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path / "data"))  # its own folder: made
    assert data_dir().is_dir()


def test_a_written_path_is_read_as_written_then_as_windows_writes_it(tmp_path: Path) -> None:
    (tmp_path / "a\\b.jpg").write_bytes(b"")  # (a Linux name with a backslash in it)
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "d.jpg").write_bytes(b"")
    assert written_path(tmp_path, "a\\b.jpg") == tmp_path / "a\\b.jpg"
    assert written_path(tmp_path, "c\\d.jpg") == tmp_path / "c" / "d.jpg"
    assert written_path(tmp_path, "c/d.jpg") == tmp_path / "c" / "d.jpg"
    assert written_path(tmp_path, str(tmp_path / "c" / "d.jpg")) == tmp_path / "c" / "d.jpg"
    assert written_path(tmp_path, "~/x.jpg") == Path.home() / "x.jpg"
    assert written_path(tmp_path, "~\\x.jpg") == Path.home() / "x.jpg"
    assert written_path(tmp_path, "~nosuchuser/x.jpg") == tmp_path / "~nosuchuser" / "x.jpg"
    assert written_path(tmp_path, "~root/x.jpg") == tmp_path / "~root" / "x.jpg"  # (a name)
    assert written_path(tmp_path, "~1.jpg") == tmp_path / "~1.jpg"  # (Windows' short names)


def test_a_name_not_there_says_whether_it_is_a_link_to_nothing(tmp_path: Path) -> None:
    # (a --decks or --data folder linked to a drive not plugged in was "no such folder", while
    # `ls` listed it)
    assert not_there(tmp_path / "gone", "folder") == "no such folder"
    dangling = tmp_path / "decks"
    dangling.symlink_to(tmp_path / "usb" / "decks")
    assert not_there(dangling, "folder") == f"a link to {tmp_path / 'usb' / 'decks'}, which is not there"
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    assert not_there(loop) == "a link that leads back to itself"
    # named as the links end (a review: "a link to hop", a link `ls` listed), the end made
    # whole, and a link to nothing in the folders above said as such
    hop = tmp_path / "hop"
    hop.symlink_to("usb/decks")  # (relative to its folder)
    chained = tmp_path / "chained"
    chained.symlink_to(hop)
    assert not_there(chained, "folder") == f"a link to {tmp_path / 'usb' / 'decks'}, which is not there"
    mount = tmp_path / "mnt"
    mount.symlink_to(tmp_path / "media" / "usb")
    assert not_there(mount / "decks" / "green-pump.png") == (
        f"{mount} is a link to {tmp_path / 'media' / 'usb'}, which is not there"
    )


def test_commands_say_a_link_to_nothing_as_such(tmp_path: Path) -> None:
    from blitzcam.game.match_file import read_match
    from blitzcam.game.rules import MatchError
    from blitzcam.vision.references import profile_from_dir

    decks = tmp_path / "decks"
    decks.symlink_to(tmp_path / "usb")
    with pytest.raises(UserError, match=r"^--decks .*decks: a link to .*usb, which is not there$"):
        profile_from_dir(decks)
    match = tmp_path / "match.json"
    match.symlink_to(tmp_path / "old.json")
    with pytest.raises(MatchError, match=r"match\.json: a link to .*old\.json, which is not there$"):
        read_match(match)


def test_a_data_directory_linked_to_a_drive_not_plugged_in_is_said_as_such(tmp_path, monkeypatch) -> None:
    # ("cannot use dd (File exists)"; review)
    linked = tmp_path / "dd"
    linked.symlink_to(tmp_path / "usb" / "blitzcam")
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(linked))
    with pytest.raises(UserError, match=r"cannot use .*dd \(a link to .*usb/blitzcam, which is not there\)$"):
        data_dir()


def test_runs_go_into_the_checkout_and_an_installed_blitzcam_s_into_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (an installed blitzcam's folder above blitzcam/ is site-packages: `evaluate` wrote 215 MB
    # of scenes there, which uninstalling left behind, and training would have shipped its
    # model over the installed one; review)
    from blitzcam import paths
    from blitzcam.models.run_kind import keeps_to_itself

    assert paths.in_a_checkout()  # (the tests run from one)
    assert paths.runs_root() == paths.REPO_ROOT / "runs"
    assert "-e '.[train]'" in paths.train_extras_hint()
    site_packages = tmp_path / "site-packages"
    (site_packages / "blitzcam").mkdir(parents=True)
    monkeypatch.setattr(paths, "REPO_ROOT", site_packages)
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path / "data"))
    assert not paths.in_a_checkout()
    (site_packages / "pyproject.toml").touch()  # another package's, and its `models` package
    (site_packages / "models").mkdir()
    assert not paths.in_a_checkout()
    assert paths.runs_root() == tmp_path / "data" / "runs"
    assert paths.train_extras_hint() == "`pip install 'blitzcam[train]'`"
    monkeypatch.setattr(paths.sys, "platform", "win32")  # (cmd passes '…' on as typed)
    assert paths.train_extras_hint() == '`pip install "blitzcam[train]"`'
    monkeypatch.undo()
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(paths, "REPO_ROOT", site_packages)
    # its trained model is exported into the run, never over the installed one
    run = tmp_path / "data" / "runs" / "detector"
    run.mkdir(parents=True)
    assert keeps_to_itself(run, no_ship=False, resume=False)
    assert f"the new one is exported into {run / 'export'}" in capsys.readouterr().out
    # ... and the next step is to count with it there, not to copy it into site-packages
    # (packaging review)
    from blitzcam.commands.train import next_steps

    said = next_steps(run / "export" / "blitzcam-obb.onnx", shipped=False)
    assert "copy" not in said and f"`blitzcam count --model {run / 'export'}" in said
    # a trial's detector counts nothing well: never to be shipped (it was told to; review)
    said = next_steps(run / "export" / "blitzcam-obb.onnx", shipped=False, trial=True)
    assert "ship it" not in said and "not to be shipped" in said
    assert keeps_to_itself(run, no_ship=True, resume=False)
    assert capsys.readouterr().out == ""  # (--no-ship: nothing to say)
    assert keeps_to_itself(run, no_ship=False, resume=False, kind="identity")
    assert "(count with it: BLITZCAM_IDENTITY_MODEL" in capsys.readouterr().out


def test_a_data_folder_that_cannot_be_made_stops_no_count_and_the_default_says_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (a service's or a container's HOME not there or not its own: `count`, which writes
    # nothing there, refused to start; review)
    from blitzcam import paths
    from blitzcam.cli import main

    blocked = tmp_path / "afile"
    blocked.write_text("not a folder")
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(blocked / "data"))
    demo = paths.REPO_ROOT / "datasets" / "demo" / "table-2.jpg"
    assert main(["count", "--json", str(demo)]) == 0
    assert '"red-buggy": 24' in capsys.readouterr().out
    assert not (blocked / "data").exists()
    monkeypatch.delenv("BLITZCAM_DATA_DIR")
    monkeypatch.setattr(paths, "user_data_dir", lambda *a, **k: str(blocked / "blitzcam"))
    with pytest.raises(UserError, match=r"^the data directory: cannot use .*afile/blitzcam \(.*"
                       r"afile is a file, not a folder\); set BLITZCAM_DATA_DIR to a folder "
                       r"blitzcam may write$"):  # fmt: skip
        data_dir()


def test_the_data_folder_blitzcam_makes_is_its_owner_s_alone(tmp_path: Path, monkeypatch) -> None:
    # (player names, photos of the table, a stream's password: readable by every account where
    # the home folder is open; security review). One already there is left as it is.
    import os
    import stat

    made = tmp_path / "blitzcam"
    monkeypatch.setenv("BLITZCAM_DATA_DIR", str(made))
    old = os.umask(0o022)
    try:
        assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700
        shared = tmp_path / "shared"
        shared.mkdir(mode=0o755)
        monkeypatch.setenv("BLITZCAM_DATA_DIR", str(shared))
        assert stat.S_IMODE(data_dir().stat().st_mode) == 0o755
    finally:
        os.umask(old)


def locked_away(monkeypatch, locked: Path) -> None:
    """Every path under `locked` raises as one under a folder this user may not enter does
    (tests run as root here, where chmod 000 locks nothing out)."""
    real_stat = Path.stat

    def stat(self: Path, *args, **kwargs):
        if Path(self).absolute().is_relative_to(locked.absolute()) and self != locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", stat)


def test_a_path_past_a_folder_that_cannot_be_entered_is_said_so(tmp_path: Path, monkeypatch) -> None:
    from blitzcam.paths import out_of_reach

    locked_away(monkeypatch, tmp_path / "locked")
    assert out_of_reach(tmp_path / "locked" / "a.jpg").startswith("permission denied (a folder")
    assert out_of_reach(tmp_path / "nothing.jpg") is None  # (not there: said otherwise)
    assert out_of_reach(tmp_path) is None
