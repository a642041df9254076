"""One way to open an ONNX model for the counting path: CPU, quiet, no busy-waiting, no torch.

Two engines run the same ONNX file, behind one small interface (`ModelSession`):
- OpenVINO, the default where it is installed (it is a dependency on the platforms it has wheels
  for): on the 2-core Xeon we measure on it ran the detector's forward pass 1.4x faster than ONNX
  Runtime at the same precision (`benchmarks/count_bench.py` times both);
- ONNX Runtime, always installed: the fallback, and what `BLITZCAM_ENGINE=onnxruntime` picks.
Both run float32 and agree on the shipped models to float rounding
(tests/vision/test_onnx_session.py).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from blitzcam.errors import UserError
from blitzcam.paths import cache_dir, out_of_reach

if TYPE_CHECKING:  # the CLI reads ENGINES when it builds its parser: keep this import light
    import numpy as np

ENGINE_ENV: Final = "BLITZCAM_ENGINE"
OPENVINO: Final = "openvino"
ONNXRUNTIME: Final = "onnxruntime"
ENGINES: Final = (OPENVINO, ONNXRUNTIME)

Dim = int | str  # a fixed size, or the name of a free one


def engine_from_env() -> str | None:
    """The engine $BLITZCAM_ENGINE names (UserError for one this machine cannot run), or None."""
    chosen = os.environ.get(ENGINE_ENV, "").strip().lower()
    return check_engine(chosen, source=ENGINE_ENV) if chosen else None


def openvino_installed() -> bool:
    return importlib.util.find_spec("openvino") is not None


def check_engine(name: str, *, source: str) -> str:
    """`name` if it is an engine this machine can run; UserError naming `source` otherwise."""
    if name not in ENGINES:
        raise UserError(f"{source}: unknown engine {name!r} (choose {' or '.join(ENGINES)})")
    if name == OPENVINO and not openvino_installed():
        raise UserError(f"{source}: engine openvino is not installed (pip install openvino)")
    return name


@dataclass(frozen=True)
class ModelSession:
    """An opened model: its one input and first output, its metadata, and `run`."""

    path: Path
    engine: str
    input_name: str
    input_shape: tuple[Dim, ...]
    output_shape: tuple[Dim, ...]
    metadata: Mapping[str, str]  # the ONNX file's metadata_props
    _run: Any = field(repr=False)

    def run(self, tensor: np.ndarray) -> np.ndarray:
        """The model's first output for one input tensor (float32, the input's layout)."""
        return self._run(tensor)


def _check_onnx_header(model_path: Path) -> None:
    """UserError unless the file starts as an ONNX model does (its required ir_version, field
    1, comes first). OpenVINO hands any other file to each of its frontends in turn, and
    TensorFlow's logs lines of its own to the terminal before the error."""
    try:
        with model_path.open("rb") as file:
            head = file.read(1)
    except OSError as exc:
        raise UserError(f"{model_path}: cannot read the file: {exc.strerror or exc}") from None
    if head != b"\x08":
        raise UserError(f"{model_path}: cannot load the ONNX model (not an ONNX file)")


def missing_model(model_path: Path, shipped_name: str, what: str, trainer: str) -> str:
    """What to say of a model file that is not there: a shipped one is made again by its
    trainer; any other path (a --model mistyped) is just not there."""
    path = Path(model_path)
    if path.name == shipped_name and path.parent.name == "models":
        return f"no {what} at {path}: train one with `{trainer}`"
    return f"{path}: no such {what} file"


def open_session(
    model_path: Path, *, threads: int | None, missing: str, engine: str | None = None
) -> ModelSession:
    """`model_path` opened with `engine` on `threads` CPU threads (None: the engine's choice, the
    physical cores); UserError (`missing` when there is no file, one line naming the file when
    it cannot be loaded).

    Without `engine` or $BLITZCAM_ENGINE, OpenVINO where it is installed, and ONNX Runtime
    where OpenVINO cannot open the file (a model with an operator it lacks, a broken install):
    nobody asked for OpenVINO, so it must not stand between a user and a count. An engine asked
    for by name is used or fails; it is never swapped."""
    model_path = Path(model_path)
    chosen = check_engine(engine, source="engine") if engine else engine_from_env()
    if why := out_of_reach(model_path):
        raise UserError(f"{model_path}: {why}")
    if model_path.is_dir():  # ("no such detector model file" sent the user looking for one)
        raise UserError(f"{model_path}: is a folder, not a model file (an .onnx)")
    if not model_path.is_file():
        raise UserError(missing)
    _check_onnx_header(model_path)
    if chosen is None:
        if openvino_installed():
            try:
                return _open_openvino(model_path, threads)
            except Exception:  # whatever it was, ONNX Runtime has its turn
                pass
        chosen = ONNXRUNTIME
    opener = _open_openvino if chosen == OPENVINO else _open_onnxruntime
    try:
        return opener(model_path, threads)
    except UserError:
        raise
    except Exception as exc:  # both engines raise their own untyped errors for bad files
        detail = " ".join(str(exc).split())[:300]
        raise UserError(f"{model_path}: cannot load the ONNX model ({detail})") from None


def _open_onnxruntime(model_path: Path, threads: int | None) -> ModelSession:
    import onnxruntime as ort  # heavy: loaded only when a model is opened

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or 0  # 0: ONNX Runtime's choice, the physical cores
    options.log_severity_level = 3
    # no busy-waiting between frames: the app's GUI and camera threads need those cycles
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
    model_input, model_output = session.get_inputs()[0], session.get_outputs()[0]
    name = model_input.name

    def run(tensor: np.ndarray) -> np.ndarray:
        return session.run(None, {name: tensor})[0]  # thread-safe in ONNX Runtime

    return ModelSession(
        path=model_path,
        engine=ONNXRUNTIME,
        input_name=name,
        input_shape=_dims(model_input.shape),
        output_shape=_dims(model_output.shape),
        metadata=dict(session.get_modelmeta().custom_metadata_map),
        _run=run,
    )


def import_openvino() -> Any:
    """The openvino module, with its usage telemetry left out.

    `import openvino` imports its model converter, which then sends a usage event to Google
    Analytics (through openvino-telemetry, one of openvino's own dependencies) unless the user
    once ran its opt-out script. blitzcam touches no network, so the converter gets the
    no-telemetry stub OpenVINO itself falls back to where openvino-telemetry is not installed.
    """
    if "openvino" not in sys.modules:  # once imported, it is too late either way
        sys.modules.setdefault("openvino_telemetry", None)  # None: `import` raises ImportError
    import openvino  # heavy: loaded only when a model is opened

    return openvino


def compile_cache() -> Path:
    """The folder compiled OpenVINO models are kept in (`_compiled_through_cache`), named by the
    model's content, the settings and OpenVINO's version: a later start imports the compiled
    model instead of compiling it (the detector: 0.53 -> 0.27 s on a 2-core AVX2 CPU, most of
    its loading, measured with OpenVINO's own cache)."""
    return cache_dir() / "openvino"


def _open_openvino(model_path: Path, threads: int | None) -> ModelSession:
    ov = import_openvino()
    settings = {
        # OpenVINO's own default on CPUs with bf16 units (AMX, AVX512-BF16) is bf16: faster,
        # but boxes and scores would then depend on the user's CPU. f32 counts as ONNX
        # Runtime does, on every machine.
        "INFERENCE_PRECISION_HINT": "f32",
        "PERFORMANCE_HINT": "LATENCY",
        "INFERENCE_NUM_THREADS": threads or 0,  # 0: OpenVINO's choice, the physical cores
    }
    core = ov.Core()
    model = core.read_model(str(model_path))
    compiled = _compiled_through_cache(ov, core, model, model_path, settings)
    # an infer request holds its buffers and serves one call at a time: one per thread (the live
    # worker and a still-image count may run the same pipeline at once)
    local = threading.local()

    def run(tensor: np.ndarray) -> np.ndarray:
        request = getattr(local, "request", None)
        if request is None:
            request = local.request = compiled.create_infer_request()
        # share_inputs: no copy of the frame tensor in; outputs are copied out (the next call
        # reuses the request's buffer)
        return request.infer({0: tensor}, share_inputs=True)[0]

    return ModelSession(
        path=model_path,
        engine=OPENVINO,
        input_name=compiled.inputs[0].get_any_name(),
        input_shape=_dims(_partial_dims(model.inputs[0].get_partial_shape())),
        output_shape=_dims(_partial_dims(model.outputs[0].get_partial_shape())),
        metadata=_metadata(model),
        _run=run,
    )


KEEP_COMPILED: Final = 6  # compiled models kept in the cache, the most recently used


def _compiled_through_cache(
    ov: Any, core: Any, model: Any, model_path: Path, settings: dict[str, Any]
) -> Any:
    """The model compiled for the CPU: imported from the cache (`compile_cache`) where a
    compiled copy is there whose bytes are those recorded when it was written, else compiled
    and written there with its sha256. OpenVINO's own cache (CACHE_DIR) imported a copy damaged
    inside without a word, and it then found no cards on any later start; an unwritable or
    damaged cache now costs the compile time, never a count."""
    import contextlib
    import hashlib
    import io
    import json

    from blitzcam.files import write_bytes_atomic, write_text_atomic

    folder = compile_cache()
    try:  # named by what compiles it: the model's bytes, the settings, OpenVINO's version
        digest = hashlib.sha256(model_path.read_bytes())
    except OSError:  # (gone since OpenVINO read it: nothing to name a copy by)
        return core.compile_model(model, "CPU", settings)
    digest.update(json.dumps([settings, ov.get_version(), "CPU"], sort_keys=True).encode())
    blob = folder / f"{digest.hexdigest()[:40]}.blob"
    record = blob.with_suffix(".sha256")
    try:
        data = blob.read_bytes() if blob.is_file() and record.is_file() else None
        recorded = None if data is None else record.read_text(encoding="ascii").strip()
        if data is not None and recorded == hashlib.sha256(data).hexdigest():
            compiled = core.import_model(io.BytesIO(data), "CPU", settings)
            with contextlib.suppress(OSError):  # (a cache read-only here is read all the same)
                os.utime(blob)  # most recently used: kept
            return compiled
    except Exception:  # a cache that cannot be read, or a copy OpenVINO refuses: compiled
        pass
    compiled = core.compile_model(model, "CPU", settings)
    try:
        data = compiled.export_model().getvalue()
        folder.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(blob, data)
        write_text_atomic(record, hashlib.sha256(data).hexdigest())
        _keep_recent(folder)
    except Exception:  # not kept: the next start compiles again
        pass
    return compiled


def _keep_recent(folder: Path, keep: int = KEEP_COMPILED) -> None:
    """Delete the compiled models in `folder` past the `keep` most recently used (and the ones
    OpenVINO's own cache wrote there before, named by its numbers, which nothing reads now)."""
    blobs = sorted(folder.glob("*.blob"), key=lambda p: p.stat().st_mtime, reverse=True)
    ours = [b for b in blobs if not b.stem.isdigit()]
    for old in [b for b in blobs if b.stem.isdigit()] + ours[keep:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".sha256").unlink(missing_ok=True)


def _metadata(model: Any) -> dict[str, str]:
    """The ONNX file's metadata_props, which OpenVINO files under rt_info 'framework' (a dict of
    OVAny values in recent releases, one OVAny holding the dict in older ones)."""
    info = model.get_rt_info()
    if "framework" not in info:
        return {}
    framework = info["framework"]
    if not isinstance(framework, dict):
        framework = framework.astype(dict)
    return {str(key): _text(value) for key, value in framework.items()}


def _text(value: Any) -> str:
    return value.astype(str) if hasattr(value, "astype") else str(value)


def _partial_dims(shape: Any) -> list[object]:
    return [dim.get_length() if dim.is_static else "?" for dim in shape]


def _dims(shape: list[object]) -> tuple[Dim, ...]:
    """Engine shapes -> ints for fixed sizes, names (strings) for free ones."""
    return tuple(dim if isinstance(dim, int) else str(dim) for dim in shape)
