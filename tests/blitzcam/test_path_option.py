"""blitzcam/commands/path_option.py: an empty path is a bad argument, for every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from blitzcam.cli import main


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What a command refused as a bad argument (exit 2) said."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["decks", "export", ""],  # wrote the eight backs into the current folder
        ["count", ""],
        ["count", "--decks", "", "x.jpg"],
        ["dataset", "generate", "--out", " ", "--n", "1", "--seed", "1"],
        ["match", "summarize", ""],
        ["evaluate", "--data", ""],
    ],
)
def test_an_empty_path_is_a_bad_argument(
    argv: list[str], tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert "an empty path names no file or folder" in _refused(argv, capsys)
    assert not list(tmp_path.iterdir())  # nothing written where it ran


@pytest.mark.parametrize(
    ("argv", "folder_at"),
    [
        (["decks", "export", "-"], 2),  # made a folder named - and wrote the eight backs there
        (["dataset", "generate", "--out", "-", "--n", "1", "--seed", "1"], 3),
    ],
)
def test_dash_is_no_folder_to_write_files_into(
    argv: list[str], folder_at: int, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    err = _refused(argv, capsys)
    assert "- names no folder: standard output cannot take files (a folder named - is ./-)" in err
    assert not list(tmp_path.iterdir())
    assert main([*argv[:folder_at], "./-", *argv[folder_at + 1 :]]) == 0
    assert (tmp_path / "-").is_dir()


def test_a_leading_tilde_is_the_home_folder_for_every_path_option(
    tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # (`--data=~/scenes` reaches no shell that would expand it: evaluate and train said "no
    # such folder" where generate --out and train --run took it)
    from blitzcam.commands.path_option import path_argument

    monkeypatch.setenv("HOME", str(tmp_path))
    assert path_argument("~/scenes") == tmp_path / "scenes"
    assert path_argument("a~b") == Path("a~b")  # a ~ inside a name is the name's
    assert main(["evaluate", "--data=~/none"]) == 2
    assert f"--data {tmp_path / 'none'}: no such folder" in capsys.readouterr().err


def test_wildcards_are_expanded_on_windows_as_a_posix_shell_does(tmp_path: Path, monkeypatch) -> None:
    # cmd and PowerShell pass `photos\*.jpg` on as typed: the README's `count PHOTOS/*.jpg`
    # said "no such file" there (portability review)
    from blitzcam.commands.path_option import as_the_shell_expands

    for name in ("b.jpg", "a.jpg", "c.png", "[x].jpg"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    typed = ["*.jpg", "none*.jpg", "c.png", "[x].jpg", "-"]
    assert as_the_shell_expands(typed, platform="win32") == [
        "[x].jpg", "a.jpg", "b.jpg", "none*.jpg", "c.png", "[x].jpg", "-",
    ]  # (a name that is a file is kept, wildcards and all; one matching none, as typed)
    assert as_the_shell_expands(typed, platform="linux") == typed  # (the shell's, there)


def test_count_s_hint_for_a_folder_is_written_as_windows_shells_read_it(tmp_path: Path, monkeypatch, capsys) -> None:
    import sys

    from blitzcam.commands.count import _live_hint

    (tmp_path / "phone pics").mkdir()
    (tmp_path / "phone pics" / "IMG_1.JPG").write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "platform", "win32")
    assert _live_hint("phone pics", Path("phone pics")) == (
        ' (count its pictures: blitzcam count "phone pics\\*.JPG")'
    )  # (quoted whole: PowerShell splits "phone pics"\*.JPG in two; diff review)
    (tmp_path / "day [1]").mkdir()
    (tmp_path / "day [1]" / "a.jpg").write_bytes(b"")
    hint = _live_hint("day [1]", Path("day [1]"))
    assert hint == ' (count its pictures: blitzcam count "day [[]1]\\*.jpg")'
    from blitzcam.commands.path_option import as_the_shell_expands

    assert as_the_shell_expands(["day [[]1]\\*.jpg".replace("\\", "/")], platform="win32") == [
        "day [1]/a.jpg"
    ]  # (what the hint says finds the pictures)
    (tmp_path / "$5 games").mkdir()  # (PowerShell expands $5 in "…": written ?, which matches)
    (tmp_path / "$5 games" / "a.jpg").write_bytes(b"")
    hint = _live_hint("$5 games", Path("$5 games"))
    assert hint == ' (count its pictures: blitzcam count "?5 games\\*.jpg")'
    assert as_the_shell_expands(["?5 games/*.jpg"], platform="win32") == ["$5 games/a.jpg"]
