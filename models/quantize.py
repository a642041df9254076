"""The detector's int8 export: a faster counting model, a little less right (not the default).

ONNX Runtime's static quantization (QDQ, weights int8 per channel, activations uint8, ranges
from MinMax calibration) on generator scenes of a seed nothing else uses. The head stays in
float: its decoding concatenates pixel coordinates with class scores into one tensor, and
quantized together the scores' 0–1 range drowns in the boxes' 0–1280 (no box survives); its
convolutions, quantized, cost tuning scenes for no speed worth having. On an AVX-512 VNNI CPU
the forward pass takes about 0.6 of the float model's time (MODEL_CARD.md has the figures).
Calibration is deterministic: the same float model and frames give the same bytes.

Weights use 7 bits (-64..64, `reduce_range`). A CPU without VNNI (AVX2: most AMD chips before
Zen 4, Intel before Cascade Lake and Ice Lake) multiplies uint8 activations by int8 weights in pairs
summed into int16 (vpmaddubsw), which saturates at 32767: with 8-bit weights 2 * 255 * 127
overflows and the boxes drift (demo table 3 lost 10 of its 93 backs on OpenVINO); with 7 bits
2 * 255 * 64 = 32640 fits. VNNI sums in int32 and loses only the eighth bit's precision.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

CALIBRATION_SEED: Final = 8080  # generator scenes of their own: neither trained on nor scored
CALIBRATION_SCENES: Final = 128
# The largest weight magnitude: uint8 activations times these, summed in pairs, fit in int16.
WEIGHT_LIMIT: Final = 64


def float_nodes(model: Any) -> list[str]:
    """The nodes kept in float: the head's, the module of the graph's last node (its
    convolutions cost little time and, quantized too, cost tuning scenes; MODEL_CARD.md)."""
    prefix = "/" + model.graph.node[-1].name.split("/")[1] + "/"  # "/model.23/Concat_5"
    return [n.name for n in model.graph.node if n.name.startswith(prefix)]


def calibration_images(scenes_dir: Path) -> list[Path]:
    """The calibration frames of a `blitzcam dataset generate` folder, in a fixed order."""
    images = sorted((scenes_dir / "images").glob("*/*.jpg"))
    if not images:
        raise FileNotFoundError(f"{scenes_dir / 'images'}: no calibration frames (*.jpg)")
    return images


def quantize_detector(fp32: Path, out: Path, images: Sequence[Path]) -> Path:
    """`fp32` (our ONNX export) quantized to int8 into `out`, written whole or not at all,
    its ranges calibrated on `images` letterboxed as the counting path does."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from blitzcam.files import copy_file_atomic
    from blitzcam.vision.detector import Detector
    from blitzcam.vision.images import read_image

    if not images:
        raise ValueError("no calibration images")
    detector = Detector(Path(fp32))
    input_name = detector.input_name

    class Frames(CalibrationDataReader):
        def __init__(self) -> None:
            self._blobs: Iterator[dict[str, Any]] = (
                {input_name: detector.prepare(read_image(p))[0]} for p in images
            )

        def get_next(self) -> dict[str, Any] | None:
            return next(self._blobs, None)

    with tempfile.TemporaryDirectory() as tmp:
        prepared, quantized = Path(tmp) / "prepared.onnx", Path(tmp) / "int8.onnx"
        quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
        quantize_static(
            str(prepared),
            str(quantized),
            Frames(),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            reduce_range=True,  # 7-bit weights (WEIGHT_LIMIT): no int16 saturation without VNNI
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
            nodes_to_exclude=float_nodes(onnx.load(str(prepared))),
        )
        copy_file_atomic(quantized, out)
    return out
