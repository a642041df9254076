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
