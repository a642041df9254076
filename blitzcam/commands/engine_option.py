"""`--engine`, shared by the commands that run the counting pipeline."""

from __future__ import annotations

import argparse

from blitzcam.vision.onnx_session import ENGINE_ENV, ENGINES


def add_engine_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help=f"what runs the models (default: ${ENGINE_ENV}, else openvino where it is "
        "installed and can open them, else onnxruntime; both count the same)",
    )
