"""A blitzcam command run with several identity networks averaged: an experiment's tool.

    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] evaluate --data runs/tune --split all
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] enrolled --scenes 80 --seed 77
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] --lift 0.8 evaluate|enrolled ...
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] --in-play-line 0.5 evaluate ...

Each drawing's similarity to a reference becomes the mean of the networks' cosines: the shipped
file's (networks joined into one: three since stop 51, four since stop 55) or
`--identity-model`'s, and each one named here. Averaged cosines of networks that disagree come
out lower than one network's, under lines chosen for one network: `--lift a` maps every cosine
to a * cos + (1 - a). Both are `models/identity_average.py`'s join (which also fits the lift
for a shipped file): the networks are joined into one ONNX in a folder of this run's own and
the command reads it as its `--identity-model`. `--in-play-line` moves the unknown line
counting draws when the decks in play are given (the pipeline's default, `vision/identify.py:
UNKNOWN_BELOW_IN_PLAY`), in this process only. `enrolled` runs benchmarks.enrolled_eval.
Reference vectors are cached in a folder of this run's own too.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

IDENTITY_MODEL = "--identity-model"
CACHE_VARIABLE = "BLITZCAM_CACHE_DIR"


def joined_with(
    others: Sequence[Path], rest: list[str], folder: Path, lift: float = 1.0
) -> list[str]:
    """`rest` (a command's arguments) with its identity network (`--identity-model`'s, else the
    shipped one) replaced by that network joined with `others` (`identity_average.join_networks`,
    written into `folder`)."""
    from blitzcam.models.identity_average import join_networks
    from blitzcam.vision.pipeline import default_identity_path

    base, kept, words = default_identity_path(), [], iter(rest)
    for word in words:
        if word == IDENTITY_MODEL:
            base = Path(next(words, ""))
        elif word.startswith(IDENTITY_MODEL + "="):
            base = Path(word.partition("=")[2])
        else:
            kept.append(word)
    joined = join_networks([base, *others], folder / "joined-identity.onnx", lift=lift)
    return [*kept, IDENTITY_MODEL, str(joined)]


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    lift = 1.0
    in_play_line = None
    while len(args) >= 3 and args[1] in ("--lift", "--in-play-line"):
        try:
            value = float(args[2])
        except ValueError:
            value = float("nan")  # (refused below, with the usage)
        if args[1] == "--lift":
            lift = value
        else:
            in_play_line = value
        del args[1:3]
    line_ok = in_play_line is None or 0 < in_play_line < 1
    if len(args) < 2 or args[1] not in ("evaluate", "enrolled") or not 0 < lift <= 1 or not line_ok:
        asked = args in (["--help"], ["-h"])  # (its usage: every form, and what they do)
        print(__doc__.strip(), file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    networks, command, rest = [Path(p) for p in args[0].split(",")], args[1], args[2:]
    for path in networks:
        if not path.is_file():
            print(f"{path}: no such identity network", file=sys.stderr)
            return 2
    # (the joined network and the cache, 70 MB, are gone at the end, and the variable is as it
    # was: the suite ran its tests after this one on a cache it then left in /tmp, each run)
    with tempfile.TemporaryDirectory(prefix="blitzcam-ensemble-") as name, cache_in(Path(name)):
        rest = joined_with(networks, rest, Path(name), lift)
        if in_play_line is not None:
            from blitzcam.vision import pipeline

            pipeline.UNKNOWN_BELOW_IN_PLAY = in_play_line  # type: ignore[misc]
        if command == "evaluate":
            from blitzcam.cli import main as blitzcam

            return blitzcam(["evaluate", *rest])
        sys.argv = ["enrolled_eval", *rest]
        runpy.run_module("benchmarks.enrolled_eval", run_name="__main__")
        return 0


@contextlib.contextmanager
def cache_in(folder: Path) -> Iterator[None]:
    """blitzcam's caches (compiled models, reference vectors) in `folder` meanwhile."""
    before = os.environ.get(CACHE_VARIABLE)
    os.environ[CACHE_VARIABLE] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CACHE_VARIABLE, None)
        else:
            os.environ[CACHE_VARIABLE] = before


if __name__ == "__main__":
    sys.exit(main())
