"""The identity network's checkpoints: saved whole or not at all, loaded weights-only (a .pt is
a pickle), resumed only with the recipe their steps used (`recipe_changes`), exported to ONNX
and shipped into models/ (the network and its export, as a pair).
"""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from blitzcam.models import IDENTITY_ONNX, IDENTITY_PT
from blitzcam.models.identity_network import IdentityRecipe, make_network
from blitzcam.vision.embedding import PATCH


def resumed_recipe(last: Path, given: dict[str, Any], default: IdentityRecipe) -> IdentityRecipe:
    """The recipe a run resumed from the checkpoint `last` goes on with: the one it was trained
    with, the options `given` over it. Before its first checkpoint, the one its `recipe.json`
    beside it says it was started with (the default where there is none that reads: `default`
    is that default with `given` over it). UserError when they change what its steps so far
    used."""
    if not last.is_file():
        try:
            saved = json.loads((last.parent / "recipe.json").read_text(encoding="utf-8"))
            return replace(recipe_from({"recipe": saved}), **given)
        except (OSError, ValueError, TypeError, AttributeError):
            return default
    state = load_checkpoint(last)
    recipe = replace(recipe_from(state), **given)
    _refuse_other_recipe(last, state, recipe)
    return recipe


# the options of `blitzcam train-identity` that set a recipe field, by the field: what a
# refusal names (a field's own name, `refine_builtin_augmented`, was no option to leave out)
OPTION_OF: Final[dict[str, str]] = {
    "data_seeds": "--data-seeds",
    "widths": "--widths",
    "wide_art": "--wide-art",
    "refine_builtin_augmented": "--refine-random-art-only",
    "late_scenes": "--late-scenes",
    "steps": "--steps",
    "reject_steps": "--reject-steps",
    "refine_steps": "--refine-steps",
    "negatives_per_step": "--negatives-per-step",
    "attract_weight": "--attract-weight",
    "ink_gain": "--ink-gain",
    "occluded_share": "--occluded-share",
    "faded_share": "--faded-share",
    "small_share": "--small-share",
}


def _refuse_other_recipe(last: Path, state: dict[str, Any], recipe: IdentityRecipe) -> None:
    """UserError when the checkpoint `last` (its `state`) was trained with a recipe that
    `recipe` changes as far as its steps used it."""
    from blitzcam.errors import UserError

    if changed := recipe_changes(state["recipe"], recipe, state["step"]):
        # (both sides as JSON writes them: a tuple and a list read alike)
        before = json.loads(json.dumps(_saved_recipe(state["recipe"])))
        now = json.loads(json.dumps(asdict(recipe)))
        said = "; ".join(
            f"{OPTION_OF.get(name, name)} {json.dumps(before.get(name))} there, "
            f"{json.dumps(now[name])} now"
            for name in changed
        )
        raise UserError(
            f"{last}: this checkpoint was trained with another recipe ({said}): leave those "
            "options out to go on with its own, or start a new run folder"
        )


# recipe fields only the reject stage reads; fields no training step reads, and those that only
# say where the drawings of no deck come from (the drawings themselves are fingerprinted)
SECOND_STAGE_FIELDS = ("reject_", "hard_", "mine_", "negative", "attract_")
THIRD_STAGE_FIELDS = ("refine_",)
NOT_COMPARED_FIELDS = ("val_seed", "val_scenes", "negative_seeds", "negative_scenes")


# fields added after runs were saved, with the value that keeps what those runs did: a saved
# recipe without one was trained before it existed (whatever the default is now)
BEFORE_ADDED: dict[str, Any] = {
    "ink_gain": 1.0,
    "occluded_share": 0.0,
    "faded_share": 0.0,
    "small_share": 0.0,
    "refine_steps": 0,
    "refine_reject_weight": None,
    "late_scenes": 0,
    "refine_small_share": 0.0,
    "wide_art": False,
}


def _saved_recipe(saved: dict[str, Any]) -> dict[str, Any]:
    """A saved recipe whole: missing fields as `BEFORE_ADDED` says, or else the defaults."""
    return {**asdict(IdentityRecipe()), **BEFORE_ADDED, **saved}


def recipe_changes(saved: dict[str, Any], recipe: IdentityRecipe, step: int) -> list[str]:
    """The fields in which `recipe` differs from the one a checkpoint at `step` was trained
    with, where that matters: the fields of every stage it has begun (a first stage may go on
    into any reject stage, a reject stage done into any refine stage). Fields the saved recipe
    lacks count as `BEFORE_ADDED` has them, or else as their current defaults."""
    now = json.loads(json.dumps(asdict(recipe)))  # tuples as lists, on both sides
    before = json.loads(json.dumps(_saved_recipe(saved)))
    in_second = step > recipe.steps or step > before["steps"]
    in_third = step > recipe.refine_from or step > before["steps"] + before["reject_steps"]
    return sorted(
        name
        for name in now
        if name not in NOT_COMPARED_FIELDS
        and (in_second or not name.startswith(SECOND_STAGE_FIELDS))
        and (in_third or not name.startswith(THIRD_STAGE_FIELDS))
        and now[name] != before.get(name)
    )


def _fingerprint(patches: np.ndarray | None) -> str | None:
    import hashlib

    return None if patches is None else hashlib.sha256(patches.tobytes()).hexdigest()[:16]


def _save_atomic(state: dict[str, Any], path: Path) -> None:
    """A checkpoint written whole or not at all: a run killed mid-save keeps the previous one."""
    import io

    import torch

    from blitzcam.files import write_bytes_atomic

    buffer = io.BytesIO()
    torch.save(state, buffer)
    write_bytes_atomic(path, buffer.getvalue())


def load_checkpoint(path: Path) -> dict[str, Any]:
    """A checkpoint of `train` (or a shipped .pt), loaded weights-only: a .pt is a pickle, and
    one planted in a run folder must not run code. UserError naming the file for one cut
    short, of another kind, or saved by a release that kept numpy arrays in it."""
    import torch

    from blitzcam.errors import UserError, library_reason

    # runs of earlier releases kept the mined designs as a numpy array of integers: a plain
    # array is allowed (rebuilt from its bytes and dtype; nothing of it is called)
    array = (np._core if hasattr(np, "_core") else np.core).multiarray._reconstruct
    plain = [array, np.ndarray, np.dtype, type(np.dtype(np.int64)), type(np.dtype(np.int32))]
    try:
        with torch.serialization.safe_globals(plain):
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a truncated zip, a foreign pickle: torch raises many kinds
        why = library_reason(exc, path)
        raise UserError(
            f"{path}: not an identity checkpoint blitzcam can load ({why}): start a new run "
            f"folder, or delete {path} to start its run over"
        ) from None
    if not isinstance(state, dict) or not {"net", "recipe", "step"} <= state.keys():
        raise UserError(f"{path}: not an identity checkpoint (no net, recipe and step in it)")
    return state


def recipe_from(state: dict[str, Any]) -> IdentityRecipe:
    """The recipe a checkpoint was trained with (JSON turns its tuples into lists)."""
    saved = _saved_recipe(state["recipe"])
    return IdentityRecipe(**{k: tuple(v) if isinstance(v, list) else v for k, v in saved.items()})


def export_onnx(checkpoint: Path, out: Path) -> Path:
    """The checkpoint's network as ONNX (any batch size), written atomically (the checkpoint
    read weights-only: `load_checkpoint`)."""
    return _export_state(load_checkpoint(checkpoint), out)


def _export_state(state: dict[str, Any], out: Path) -> Path:
    import tempfile

    import torch

    from blitzcam.files import copy_file_atomic

    net = make_network(recipe_from(state))
    net.load_state_dict(state["net"])
    net.eval()
    dummy = torch.zeros(2, 3, PATCH, PATCH)
    with tempfile.TemporaryDirectory() as tmp:
        exported = Path(tmp) / "identity.onnx"
        torch.onnx.export(
            net,
            dummy,
            str(exported),
            input_names=["patches"],
            output_names=["embedding"],
            dynamic_axes={"patches": {0: "n"}, "embedding": {0: "n"}},
            opset_version=17,
            dynamo=False,
        )
        copy_file_atomic(exported, out)
    return out


def ship(checkpoint: Path, models_dir: Path) -> dict[str, Path]:
    """The network, weights only (no optimizer state), and its ONNX export into models_dir
    (made if missing). A failed export leaves the files already there as they were."""
    from blitzcam.files import staged

    state = load_checkpoint(checkpoint)
    models_dir.mkdir(parents=True, exist_ok=True)
    pt, onnx = models_dir / IDENTITY_PT.name, models_dir / IDENTITY_ONNX.name
    with staged(onnx) as onnx_staged:  # the export can fail: the pair is replaced once it is built
        _export_state(state, onnx_staged)
        _save_atomic({"net": state["net"], "recipe": state["recipe"], "step": state["step"]}, pt)
    return {"pt": pt, "onnx": onnx}
