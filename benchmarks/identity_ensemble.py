"""A blitzcam command run with several identity networks averaged: an experiment's tool.

    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] evaluate --data runs/tune --split all
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] enrolled --scenes 80 --seed 77
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] --lift 0.8 evaluate|enrolled ...
    python -m benchmarks.identity_ensemble A.onnx[,B.onnx] --in-play-line 0.5 evaluate ...

Each drawing's similarity to a reference becomes the mean of the networks' cosines: the
shipped file's (three networks joined since stop 51, read as one) or `--identity-model`'s, and
each one named here, their unit embeddings
side by side, divided by the square root of their number. Averaged cosines of networks that
disagree come out lower than one network's, under lines chosen for one network: `--lift a`
maps every cosine to a * cos + (1 - a), by a constant component appended to each embedding
(still unit length, so drawing-to-drawing cosines are mapped as drawing-to-reference ones), as
`models/identity_average.py` does in one ONNX file (which also fits the lift). `--in-play-line`
moves the unknown line counting draws when the decks in play are given (the pipeline's
default, `vision/identify.py: UNKNOWN_BELOW_IN_PLAY`). This wraps `Embedder` in this process
only, to measure a pairing on the choice sets without building one (`enrolled` runs
benchmarks.enrolled_eval). Reference vectors are cached in a folder of this
run's own: averaged ones are longer than one network's.
"""

from __future__ import annotations

import os
import runpy
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from blitzcam.vision import embedding
from blitzcam.vision.onnx_session import missing_model, open_session


def average_with(others: Sequence[Path], lift: float = 1.0) -> None:
    """Make every `Embedder` made from now on in this process average its network with
    `others` (each opened with the same engine and threads), each cosine then mapped to
    lift * cos + (1 - lift)."""
    if not 0 < lift <= 1:
        raise ValueError(f"lift {lift}: must be in (0, 1]")
    own_init, own_embed = embedding.Embedder.__init__, embedding.Embedder.embed

    def init(self: embedding.Embedder, model_path: Path, **options: object) -> None:
        own_init(self, model_path, **options)
        self._others = [
            open_session(
                path,
                threads=options.get("threads"),  # type: ignore[arg-type]
                missing=missing_model(path, path.name, "identity model", "train-identity"),
                engine=options.get("engine"),  # type: ignore[arg-type]
            )
            for path in others
        ]

    def embed(self: embedding.Embedder, patches: np.ndarray) -> np.ndarray:
        parts = [own_embed(self, patches)]
        extra = int(lift < 1)
        if len(patches) == 0:
            return np.zeros((0, parts[0].shape[1] * (1 + len(self._others)) + extra), np.float32)
        for session in self._others:
            out = session.run(embedding.network_input(patches))
            parts.append(out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6))
        averaged = np.concatenate(parts, axis=1) / np.sqrt(len(parts))
        if extra:
            constant = np.full((len(patches), 1), np.sqrt(1 - lift))
            averaged = np.concatenate([averaged * np.sqrt(lift), constant], axis=1)
        return averaged.astype(np.float32)

    embedding.Embedder.__init__ = init  # type: ignore[method-assign]
    embedding.Embedder.embed = embed  # type: ignore[method-assign]


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
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    networks, command, rest = [Path(p) for p in args[0].split(",")], args[1], args[2:]
    for path in networks:
        if not path.is_file():
            print(f"{path}: no such identity network", file=sys.stderr)
            return 2
    os.environ["BLITZCAM_CACHE_DIR"] = tempfile.mkdtemp(prefix="blitzcam-ensemble-")
    average_with(networks, lift)
    if in_play_line is not None:
        from blitzcam.vision import pipeline

        pipeline.UNKNOWN_BELOW_IN_PLAY = in_play_line  # type: ignore[misc]
    if command == "evaluate":
        from blitzcam.cli import main as blitzcam

        return blitzcam(["evaluate", *rest])
    sys.argv = ["enrolled_eval", *rest]
    runpy.run_module("benchmarks.enrolled_eval", run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
