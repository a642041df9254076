"""The `blitzcam` console command: one entry point, one subcommand per job.

Command modules import only the standard library and light blitzcam modules at module level,
so that `blitzcam --help` and the counting path start fast and never pull in torch.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import errno
import importlib
import io
import os
import re
import signal
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, NoReturn, TextIO

from blitzcam.errors import (
    OUTPUT_FAILED,
    OutputError,
    UserError,
    on_one_line,
    system_library_missing,
)

# subcommand -> module with `register(subparsers)`; each sets `func(args) -> int`.
COMMANDS: Final[dict[str, str]] = {
    "match": "blitzcam.commands.match",
    "decks": "blitzcam.commands.decks",
    "dataset": "blitzcam.commands.dataset",
    "train": "blitzcam.commands.train",
    "train-identity": "blitzcam.commands.train_identity",
    "evaluate": "blitzcam.commands.evaluate",
    "count": "blitzcam.commands.count",
    "app": "blitzcam.commands.app",
}


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, as every other error is: argparse wrote the
    usage first, several lines for a command of many options, then the error."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)  # (for `error`'s hint)
        return super().parse_known_args(args, namespace)

    def _print_message(self, message: str, file: TextIO | None = None) -> None:
        """argparse's, but standard output that cannot be written is said, as every command's
        is (`--help > /dev/full` exited 0 with nothing written: argparse drops the error)."""
        if not message or (file is not None and file is not sys.stdout):
            super()._print_message(message, file)
            return
        from blitzcam.files import output_to_nowhere

        try:
            sys.stdout.write(message)
            sys.stdout.flush()
        except BrokenPipeError:  # (a reader gone: quiet, as the commands are)
            output_to_nowhere()
            sys.exit(128 + getattr(signal, "SIGPIPE", 13))
        except OSError as exc:
            output_to_nowhere()
            print(f"blitzcam: error: {OutputError(exc.strerror or str(exc))}", file=sys.stderr)
            sys.exit(OUTPUT_FAILED)

    def error(self, message: str) -> NoReturn:
        given, options = getattr(self, "_given", []), self._option_string_actions
        hint = _dash_hint(message, given, options) or _mistyped_option_hint(message, given, options)
        said = on_one_line(f"{message}{hint}")  # (an argument given with a line break in it)
        self.exit(2, f"{self.prog}: error: {said} (`{self.prog} --help` for its usage)\n")


def _before_options_end(given: Sequence[str]) -> list[str]:
    """The words given before `--` (after it, none is an option)."""
    given = list(given)
    return given[: given.index("--")] if "--" in given else given


def _dash_hint(message: str, given: Sequence[str], options: Mapping[str, object]) -> str:
    """How to write a value that starts with '-' (a player named "-x"), where argparse took it
    for an option it does not know: "unrecognized arguments: -x=12/0" said nothing of it."""
    dashed = [
        word
        for word in _before_options_end(given)
        if word.startswith("-")
        and word != "-"  # (standard input)
        and not word.startswith("--")  # (an option mistyped: its own message says it)
        and not word[1:2].isdigit()  # (a negative number: argparse reads those as values)
        and word.split("=", 1)[0] not in options
    ]
    if not dashed:
        return ""
    option = re.match(r"argument (-[-\w]+)(?:/-\w+)?: expected one argument", message)
    if option is not None:
        return f" (a value that starts with '-' is written {option.group(1)}=VALUE)"
    if message.startswith("the following arguments are required: DECK"):
        # (after --, as said of a player's name, a deck's was then refused: none starts so)
        return f" ({dashed[0]} is no option here, and a deck's name does not start with '-')"
    if message.startswith(("unrecognized arguments", "the following arguments are required")):
        return " (a name that starts with '-' is written last, after --, which ends the options)"
    return ""


def _mistyped_option_hint(message: str, given: Sequence[str], options: Mapping[str, object]) -> str:
    """The option no parser knows, where argparse said only what was missing: `decks enroll
    green-pump --imgae x.jpg` was "one of the arguments --image --camera is required", `blitzcam
    --verison` "the following arguments are required: COMMAND"."""
    import difflib

    if not message.startswith(("the following arguments are required", "one of the arguments")):
        return ""
    for word in _before_options_end(given):
        name = word.split("=", 1)[0]
        # (argparse takes a known option's beginning for it: --imag is --image; a word with a
        # space in it for a value: a player named "--Ann Lee")
        if (
            name.startswith("--")
            and not any(ch.isspace() for ch in name)
            and not any(option.startswith(name) for option in options)
        ):
            longs = [option for option in options if option.startswith("--")]
            near = difflib.get_close_matches(name, longs, n=1, cutoff=0.75)
            return f" ({name} is no option here{f': did you mean {near[0]}?' if near else ''})"
    return ""


class _CommandParser(_Parser):
    """A subcommand's parser, which refuses what it does not know itself, with its own usage:
    left to the top parser, `blitzcam count --bogus` showed `blitzcam [-h] COMMAND ...`. Its
    own subcommands' parsers are of this class too (argparse makes them of their parent's)."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            hint = self._match_hint(extras, getattr(parsed, "match_id", None))
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        twice = self._given_twice()
        if twice is not None:
            self.error(f"{twice} is given twice: give it once")
        return parsed, extras

    def _given_twice(self) -> str | None:
        """An option of one value given twice (`match new --db a --db b` made b, `settings
        --target 100 --target 150` set 150: argparse keeps the last, unsaid), None where none
        is. A parser with actions of its own leaves theirs to them."""
        if self._subparsers is not None:
            return None
        seen: set[str] = set()
        for word in _before_options_end(getattr(self, "_given", [])):
            name = word.split("=", 1)[0]
            action = self._option_string_actions.get(name)
            if isinstance(action, argparse._StoreAction) and action.nargs is None:
                if action.dest in seen:
                    return name
                seen.add(action.dest)
        return None

    def _match_hint(self, extras: list[str], match_id: int | None) -> str:
        """How a match is named, where a number was given as `delete` takes it (`match show
        2` said only "unrecognized arguments: 2"), or --match to `delete` (its number, as
        argparse took it: `delete --match 2` read 2 as the number, and `delete 1 --match 2`
        must not be told to delete 2)."""
        if len(extras) == 1 and extras[0].isdigit() and "--match" in self._option_string_actions:
            return f" (a match is named with --match: {self.prog} --match {extras[0]})"
        if extras[0] in ("--match", "-m") and self.prog.endswith(" match delete"):
            other = extras[1] if len(extras) > 1 else None
            number = "ID" if match_id is None or other not in (None, str(match_id)) else match_id
            return f" (delete takes the match's number itself, once: {self.prog} {number})"
        return ""


class _Version(argparse.Action):
    """--version: the installed distribution's version (a checkout installed editable has one
    too), looked up only when asked: at every start it cost each command 60 ms."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show blitzcam's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            said = version("blitzcam")
        except PackageNotFoundError:  # (imported from a tree never installed)
            said = "unknown version"
        # (on standard output, as argparse's own version action; a full disk or a reader gone
        # is said as `_Parser._print_message` says it: it was a traceback)
        parser._print_message(f"blitzcam {said}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="blitzcam",
        description="Scoring assistant for Dutch Blitz: counts cards under a camera, keeps score.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_CommandParser
    )
    for module_name in COMMANDS.values():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # a command not built yet
        module.register(subparsers)
    _describe_commands(parser)
    return parser


def _describe_commands(parser: argparse.ArgumentParser) -> None:
    """Each command's help in the list above it, as its own --help's first line where it has no
    description of its own (`decks list --help` said nothing of what it does)."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        said = {choice.dest: choice.help for choice in action._choices_actions}
        for name, command in action.choices.items():
            if command.description is None and said.get(name):
                help_text = str(said[name])
                command.description = help_text[0].upper() + help_text[1:].rstrip(".") + "."
            _describe_commands(command)


class _GuardedOutput:
    """Standard output whose write failures (other than a reader gone away) are OutputError:
    they were a traceback, and exit 1 said an image had failed."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def _guarded(self, name: str, *args: object) -> object:
        if self._stream is None:  # started with stdout closed (`>&-`)
            raise OutputError("standard output is closed")
        try:
            return getattr(self._stream, name)(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            if sys.platform == "win32" and exc.errno == errno.EINVAL and self._to_a_pipe():
                # (Windows says a reader gone away as "Invalid argument": python/cpython#79935;
                # to a file, it says many failures so, a share lost or a disk full among them)
                raise BrokenPipeError(errno.EPIPE, "the reader went away") from None
            raise OutputError(exc.strerror or str(exc)) from None

    def _to_a_pipe(self) -> bool:
        """Whether the stream writes to a pipe (where a reader can go away)."""
        try:
            return stat.S_ISFIFO(os.fstat(self._stream.fileno()).st_mode)  # type: ignore[attr-defined]
        except (AttributeError, OSError, ValueError):
            return False

    def write(self, text: str | bytes) -> object:
        if not isinstance(text, bytes | bytearray | memoryview):
            return self._guarded("write", text)
        # bytes: with PYTHONUNBUFFERED (-u) the buffer is the raw file, whose write may take
        # part of them and say so, raising nothing: a full disk cut `match export -` short and
        # it said it wrote the match. The rest is written, or its error raised
        data = memoryview(text).cast("B")
        done = 0
        while done < len(data):
            written = self._guarded("write", data[done:])
            if written is None:  # (a file set not to wait: a buffered one says so by raising)
                raise OutputError("the output took no more without waiting")
            if not written:
                raise OutputError("no room to write the output")
            done += int(written)  # type: ignore[call-overload]
        return done

    def flush(self) -> object:
        return None if self._stream is None else self._guarded("flush")

    @property
    def buffer(self) -> _GuardedOutput:
        """The bytes under the text (a picture written to `-`), guarded the same way."""
        if self._stream is None:
            raise OutputError("standard output is closed")
        return _GuardedOutput(self._stream.buffer)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _as_given_or_escaped(error: UnicodeError) -> tuple[str | bytes, int]:
    """Encoding error handler for our output: a file name's bytes that are not UTF-8 (held as
    lone surrogates) go out as the bytes they were, as `ls` shows them; any other character
    the stream's encoding lacks, as a backslash escape. Strict, either was a traceback."""
    assert isinstance(error, UnicodeEncodeError)
    bad = error.object[error.start : error.end]
    if all("\udc80" <= ch <= "\udcff" for ch in bad):
        return codecs.lookup_error("surrogateescape")(error)
    return codecs.lookup_error("backslashreplace")(error)


codecs.register_error("blitzcam-output", _as_given_or_escaped)


class _ForgivingErrors:
    """Standard error whose failures are let go. A command's notes and errors are said there,
    and one closed (`2>&-`: `print(file=None)` wrote them to standard output, ahead of `count`'s
    JSON), full, or read by nobody (its broken pipe taken for standard output's: exit 141, the
    JSON never written) must cost standard output nothing."""

    def __init__(self, stream: TextIO | None) -> None:
        # (closed at start: sys.stderr is None, which tqdm's bars could not write to either)
        self._stream = stream if stream is not None else Path(os.devnull).open("w")  # noqa: SIM115

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except (OSError, ValueError):  # (full, no reader, closed since)
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _tolerant_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="blitzcam-output")


def _interrupted_by_sigterm(args: argparse.Namespace) -> contextlib.AbstractContextManager:
    """A SIGTERM said as Ctrl+C is, for a command that sets `interrupt_on_sigterm` (a long
    one that can be gone on with: `interrupted_hint` says how)."""
    if not getattr(args, "interrupt_on_sigterm", False):
        return contextlib.nullcontext()
    from blitzcam.worker_pool import sigterm_unwinds

    return sigterm_unwinds(as_interrupt=True)


def main(argv: Sequence[str] | None = None) -> int:
    try:  # (a Ctrl+C as the commands' modules load was a traceback; nothing had run yet)
        args = build_parser().parse_args(argv)
    except KeyboardInterrupt:
        print("blitzcam: interrupted", file=sys.stderr)
        return 130
    _tolerant_output()
    buffered = _buffered(sys.stdout)
    stdout, sys.stdout = sys.stdout, _GuardedOutput(buffered)  # type: ignore[assignment]
    stderr, sys.stderr = sys.stderr, _ForgivingErrors(sys.stderr)  # type: ignore[assignment]
    try:
        with _interrupted_by_sigterm(args):
            code = int(args.func(args) or 0)
        sys.stdout.flush()  # (here, where a reader that has gone away is caught below)
        return code
    except BrokenPipeError:
        # `blitzcam count --json ... | head -1`: the reader has what it wanted. Quiet, as other
        # tools are; the status a shell's pipefail reads for SIGPIPE
        from blitzcam.files import output_to_nowhere

        output_to_nowhere()
        return 128 + getattr(signal, "SIGPIPE", 13)  # (Windows has no SIGPIPE: its number)
    except ImportError as exc:
        # a system library a wheel links to is missing (OpenCV's libGL on a slim server or
        # container): a 30-line traceback said only that, at its end
        missing = system_library_missing(exc)
        if missing is None:
            raise
        print(f"{_said_as(args)}: error: {missing}", file=sys.stderr)
        return 1
    except PermissionError as exc:
        # a path this user may not reach, met where no check of the command's put it in words
        # (Python's `exists` and `is_dir` raise for a folder on the way that cannot be entered:
        # `evaluate --data`, `decks export`, `enroll --camera` were tracebacks)
        where = f"{exc.filename}: " if exc.filename else ""
        said = on_one_line(
            f"{where}permission denied (this user may not open it, or a folder on the way to it)"
        )
        print(f"{_said_as(args)}: error: {said}", file=sys.stderr)
        return 2
    except UserError as exc:
        print(f"{_said_as(args)}: error: {on_one_line(str(exc))}", file=sys.stderr)
        if exc.exit_code == OUTPUT_FAILED:
            _drop_unwritten(stdout)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        from blitzcam.errors import SavedThenInterrupted, Terminated

        saved = " (after the change was saved)" if isinstance(exc, SavedThenInterrupted) else ""
        # (a command that can be gone on with says how, once it can)
        hint_of = getattr(args, "interrupted_hint", None)
        hint = hint_of() if callable(hint_of) else None
        # (a SIGTERM once a change was saved: said as saved, its context the termination)
        terminated = isinstance(exc, Terminated) or isinstance(exc.__context__, Terminated)
        how = "terminated" if terminated else "interrupted"
        print(f"{_said_as(args)}: {how}{saved}" + (f": {hint}" if hint else ""), file=sys.stderr)
        return 143 if terminated else 130
    finally:
        if buffered is not stdout:  # (what it still holds, written before the next output)
            with contextlib.suppress(OSError, ValueError):
                buffered.flush()
        sys.stdout, sys.stderr = stdout, stderr


class _WrittenWhole(io.TextIOWrapper):
    """Text written through a buffer at once, each write: all of it, or an error."""

    def write(self, text: str) -> int:
        written = super().write(text)
        self.flush()
        return written


def _buffered(stream: TextIO) -> TextIO:
    """Standard output with a buffer under its text, where Python runs unbuffered (-u,
    PYTHONUNBUFFERED): its raw file may take part of a write and say so, raising nothing, and
    the text above it does not look; a full disk cut `count --json` short with exit 0. A
    buffer writes all or raises, each write at once, as unbuffered output is (held to the end,
    lines came after the errors printed beside them, and a SIGTERM lost them).
    Over the same file, which it never closes; a file's only (a Windows console's writes its
    own way)."""
    buffer = getattr(stream, "buffer", None)
    if not isinstance(stream, io.TextIOWrapper) or type(buffer) is not io.FileIO:
        return stream
    try:
        stream.flush()
        raw = io.FileIO(buffer.fileno(), "wb", closefd=False)
    except (OSError, ValueError):
        return stream
    return _WrittenWhole(
        io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors, write_through=True
    )


def _drop_unwritten(stream: object) -> None:
    """What standard output still holds, dropped: written again as Python exits, it failed
    again there ("Exception ignored ... No space left on device") and the exit status became
    120, not the 74 said."""
    from blitzcam.files import output_to_nowhere

    with contextlib.suppress(AttributeError, OSError, ValueError):  # (closed, or no file)
        output_to_nowhere(stream)  # type: ignore[arg-type]


def _said_as(args: argparse.Namespace) -> str:
    """The command as its messages begin, with its action where it has them ("blitzcam decks
    export"), as argparse's own errors for it begin."""
    action = getattr(args, f"{args.command}_command", None)
    return " ".join(filter(None, ("blitzcam", args.command, action)))


if __name__ == "__main__":
    sys.exit(main())
