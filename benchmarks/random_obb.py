"""Build a randomly initialised ultralytics OBB model (classes back/face) and its ONNX export.

For tests and benchmarks only: it stands in for the trained detector until one is shipped, so the
ONNX path can be checked against ultralytics' own predictions on the same weights and frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from blitzcam.offline import import_ultralytics

NAMES: Final = {0: "back", 1: "face"}
SEED: Final = 0


@dataclass(frozen=True)
class RandomModel:
    """One set of random weights as .pt and ONNX (fixed input size; also dynamic if asked)."""

    pt: Path
    onnx: Path
    onnx_dynamic: Path | None


def build_random_obb(
    out_dir: Path, *, imgsz: int = 640, dynamic_too: bool = False, score_bias: float = -2.0
) -> RandomModel:
    """Write random-obb.pt and its ONNX export(s) under out_dir.

    The weights come from the package's own yolo11n-obb yaml (no download), seeded, nc=2.
    `score_bias` is the class logits' bias: lower means fewer boxes pass a confidence threshold
    (about -2 gives hundreds of candidates, good for testing NMS; about -6 gives a few dozen, like
    a trained model on a table of cards, which is what a speed benchmark should see).
    """
    import torch  # tests/benchmarks only

    import_ultralytics()
    from ultralytics import YOLO
    from ultralytics.nn.tasks import OBBModel

    out_dir.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(SEED)
    model = YOLO("yolo11n-obb.yaml", task="obb")
    model.model = OBBModel("yolo11n-obb.yaml", nc=len(NAMES), verbose=False)
    model.model.names = dict(NAMES)
    model.model.args = {"task": "obb"}  # what a trained checkpoint carries; load and export read it
    model.model.task = "obb"
    _liven(model.model, torch, score_bias)
    pt_path = out_dir / "random-obb.pt"
    model.save(str(pt_path))
    exports = {}
    for dynamic in (True, False) if dynamic_too else (False,):  # fixed last: same file name
        target = out_dir / ("random-obb-dynamic.onnx" if dynamic else "random-obb.onnx")
        exported = YOLO(str(pt_path), task="obb").export(
            format="onnx", imgsz=imgsz, dynamic=dynamic, simplify=True, opset=17, verbose=False
        )
        Path(exported).replace(target)
        exports[dynamic] = target
    return RandomModel(pt=pt_path, onnx=exports[False], onnx_dynamic=exports.get(True))


def _probe_images(torch, count: int = 4, size: int = 320):
    """Seeded table-like images: a dark cloth with bright rotated rectangles and coloured blobs."""
    rng = np.random.default_rng(SEED)
    images = []
    for _ in range(count):
        image = np.empty((size, size, 3), np.uint8)
        image[:] = rng.integers(30, 110, 3)
        image = cv2.add(image, rng.integers(0, 25, image.shape, dtype=np.uint8))
        for _ in range(8):
            centre = (float(rng.uniform(0, size)), float(rng.uniform(0, size)))
            box = cv2.boxPoints((centre, (size / 8, size / 6), float(rng.uniform(0, 180))))
            cv2.fillPoly(image, [box.astype(np.int32)], (235, 235, 235))
            cv2.circle(
                image,
                (int(centre[0]), int(centre[1])),
                size // 30,
                rng.integers(0, 255, 3).tolist(),
                -1,
            )
        images.append(image)
    batch = np.stack(images)[..., ::-1].transpose(0, 3, 1, 2) / 255.0
    return torch.from_numpy(np.ascontiguousarray(batch, dtype=np.float32))


def _liven(net, torch, score_bias: float) -> None:
    """Make random weights give varied boxes and scores instead of near-constant output.

    Default initialisation makes activations vanish layer by layer and the class prior keeps every
    score near 0.006, so no box passes any threshold. Seeded unit-variance convolutions, batch-norm
    statistics calibrated on table-like images, and class logits scaled to a spread of about 2
    give a model whose predictions are meaningless but diverse: what the decode tests need.
    """
    gen = torch.Generator().manual_seed(SEED)
    probe = _probe_images(torch)
    with torch.no_grad():
        for module in net.modules():
            if (
                isinstance(module, torch.nn.Conv2d) and module.weight.requires_grad
            ):  # not the fixed DFL
                fan_in = module.weight[0].numel()
                module.weight.normal_(0, (1.0 / fan_in) ** 0.5, generator=gen)
            if isinstance(module, torch.nn.BatchNorm2d):
                module.momentum = None  # cumulative average over the calibration pass
                module.reset_running_stats()
        net.train()
        net(probe)
        net.eval()
        head = net.model[-1]
        # each branch's last convolution feeds the output alone, so one pass measures all nine
        finals = [
            (level[-1], spread, branch is head.cv3)
            for branch, spread in ((head.cv3, 1.5), (head.cv2, 1.0), (head.cv4, 1.0))
            for level in branch
        ]
        outputs: dict[int, object] = {}
        hooks = [
            final.register_forward_hook(lambda _m, _i, out, at=at: outputs.setdefault(at, out))
            for at, (final, _, _) in enumerate(finals)
        ]
        net(probe)
        for hook in hooks:
            hook.remove()
        for at, (final, spread, scores) in enumerate(finals):
            final.weight.mul_(spread / float(outputs[at].std()))
            if scores:
                final.bias.fill_(score_bias)
