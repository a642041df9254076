"""The detector's int8 export (models/quantize.py) and the shipped one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from blitzcam.models import DETECTOR_INT8, DETECTOR_ONNX
from blitzcam.paths import REPO_ROOT
from blitzcam.vision.onnx_session import ENGINES, OPENVINO, openvino_installed

DEMO = REPO_ROOT / "datasets" / "demo"
INSTALLED_ENGINES = [e for e in ENGINES if e != OPENVINO or openvino_installed()]


def int8_weights(model_path: Path) -> list[np.ndarray]:
    """The quantized weights of an ONNX model: int8 initializers that a DequantizeLinear reads."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(model_path))
    initializers = {i.name: i for i in model.graph.initializer}
    weights = [
        numpy_helper.to_array(initializers[node.input[0]])
        for node in model.graph.node
        if node.op_type == "DequantizeLinear" and node.input[0] in initializers
    ]
    return [w for w in weights if w.dtype == np.int8]


def assert_fits_without_vnni(model_path: Path) -> None:
    """Every weight within 7 bits: uint8 activations times them, summed in pairs, stay inside
    int16 on a CPU without VNNI (models/quantize.py)."""
    from blitzcam.models.quantize import WEIGHT_LIMIT

    weights = int8_weights(model_path)
    assert len(weights) > 50  # the backbone's and neck's convolutions
    assert max(int(np.abs(w.astype(np.int16)).max()) for w in weights) <= WEIGHT_LIMIT
    assert np.iinfo(np.int16).max >= 2 * 255 * WEIGHT_LIMIT


def test_the_head_stays_in_float_and_nothing_else_does() -> None:
    import onnx

    from blitzcam.models.quantize import float_nodes

    model = onnx.load(str(DETECTOR_ONNX))
    kept = set(float_nodes(model))
    last = model.graph.node[-1].name
    assert last in kept  # the concatenation of boxes with scores
    head = "/" + last.split("/")[1] + "/"
    assert kept == {n.name for n in model.graph.node if n.name.startswith(head)}
    assert len(kept) < len(model.graph.node) / 2  # the backbone and neck are quantized


def test_no_calibration_frames_is_an_error(tmp_path: Path) -> None:
    from blitzcam.models.quantize import calibration_images, quantize_detector

    with pytest.raises(FileNotFoundError, match="no calibration frames"):
        calibration_images(tmp_path)
    with pytest.raises(ValueError, match="no calibration images"):
        quantize_detector(DETECTOR_ONNX, tmp_path / "int8.onnx", [])
    assert not (tmp_path / "int8.onnx").exists()


@pytest.mark.slow
def test_quantizing_is_deterministic_and_keeps_the_models_metadata(tmp_path: Path) -> None:
    from blitzcam.models.quantize import quantize_detector
    from blitzcam.vision.detector import Detector

    frames = sorted(DEMO.glob("table-*.jpg"))[:2]
    first = quantize_detector(DETECTOR_ONNX, tmp_path / "a.onnx", frames)
    again = quantize_detector(DETECTOR_ONNX, tmp_path / "b.onnx", frames)
    assert first.read_bytes() == again.read_bytes()
    assert Detector(first).info == Detector(DETECTOR_ONNX).info
    assert first.stat().st_size < DETECTOR_ONNX.stat().st_size / 2
    assert_fits_without_vnni(first)


def test_the_shipped_int8_weights_fit_without_vnni() -> None:
    # 8-bit weights overflowed on AVX2 CPUs: demo table 2 (table 3 then) lost 10 of its 93 backs on OpenVINO
    assert_fits_without_vnni(DETECTOR_INT8)


@pytest.mark.slow
@pytest.mark.parametrize("engine", INSTALLED_ENGINES)
@pytest.mark.parametrize("table", ["table-1.jpg", "table-2.jpg", "table-3.jpg"])
def test_the_shipped_int8_model_finds_the_float_models_backs(table: str, engine: str) -> None:
    from blitzcam.vision.detector import Detector
    from blitzcam.vision.images import read_image
    from blitzcam.vision.pipeline import COUNT_CONF, COUNT_IOU
    from blitzcam.vision.polygons import polygon_iou

    frame = read_image(DEMO / table)
    found = [
        Detector(m, conf=COUNT_CONF, iou=COUNT_IOU, threads=1, engine=engine).detect(frame)
        for m in (DETECTOR_ONNX, DETECTOR_INT8)
    ]
    sure, int8 = found
    assert abs(len(int8) - len(sure)) <= max(1, len(sure) // 50)
    best = [max(polygon_iou(box, other) for other in int8.corners) for box in sure.corners]
    assert np.mean(np.array(best) >= 0.8) >= 0.97  # the same boxes, a few pixels apart at most
