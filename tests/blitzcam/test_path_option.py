"""blitzcam/commands/path_option.py: an empty path is a bad argument, for every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from blitzcam.cli import main


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
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "an empty path names no file or folder" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written where it ran
