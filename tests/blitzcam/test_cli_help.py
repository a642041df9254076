"""Every command's --help says what it does and what each argument is."""

from __future__ import annotations

import argparse

import pytest

from blitzcam.cli import build_parser


def _commands(parser: argparse.ArgumentParser, path: str = "blitzcam"):
    """Each command and action under `parser`, with the words that name it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield f"{path} {name}", command
                yield from _commands(command, f"{path} {name}")


def test_every_command_says_what_it_does_and_what_each_argument_is() -> None:
    # (`decks list --help` said nothing of what it does; `decks enroll --help` listed DECK
    # bare; docs review)
    commands = list(_commands(build_parser()))
    assert len(commands) > 20
    for words, command in commands:
        assert command.description, words
        assert command.description[0].isupper() and command.description.endswith("."), words
        for argument in command._actions:
            if not argument.option_strings and not isinstance(argument, argparse._SubParsersAction):
                assert argument.help, f"{words}: {argument.metavar or argument.dest}"


def test_the_training_commands_say_what_they_need_installed() -> None:
    # (learned only by running one: an installed blitzcam has no torch; packaging review), as
    # blitzcam runs from: a checkout's pip, not a package of that name (diff review)
    from blitzcam.paths import train_extras_hint

    commands = dict(_commands(build_parser()))
    for words in ("blitzcam train", "blitzcam train-identity"):
        assert f"Needs the train extra: {train_extras_hint()}" in commands[words].description
        assert "download.pytorch.org/whl/cpu" in commands[words].description, words


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["decks", "enroll", "green-pump", "--imgae", "x.jpg"],
         "one of the arguments --image --camera is required (--imgae is no option here: did you "
         "mean --image?)"),
        (["--verison"], "required: COMMAND (--verison is no option here: did you mean --version?)"),
        (["count", "--version"], "required: IMAGE (--version is no option here)"),
    ],
)  # fmt: skip
def test_a_mistyped_option_is_named_where_something_required_is_missing(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (argparse said only what was missing, nothing of the option it did not know; CLI review)
    from blitzcam.cli import main

    with pytest.raises(SystemExit) as refused:
        main(argv)
    err = capsys.readouterr().err
    assert refused.value.code == 2 and said in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["decks", "enroll", "--imag", "x.jpg"],  # argparse takes --imag for --image
        ["match", "join", "--Ann Lee"],  # a value with a space: a player's name (diff review)
    ],
)
def test_no_mistype_is_said_of_what_argparse_took(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from blitzcam.cli import main

    with pytest.raises(SystemExit):
        main(argv)
    err = capsys.readouterr().err
    assert "required" in err and "no option here" not in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["match", "new", "-p", "A=green-pump", "-p", "B=red-buggy", "--db", "a", "--db", "b"], "--db"),
        (["match", "settings", "--target", "100", "--target=150"], "--target"),
        (["match", "show", "-m", "1", "--match", "2"], "--match"),
        (["count", "--in-play", "green-pump", "--in-play", "red-buggy", "x.jpg"], "--in-play"),
    ],
)  # fmt: skip
def test_an_option_of_one_value_given_twice_is_refused(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (argparse kept the last, unsaid: `match new --db a --db b` made b; CLI review)
    from blitzcam.cli import main

    with pytest.raises(SystemExit) as refused:
        main(argv)
    err = capsys.readouterr().err
    assert refused.value.code == 2 and f": error: {said} is given twice: give it once" in err


def test_options_that_gather_or_switch_may_come_twice(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from blitzcam.cli import main

    db = str(tmp_path / "m.sqlite3")
    assert main(["match", "new", "-p", "A=green-pump", "-p", "B=red-buggy", "--db", db]) == 0  # (append)
    assert main(["match", "--json", "show", "--json", "--db", db]) == 0  # (a switch)
    assert main(["match", "add", "--db", db, "--", "A=1/0", "B=2/0"]) == 0
    capsys.readouterr()
