"""blitzcam/errors.py: a library's exception said in one line of blitzcam's own."""

from __future__ import annotations

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
