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


def test_the_shipped_weights_record_is_of_the_shipped_weights_and_agrees_with_the_card() -> None:
    # a run going on from the shipped weights (`blitzcam train --from-shipped`) takes this
    # record as its finished stages: shipping other weights must update it
    from blitzcam.models.recipe import SHIPPED_STAGES, SHIPPED_WEIGHTS_SHA256

    pt = (MODELS / "blitzcam-obb.pt").read_bytes()
    assert hashlib.sha256(pt).hexdigest() == SHIPPED_WEIGHTS_SHA256
    made = (MODELS / "MODEL_CARD.md").read_text(encoding="utf-8").split("## Measured")[0]
    train, refine, extend = (SHIPPED_STAGES[name] for name in ("train", "refine", "extend"))
    assert f"epochs {train['epochs']} (completed: {train['epochs']})" in made
    assert f"{refine['epochs']} epochs (completed: {refine['epochs']})" in made
    assert f"measured epoch time: {extend['epochs']} epochs)" in made
    cpu_minutes = (train["seconds"] + refine["seconds"]) // 60
    assert f"Wall time of the other stages: {cpu_minutes} min on {train['device']}" in made
    assert train["device"] == refine["device"]
    assert f"`extend`: {extend['seconds'] // 60} min on {extend['device']}" in made
