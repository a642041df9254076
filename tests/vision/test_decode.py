"""Letterbox + decode + rotated NMS against ultralytics' own predictions on the same weights and
frame, on each engine that runs the ONNX."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from blitzcam.vision.decode import decode_end2end, decode_raw, fast_nms_rotated, probiou
from blitzcam.vision.detector import Detector
from blitzcam.vision.letterbox import letterbox_params, unletterbox_obb
from blitzcam.vision.onnx_session import ENGINES

CONF = 0.05  # random weights score low: keep enough boxes to compare


def _ultralytics_predict(model_path, frame, imgsz, conf):
    from blitzcam.offline import import_ultralytics

    import_ultralytics()
    from ultralytics import YOLO

    result = YOLO(str(model_path), task="obb").predict(
        frame, imgsz=imgsz, conf=conf, verbose=False
    )[0]
    obb = result.obb
    return obb.xywhr.cpu().numpy(), obb.conf.cpu().numpy(), obb.cls.cpu().numpy().astype(int)


def _match(ours, theirs) -> None:
    """Same boxes, same order up to ties, within float tolerance (engine vs torch kernels)."""
    obb, score, cls = ours
    ref_obb, ref_score, ref_cls = theirs
    assert len(ref_score) > 3, "the random model should give some boxes at this confidence"
    # tiny numeric differences may flip a box that sits exactly on the threshold: allow 2%
    assert abs(len(score) - len(ref_score)) <= max(1, len(ref_score) // 50)
    iou = probiou(obb, ref_obb)
    best = iou.argmax(axis=1)
    matched = iou[np.arange(len(obb)), best] > 0.99
    assert matched.mean() > 0.97
    np.testing.assert_allclose(score[matched], ref_score[best[matched]], atol=2e-3)
    assert (cls[matched] == ref_cls[best[matched]]).all()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_fixed_onnx_matches_ultralytics_onnx(random_model, table_frame, engine: str) -> None:
    detector = Detector(random_model.onnx, conf=CONF, engine=engine)
    dets = detector.detect(table_frame)
    theirs = _ultralytics_predict(random_model.onnx, table_frame, 320, CONF)
    _match((dets.obb, dets.confidence, dets.class_id), theirs)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_dynamic_onnx_matches_ultralytics_pt(random_model, table_frame, engine: str) -> None:
    # a dynamic export runs at the minimal stride-multiple rectangle, as predict does for a .pt
    detector = Detector(random_model.onnx_dynamic, conf=CONF, engine=engine)
    assert detector.info.dynamic
    blob, _ = detector.prepare(table_frame)
    assert blob.shape == (1, 3, 192, 320)
    dets = detector.detect(table_frame)
    theirs = _ultralytics_predict(random_model.pt, table_frame, 320, CONF)
    _match((dets.obb, dets.confidence, dets.class_id), theirs)


@pytest.mark.parametrize("engine", ENGINES)
def test_metadata_read(random_model, engine: str) -> None:
    info = Detector(random_model.onnx, engine=engine).info
    assert info.names == ("back", "face")
    assert info.imgsz == (320, 320)
    assert info.stride == 32
    assert not info.end2end


def test_the_output_says_how_the_boxes_come() -> None:
    # (an export with nms=True, its metadata still end2end False, loaded and then failed on
    # the first picture with a traceback; a raw head under end2end True did too)
    from blitzcam.errors import UserError
    from blitzcam.vision.detector import ModelInfo, output_layout

    info = ModelInfo(names=("back", "face"), imgsz=(736, 1280), stride=32, end2end=False,
                     dynamic=False, task="obb")  # fmt: skip
    assert output_layout(info, (1, 7, 19320), source="m") == info
    assert output_layout(info, (1, 7, "n"), source="m") == info  # a dynamic count of boxes
    assert output_layout(info, (1, 300, 7), source="m").end2end  # suppressed already
    for shape in ((1, 9, 19320), (1, 300, 6), (7, 19320)):
        with pytest.raises(UserError, match=r"^m: its output is .* not the boxes of an OBB"):
            output_layout(info, shape, source="m")
    e2e = dataclasses.replace(info, end2end=True)
    with pytest.raises(UserError, match="its output is 1x7x19320"):
        output_layout(e2e, (1, 7, 19320), source="m")


def test_a_detector_without_a_back_class_is_refused(random_model, tmp_path) -> None:
    # (it loaded and counted nothing, exit 0)
    import onnx

    from blitzcam.errors import UserError

    model = onnx.load(str(random_model.onnx))
    for prop in model.metadata_props:
        if prop.key == "names":
            prop.value = "{0: 'card_back', 1: 'face'}"
    renamed = tmp_path / "renamed.onnx"
    onnx.save(model, str(renamed))
    with pytest.raises(UserError, match=r"renamed\.onnx: its classes are card_back, face: no"):
        Detector(renamed)


@pytest.mark.parametrize(
    ("src_hw", "target", "auto", "dst_hw"),
    [
        ((1080, 1920), (640, 640), False, (640, 640)),  # 16:9 into a square: bars top and bottom
        ((1080, 1920), (640, 640), True, (384, 640)),  # rect inference: pad to a multiple of 32
        ((480, 640), (640, 640), True, (480, 640)),  # 4:3 upscaled, already a multiple of 32
        ((9000, 12000), (640, 640), False, (640, 640)),  # huge photo
        ((1, 3000), (640, 640), False, (640, 640)),  # a thin sliver keeps at least one pixel row
    ],
)
def test_letterbox_shapes(src_hw, target, auto, dst_hw) -> None:
    params = letterbox_params(src_hw, target, auto=auto)
    assert params.dst_hw == dst_hw


def test_unletterbox_round_trip() -> None:
    params = letterbox_params((1080, 1920), (640, 640))
    frame_box = np.array([[960.0, 540.0, 300.0, 150.0, 0.3]], np.float32)
    gain_x, gain_y = params.gain_xy
    net_box = frame_box.copy()
    net_box[:, 0] = frame_box[:, 0] * gain_x + params.left
    net_box[:, 1] = frame_box[:, 1] * gain_y + params.top
    net_box[:, 2] *= gain_x
    net_box[:, 3] *= gain_y
    np.testing.assert_allclose(unletterbox_obb(net_box, params), frame_box, rtol=1e-5)


def test_probiou_identical_and_disjoint() -> None:
    boxes = np.array([[10, 10, 8, 4, 0.0], [10, 10, 8, 4, 0.0], [200, 200, 8, 4, 1.0]], np.float32)
    iou = probiou(boxes, boxes)
    assert iou[0, 1] == pytest.approx(1.0, abs=1e-3)
    assert iou[0, 2] == pytest.approx(0.0, abs=1e-3)
    # a box turned by 180 degrees is the same box
    turned = boxes[:1].copy()
    turned[0, 4] += np.pi
    assert probiou(boxes[:1], turned)[0, 0] == pytest.approx(1.0, abs=1e-3)


def test_fast_nms_keeps_best_of_overlapping() -> None:
    boxes = np.array(
        [[50, 50, 40, 20, 0.1], [51, 50, 40, 20, 0.12], [150, 50, 40, 20, 0.0]], np.float32
    )
    scores = np.array([0.5, 0.9, 0.4], np.float32)
    assert fast_nms_rotated(boxes, scores, 0.7).tolist() == [1, 2]


def test_decode_raw_class_aware() -> None:
    # two identical boxes of different classes both survive class-aware NMS, not agnostic NMS
    pred = np.zeros((1, 7, 2), np.float32)
    pred[0, :4] = [[100, 100], [100, 100], [30, 30], [10, 10]]
    pred[0, 4] = [0.9, 0.1]
    pred[0, 5] = [0.1, 0.8]
    assert len(decode_raw(pred, num_classes=2).score) == 2
    assert len(decode_raw(pred, num_classes=2, agnostic=True).score) == 1


@pytest.mark.parametrize(
    "shape",
    [
        (1, 6, 100),  # one channel short for 2 classes
        (2, 7, 100),  # a batch of two
        (7,),  # flat
    ],
)
def test_decode_raw_rejects_bad_shapes(shape) -> None:
    with pytest.raises(ValueError, match="expected"):
        decode_raw(np.zeros(shape, np.float32), num_classes=2)


def test_decode_empty_and_end2end() -> None:
    assert len(decode_raw(np.zeros((1, 7, 50), np.float32), num_classes=2).score) == 0
    e2e = np.zeros((1, 300, 7), np.float32)
    e2e[0, 0] = [10, 20, 30, 40, 0.9, 1, 0.5]
    out = decode_end2end(e2e)
    assert out.class_id.tolist() == [1]
    np.testing.assert_allclose(out.obb[0], [10, 20, 30, 40, 0.5])


def test_boxes_that_are_not_finite_numbers_are_no_boxes() -> None:
    out = np.zeros((1, 7, 4), np.float32)
    out[0, :, 0] = [100, 100, 40, 30, 0.9, 0.0, 0.1]  # a good back
    out[0, :, 1] = [300, 200, np.nan, 30, 0.8, 0.0, 0.1]  # its width NaN
    out[0, :, 2] = [500, 200, 40, np.inf, 0.8, 0.0, np.inf]  # its height and angle infinite
    out[0, :, 3] = [100, 400, 40, 30, 0.9, np.nan, 0.1]  # a back whose face score is NaN
    decoded = decode_raw(out, num_classes=2, conf=0.1, iou=0.5)
    assert sorted(decoded.obb[:, 1].tolist()) == [100.0, 400.0]  # the NaN score taken for none
    assert decoded.class_id.tolist() == [0, 0]
    end2end = np.array(
        [[[10, 10, 5, 5, 0.9, 0, 0.1], [20, 20, 5, 5, 0.9, np.nan, 0.1], [30, 30, np.inf, 5, 0.9, 1, 0]]],
        np.float32,
    )
    assert decode_end2end(end2end, conf=0.25).obb[:, 0].tolist() == [10.0]


def test_classes_are_suppressed_apart_in_frames_of_any_size() -> None:
    # classes were moved apart by a fixed 7680 px: a face-up box at (20, 20) suppressed a back
    # at (7700, 7700), which class 1's shift landed it on
    from blitzcam.vision.decode import Decoded, suppress

    obb = np.array([[7700, 7700, 50, 80, 0.0], [20, 20, 50, 80, 0.0]], np.float32)
    kept = suppress(
        Decoded(obb, np.array([0.6, 0.9], np.float32), np.array([0, 1])), iou=0.5
    )
    assert sorted(kept.class_id.tolist()) == [0, 1]


def test_boxes_without_width_or_height_and_infinite_scores_are_no_boxes() -> None:
    # a zero-width box has a NaN overlap with every other: never suppressed, 300 counted as
    # unknown backs; an infinite score passed the confidence line
    out = np.zeros((1, 7, 4), np.float32)
    out[0, :, 0] = [100, 100, 40, 30, 0.9, 0.0, 0.1]  # a good back
    out[0, :, 1] = [300, 200, 0, 30, 0.8, 0.0, 0.1]  # no width
    out[0, :, 2] = [500, 200, 40, -3, 0.8, 0.0, 0.1]  # a negative height
    out[0, :, 3] = [700, 400, 40, 30, np.inf, 0.0, 0.1]  # an infinite score
    decoded = decode_raw(out, num_classes=2, conf=0.1, iou=0.5)
    assert decoded.obb[:, 0].tolist() == [100.0]


def _every_pair_fast_nms(obb: np.ndarray, score: np.ndarray, threshold: float) -> np.ndarray:
    """Fast-NMS by its definition, in float32 as ultralytics' torch NMS: every pair's probiou,
    no gate, no strips."""
    from blitzcam.vision.decode import _probiou

    order = np.argsort(-score, kind="stable")
    boxes = np.asarray(obb, np.float32)[order]
    over = _probiou(boxes[:, None, :], boxes[None, :, :]) > threshold
    higher = np.triu(np.ones((len(boxes), len(boxes)), bool), k=1)  # row scores above column
    return order[~(over & higher).any(axis=0)]


@pytest.mark.parametrize("pairs", [1 << 20, 7])  # (and in chunks of a few pairs)
def test_fast_nms_keeps_what_every_pair_looked_at_keeps(pairs: int, monkeypatch) -> None:
    # only boxes within reach along x are paired (a late round's 1,900 candidates took 26-35 ms
    # as blocks of every pair's distance): the boxes kept must be Fast-NMS's own
    import blitzcam.vision.decode as decode

    monkeypatch.setattr(decode, "NMS_PAIRS", pairs)
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(0, 160))
        obb = np.c_[
            rng.uniform(0, 300, (n, 2)), rng.uniform(1, 60, (n, 2)), rng.uniform(-1.6, 1.6, n)
        ]
        obb[:, 0] += rng.integers(0, 2, n) * 2000  # two far-apart tables of boxes
        if n > 10:
            obb[5:10] = obb[0]  # boxes on one another, scores tied
        score = rng.choice(np.linspace(0.1, 1, 12), n)
        for threshold in (0.3, 0.5, 0.7):
            assert (
                fast_nms_rotated(obb, score, threshold).tolist()
                == _every_pair_fast_nms(obb, score, threshold).tolist()
            )


def test_the_network_input_is_opencvs_blob_to_the_bit() -> None:
    # (each channel scaled into its plane with numpy, a quarter faster than blobFromImage)
    import cv2

    from blitzcam.vision.letterbox import to_blob

    image = np.random.default_rng(5).integers(0, 256, (40, 300, 3), dtype=np.uint8)
    for channel in range(3):
        image[channel, :256, channel] = np.arange(256)  # every value, in every channel
    expected = cv2.dnn.blobFromImage(image, scalefactor=1 / 255.0, swapRB=True)
    blob = to_blob(image)
    assert blob.dtype == expected.dtype and blob.shape == expected.shape == (1, 3, 40, 300)
    assert np.array_equal(blob, expected)
    assert np.array_equal(to_blob(np.ascontiguousarray(image[::2, ::3])), cv2.dnn.blobFromImage(
        np.ascontiguousarray(image[::2, ::3]), scalefactor=1 / 255.0, swapRB=True))  # fmt: skip
