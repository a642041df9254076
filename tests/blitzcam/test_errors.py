"""blitzcam/errors.py: a library's exception said in one line of blitzcam's own."""

from __future__ import annotations

import pytest

from blitzcam.errors import first_line, library_reason


def test_a_library_s_reason_is_said_without_its_mark_its_repeat_of_the_path_or_its_advice() -> None:
    # (a damaged last.pt was refused "(ERROR ❌️ /r/last.pt references types outside the
    # supported Ultralytics checkpoint format. Use an official Ultralytics model, i.e. ...)";
    # torch's refusal went on "This file can still be loaded ... weights_only set to False")
    foreign = RuntimeError(
        "ERROR ❌️ /r/last.pt references types outside the supported Ultralytics checkpoint "
        "format. Use an official Ultralytics model, i.e. 'yolo predict model=yolo26n.pt'"
    )
    assert library_reason(foreign, "/r/last.pt") == (
        "it references types outside the supported Ultralytics checkpoint format."
    )
    torch_said = RuntimeError(
        "Weights only load failed. This file can still be loaded, to do so you have two options"
    )
    assert library_reason(torch_said) == "Weights only load failed."
    plain = ValueError("invalid load key, 'x'.")
    assert library_reason(plain, "/r/last.pt") == first_line(plain) == "invalid load key, 'x'."
    assert library_reason(EOFError()) == "EOFError"


def test_a_long_reason_is_cut_at_a_word() -> None:
    from blitzcam.errors import REASON_MOST

    long = RuntimeError("PytorchStreamReader failed reading zip archive: " + "internal miniz error " * 20)
    said = library_reason(long)
    assert len(said) <= REASON_MOST + 1 and said.endswith("error…") and " e…" not in said


def test_a_system_library_that_failed_to_load_is_said_in_one_line(monkeypatch, capsys) -> None:
    # (without libGL, as on a slim server or container, `blitzcam count` was a 30-line traceback
    # ending in "libGL.so.1: cannot open shared object file"; review)
    import pytest

    from blitzcam import cli
    from blitzcam.commands import count
    from blitzcam.errors import system_library_missing

    lost = ImportError("libGL.so.1: cannot open shared object file: No such file or directory", name="cv2")
    said = system_library_missing(lost)
    assert said is not None and "cv2" in said and "libGL.so.1" in said and "apt install libgl1" in said
    assert "apt" not in system_library_missing(ImportError("libfoo.so.3: cannot open shared object file"))
    assert system_library_missing(ImportError("cannot import name 'x' from 'y'")) is None  # a bug

    def fails(args) -> int:
        raise lost

    monkeypatch.setattr(count, "run", fails)
    assert cli.main(["count", "x.jpg"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("blitzcam count: error: a library of the system")

    def bug(args) -> int:
        raise ImportError("cannot import name 'x' from 'y'")

    monkeypatch.setattr(count, "run", bug)
    with pytest.raises(ImportError, match="cannot import name"):
        cli.main(["count", "x.jpg"])


def test_an_error_is_one_line_whatever_the_file_it_names_and_keeps_a_name_s_emoji(tmp_path, capsys) -> None:
    # (a file named with a line break split the error in two, one with an escape code coloured
    # the terminal; count escaped them, the other commands did not; review)
    from blitzcam import cli

    for name, shown in (("a\nb.json", "a\\nb.json"), ("\x1b[31mred.json", "\\x1b[31mred.json"),
                        ("\u202emoc.json", "\\u202emoc.json")):  # fmt: skip
        assert cli.main(["match", "summarize", str(tmp_path / name)]) != 0
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "\x1b" not in err and shown in err
    coder = "\U0001f469\u200d\U0001f4bb"  # one emoji of three joined: not escaped
    db = str(tmp_path / "m.sqlite3")
    code = cli.main(["match", "--db", db, "new", "-p", f"{coder}=green-pump", "-p", f"{coder}=red-buggy"])
    err = capsys.readouterr().err
    assert code != 0 and coder in err and "\\u200d" not in err
    with pytest.raises(SystemExit):  # argparse's own errors too (a review)
        cli.main(["match", "show", "x\ny"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "x\\ny" in err
