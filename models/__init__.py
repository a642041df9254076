"""The shipped models (card detector, identity network): ONNX for inference, .pt for fine-tuning,
and their model card."""

from __future__ import annotations

from pathlib import Path
from typing import Final

MODELS_DIR: Final = Path(__file__).resolve().parent
DETECTOR_ONNX: Final = MODELS_DIR / "blitzcam-obb.onnx"
DETECTOR_INT8: Final = MODELS_DIR / "blitzcam-obb-int8.onnx"  # faster, a little less right
DETECTOR_PT: Final = MODELS_DIR / "blitzcam-obb.pt"
IDENTITY_ONNX: Final = MODELS_DIR / "blitzcam-identity.onnx"
IDENTITY_PT: Final = MODELS_DIR / "blitzcam-identity.pt"
MODEL_CARD: Final = MODELS_DIR / "MODEL_CARD.md"
