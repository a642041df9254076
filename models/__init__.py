"""The shipped card detector: ONNX for inference, .pt for fine-tuning, and its model card."""

from __future__ import annotations

from pathlib import Path
from typing import Final

MODELS_DIR: Final = Path(__file__).resolve().parent
DETECTOR_ONNX: Final = MODELS_DIR / "blitzcam-obb.onnx"
DETECTOR_PT: Final = MODELS_DIR / "blitzcam-obb.pt"
MODEL_CARD: Final = MODELS_DIR / "MODEL_CARD.md"
