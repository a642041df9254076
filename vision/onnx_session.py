"""One way to open an ONNX model for the counting path: CPU, quiet, no busy-waiting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from blitzcam.errors import UserError


def open_session(model_path: Path, *, threads: int | None, missing: str) -> Any:
    """An ONNX Runtime session for `model_path`; UserError (`missing` when there is no file)."""
    import onnxruntime as ort  # heavy: loaded only when a model is opened

    if not Path(model_path).is_file():
        raise UserError(missing)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or 0  # 0: ONNX Runtime's choice, the physical cores
    options.log_severity_level = 3
    # no busy-waiting between frames: the app's GUI and camera threads need those cycles
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for bad files
        raise UserError(f"{model_path}: cannot load the ONNX model ({exc})") from None
