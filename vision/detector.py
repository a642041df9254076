"""The card detector: an ultralytics OBB model exported to ONNX, run without torch.

Everything the model needs to be run right (class names, input size, stride, output layout) is
read from the metadata ultralytics writes into the ONNX file: a newly trained model drops in.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from blitzcam.errors import UserError
from blitzcam.vision.decode import Decoded, decode_end2end, decode_raw, suppress
from blitzcam.vision.detections import Detections
from blitzcam.vision.letterbox import (
    Letterbox,
    letterbox_image,
    letterbox_params,
    to_blob,
    unletterbox_obb,
)
from blitzcam.vision.onnx_session import missing_model, open_session
from blitzcam.vision.tiling import Tile, to_frame, whole_in_tile

DEFAULT_CONF: Final = 0.25  # ultralytics' predict defaults
DEFAULT_IOU: Final = 0.7


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What the ONNX metadata says about the model."""

    names: tuple[str, ...]
    imgsz: tuple[int, int]  # (h, w) the model was exported at
    stride: int
    end2end: bool
    dynamic: bool  # input height/width are free: letterbox to the minimal stride-multiple rectangle
    task: str


# the most characters an export's names, image size or stride is read from (two classes' names
# take 23)
METADATA_MOST: Final = 10_000


def parse_metadata(meta: dict[str, str], input_shape: list[object], *, source: str) -> ModelInfo:
    """ModelInfo from ultralytics' ONNX metadata (python-literal strings) and the input's shape."""
    try:
        # (a long one, "-" * 100000 + "1", ran Python's parser out of memory: a traceback)
        for key in ("names", "imgsz", "stride"):
            if len(str(meta.get(key, ""))) > METADATA_MOST:
                raise ValueError(f"{key} over {METADATA_MOST:,} characters")
        names_map = ast.literal_eval(meta["names"])
        names = tuple(str(names_map[i]) for i in range(len(names_map)))
        imgsz_raw = ast.literal_eval(meta.get("imgsz", "[640, 640]"))
        imgsz = (
            (int(imgsz_raw[0]), int(imgsz_raw[1]))
            if isinstance(imgsz_raw, (list, tuple))
            else (int(imgsz_raw), int(imgsz_raw))
        )
        stride = int(ast.literal_eval(meta.get("stride", "32")))
        end2end = str(meta.get("end2end", "False")) == "True"
    except (KeyError, ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise UserError(
            f"{source}: not an ultralytics ONNX export "
            f"(metadata 'names'/'imgsz' missing or bad: {exc})"
        ) from None
    dims = input_shape[2:4]
    dynamic = any(not isinstance(d, int) for d in dims)
    if not dynamic:
        imgsz = (int(dims[0]), int(dims[1]))
    task = "obb" if meta.get("head") == "OBB" or meta.get("task") == "obb" else meta.get("task", "")
    return ModelInfo(
        names=names, imgsz=imgsz, stride=stride, end2end=end2end, dynamic=dynamic, task=task
    )


def output_layout(info: ModelInfo, shape: tuple[object, ...], *, source: str) -> ModelInfo:
    """`info` with `end2end` as the model's output says it: (1, 5 + classes, N) raw boxes, or
    (1, K, 7) boxes already suppressed (ultralytics' end-to-end head, or an export with
    `nms=True`, whose metadata still says end2end False); UserError naming `source` for any
    other output (it loaded, then failed on the first picture with a traceback)."""
    raw = len(shape) == 3 and shape[1] == 5 + len(info.names)
    suppressed = len(shape) == 3 and shape[2] == 7 and not raw
    if raw and not info.end2end:
        return info
    if suppressed:
        return dataclasses.replace(info, end2end=True)
    said = "x".join(str(d) for d in shape)
    raise UserError(
        f"{source}: its output is {said}, not the boxes of an OBB detector of "
        f"{len(info.names)} classes (1x{5 + len(info.names)}xN, or 1xKx7 suppressed)"
    )


class Detector:
    """Loads the ONNX model once; `detect(frame)` returns a Detections record in frame pixels."""

    def __init__(
        self,
        model_path: Path,
        *,
        conf: float = DEFAULT_CONF,
        iou: float = DEFAULT_IOU,
        max_det: int = 300,
        threads: int | None = None,
        engine: str | None = None,
    ) -> None:
        model_path = Path(model_path)
        self._session = open_session(
            model_path,
            threads=threads,
            missing=missing_model(
                model_path, "blitzcam-obb.onnx", "detector model", "blitzcam train"
            ),
            engine=engine,
        )
        session = self._session
        self.info = parse_metadata(
            dict(session.metadata), list(session.input_shape), source=str(model_path)
        )
        if self.info.task != "obb":
            raise UserError(
                f"{model_path}: expected an OBB model, metadata says task {self.info.task!r}"
            )
        if "back" not in self.info.names:  # (it loaded, and counted nothing, exit 0)
            raise UserError(
                f"{model_path}: its classes are {', '.join(self.info.names)}: no 'back', which "
                "counting counts"
            )
        self.info = output_layout(self.info, tuple(session.output_shape), source=str(model_path))
        self.path = model_path
        self.conf, self.iou, self.max_det = conf, iou, max_det

    @property
    def names(self) -> tuple[str, ...]:
        return self.info.names

    def prepare(self, frame_bgr: np.ndarray) -> tuple[np.ndarray, object]:
        """Frame -> (network input tensor, letterbox parameters)."""
        params = letterbox_params(
            frame_bgr.shape[:2], self.info.imgsz, auto=self.info.dynamic, stride=self.info.stride
        )
        return to_blob(letterbox_image(frame_bgr, params)), params

    @property
    def input_name(self) -> str:
        """The network input's name (what `forward` feeds; calibration feeds it too)."""
        return self._session.input_name

    @property
    def engine(self) -> str:
        """What runs the model: 'openvino' or 'onnxruntime' (vision/onnx_session.py)."""
        return self._session.engine

    def forward(self, blob: np.ndarray) -> np.ndarray:
        """The forward pass alone (what the benchmark calls inference)."""
        return self._session.run(blob)

    def _decoded(self, output: np.ndarray) -> Decoded:
        """Raw output -> suppressed boxes in network-input pixels."""
        if self.info.end2end:
            return decode_end2end(output, conf=self.conf, max_det=self.max_det)
        return decode_raw(
            output,
            num_classes=len(self.names),
            conf=self.conf,
            iou=self.iou,
            max_det=self.max_det,
        )

    def decode(self, output: np.ndarray, params: object) -> Detections:
        """Raw output -> suppressed detections in frame pixels."""
        decoded = self._decoded(output)
        return Detections.from_obb(
            unletterbox_obb(decoded.obb, params),
            decoded.score,
            decoded.class_id,
            class_names=self.names,
        )

    def prepare_tile(self, zoomed_bgr: np.ndarray, tile: Tile) -> np.ndarray:
        """One tile of a zoomed frame -> the network input tensor (padded right and below, so
        network pixels are the tile's pixels)."""
        height, width = self.info.imgsz
        crop = zoomed_bgr[tile.y0 : tile.y0 + tile.height, tile.x0 : tile.x0 + tile.width]
        crop_h, crop_w = crop.shape[:2]
        pad = Letterbox(
            src_hw=(crop_h, crop_w),
            dst_hw=(height, width),
            new_wh=(crop_w, crop_h),  # not resized: padded only
            top=0,
            bottom=height - crop_h,
            left=0,
            right=width - crop_w,
        )
        return to_blob(letterbox_image(crop, pad))

    def decode_tile(
        self, output: np.ndarray, tile: Tile, zoomed_hw: tuple[int, int], scale: float
    ) -> Decoded:
        """A tile's raw output -> its boxes that no inner tile edge cuts, in frame pixels."""
        decoded = self._decoded(output)
        whole = whole_in_tile(decoded.obb, tile, zoomed_hw)
        return Decoded(
            obb=to_frame(decoded.obb[whole], tile, scale),
            score=decoded.score[whole],
            class_id=decoded.class_id[whole],
        )

    def merge_tiles(self, tiles: list[Decoded]) -> Detections:
        """The tiles' boxes (frame pixels) suppressed together, as one frame's would be."""
        merged = suppress(
            Decoded(
                obb=np.concatenate([np.zeros((0, 5), np.float32), *(t.obb for t in tiles)]),
                score=np.concatenate([np.zeros(0, np.float32), *(t.score for t in tiles)]),
                class_id=np.concatenate([np.zeros(0, np.int64), *(t.class_id for t in tiles)]),
            ),
            iou=self.iou,
            max_det=self.max_det,
        )
        return Detections.from_obb(
            merged.obb, merged.score, merged.class_id, class_names=self.names
        )

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        blob, params = self.prepare(frame_bgr)
        return self.decode(self.forward(blob), params)
