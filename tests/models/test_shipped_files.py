"""The model card tells the files in models/ as they are: each file's sha256 in its table."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_the_model_card_gives_each_shipped_files_sha256() -> None:
    # `blitzcam train` replaces the files and the card is written by another step: a new file
    # under an old card's sum is what this catches
    card = (MODELS / "MODEL_CARD.md").read_text(encoding="utf-8")
    stated = dict(re.findall(r"^\| `([\w.-]+)` \|.*\| `([0-9a-f]{64})` \|$", card, re.MULTILINE))
    shipped = sorted(p.name for p in MODELS.iterdir() if p.suffix in (".onnx", ".pt"))
    assert sorted(stated) == shipped
    for name, digest in stated.items():
        assert hashlib.sha256((MODELS / name).read_bytes()).hexdigest() == digest, name
