"""Several identity networks as one: an ONNX file the counting path runs like a single network
(`Embedder`; `--identity-model`, BLITZCAM_IDENTITY_MODEL), whose likeness between two drawings
is the mean of the networks' likenesses, lifted back to one network's scale.

Each network's vector is made unit length and the k of them are joined side by side, with a
constant component after them; `Embedder.embed` makes the whole unit length again, so that the
cosine of two drawings is `lift * mean + (1 - lift)` (the constant's square is
k (1 - lift) / lift). Networks that disagree give averaged cosines lower than any one of them,
and the lines counting draws (`vision/identify.py`: 0.6 to a deck, 0.7 to group drawings, ...)
were chosen for one network: with the three networks of stops 49-50 averaged plainly, more
built-in backs fell under the unknown line on fresh scenes. `fitted_lift` finds the lift that
brings the averaged similarities nearest the first network's alone, on drawings of scenes that
no scene set uses, of the training families only (least squares through (1, 1), over each
drawing's similarity to its own design and its best to another design).

    python -m blitzcam.models.identity_average FIRST.pt SECOND.pt [MORE.pt ...] --out DIR
        [--lift L | --fit-seed 13 --fit-scenes 200]

exports the checkpoints and writes them joined as DIR/blitzcam-identity.onnx (the first is the
one whose scale the lift is fitted to). MODEL_CARD.md says which networks the shipped file
joins and what it measured; stop 45's pair (two networks, no lift) was not shipped.
"""

from __future__ import annotations

import argparse
import math
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

INPUT, OUTPUT = "patches", "embedding"  # as `identity_checkpoint._export_state` names them
NETWORKS_KEY, LIFT_KEY = "blitzcam.networks", "blitzcam.lift"  # the joined file's metadata
FIT_SEED, FIT_SCENES = 13, 200  # scenes no scene set uses (MODEL_CARD.md lists the seeds)


def _prefix(i: int) -> str:
    return f"n{i}_"  # each network's node names are prefixed, so that none clash


def lift_constant(networks: int, lift: float) -> float:
    """The constant component that makes the joined vectors' cosine lift * mean + (1 - lift)."""
    if not 0 < lift <= 1:
        raise ValueError(f"lift {lift}: must be in (0, 1]")
    return math.sqrt(networks * (1 - lift) / lift)


def join_networks(networks: Sequence[Path], out: Path, *, lift: float = 1.0) -> Path:
    """The ONNX identity networks (each n×3×S×S patches -> n×dim vectors, as exported by
    `identity_checkpoint`) as one network giving every vector, each unit length, side by side,
    then (lift under 1) the constant component: n×(dim1 + ... + 1); written atomically."""
    import onnx
    from onnx import compose, helper

    from blitzcam.files import write_bytes_atomic

    if len(networks) < 2:
        raise ValueError(f"{len(networks)} network(s): joining needs two or more")
    constant = lift_constant(len(networks), lift)
    prefixes = [_prefix(i) for i in range(len(networks))]
    models = [compose.add_prefix(onnx.load(path), prefix)
              for path, prefix in zip(networks, prefixes, strict=True)]  # fmt: skip
    for model, path, prefix in zip(models, networks, prefixes, strict=True):
        names = ([i.name for i in model.graph.input], [o.name for o in model.graph.output])
        if names != ([prefix + INPUT], [prefix + OUTPUT]):
            raise ValueError(f"{path}: not an identity network export (inputs, outputs {names})")
    nodes = []
    for model, prefix in zip(models, prefixes, strict=True):
        for node in model.graph.node:  # all read the one input
            node.input[:] = [INPUT if name == prefix + INPUT else name for name in node.input]
            nodes.append(node)
    parts = [f"{prefix}unit" for prefix in prefixes]
    nodes += [
        helper.make_node("LpNormalization", [prefix + OUTPUT], [unit], axis=1, p=2)
        for prefix, unit in zip(prefixes, parts, strict=True)
    ]
    initializers = [init for model in models for init in model.graph.initializer]
    if constant > 0:  # an n×1 column of it, n read from the input
        nodes += [
            helper.make_node("Shape", [INPUT], ["lift_shape"], start=0, end=1),
            helper.make_node("Concat", ["lift_shape", "lift_one"], ["lift_column_shape"], axis=0),
            helper.make_node(
                "ConstantOfShape",
                ["lift_column_shape"],
                ["lift_column"],
                value=helper.make_tensor("value", onnx.TensorProto.FLOAT, [1], [constant]),
            ),
        ]
        initializers.append(helper.make_tensor("lift_one", onnx.TensorProto.INT64, [1], [1]))
        parts.append("lift_column")
    nodes.append(helper.make_node("Concat", parts, [OUTPUT], axis=1))
    size = sum(_vector_size(model) for model in models) + (constant > 0)
    patches = onnx.ValueInfoProto()
    patches.CopyFrom(models[0].graph.input[0])
    patches.name = INPUT
    graph = helper.make_graph(
        nodes,
        f"blitzcam identity networks averaged ({len(networks)}, lift {lift})",
        [patches],
        [helper.make_tensor_value_info(OUTPUT, onnx.TensorProto.FLOAT, ["n", size])],
        initializer=initializers,
    )
    joined = helper.make_model(graph, opset_imports=list(models[0].opset_import))
    joined.ir_version = models[0].ir_version
    onnx.helper.set_model_props(joined, {NETWORKS_KEY: str(len(networks)), LIFT_KEY: repr(lift)})
    onnx.checker.check_model(joined)
    write_bytes_atomic(out, joined.SerializeToString())
    return out


def joined_metadata(path: Path) -> tuple[int, float]:
    """How many identity networks the ONNX file at `path` runs and the lift their averaged
    likeness is given: its `join_networks` metadata, or (1, 1.0) for a network exported alone."""
    import onnx

    props = {p.key: p.value for p in onnx.load(str(path), load_external_data=False).metadata_props}
    return int(props.get(NETWORKS_KEY, 1)), float(props.get(LIFT_KEY, 1.0))


def networks_joined(path: Path) -> int:
    """How many identity networks the ONNX file at `path` runs (1 for a network alone)."""
    return joined_metadata(path)[0]


def join_again_hint(models_dir: Path, networks: int) -> str:
    """What to tell someone whose new network just replaced a file that joined `networks`."""
    return (
        f"{models_dir / 'blitzcam-identity.onnx'} joined {networks} networks and is now this "
        "one alone; to join them again (MODEL_CARD.md names the others): python -m "
        "blitzcam.models.identity_average FIRST.pt SECOND.pt ... --out "
        f"{models_dir}"
    )


def _vector_size(model: object) -> int:
    dims = model.graph.output[0].type.tensor_type.shape.dim  # type: ignore[attr-defined]
    if len(dims) != 2 or not dims[1].dim_value:
        raise ValueError("an identity network gives n×dim vectors of a fixed dim")
    return int(dims[1].dim_value)


def fitted_lift(averaged: np.ndarray, alone: np.ndarray) -> float:
    """The lift for which lift * averaged + (1 - lift) is nearest `alone` (least squares
    through (1, 1)), given the same pairs' cosines both ways."""
    x, y = np.asarray(averaged, np.float64) - 1, np.asarray(alone, np.float64) - 1
    return float((x * y).sum() / (x * x).sum())


def own_and_best_other(vectors: np.ndarray, references: Any, owner: np.ndarray) -> np.ndarray:
    """Each drawing's cosine to its own design and its best to any other design (nearest
    reference over quarter turns, as `identify` reads them), stacked."""
    from blitzcam.vision.embedding import deck_similarity

    sims = deck_similarity(vectors, references, int(references.owners.max()) + 1)
    rows = np.arange(len(owner))
    own = sims[rows, owner].copy()
    sims[rows, owner] = -np.inf
    return np.concatenate([own, sims.max(axis=1)])


def lift_on(
    first: Callable[[np.ndarray], np.ndarray],
    averaged: Callable[[np.ndarray], np.ndarray],
    data: Any,
) -> float:
    """The lift that brings `averaged`'s similarities (no lift) to `first`'s, on `data`'s
    drawings (IdentityData)."""
    from blitzcam.vision.embedding import reference_vectors

    readings = []
    for embed in (averaged, first):
        refs = reference_vectors(embed, data.references, data.reference_owner)
        readings.append(own_and_best_other(embed(data.queries), refs, data.query_owner))
    return fitted_lift(*readings)


def fit_drawings(seed: int, scenes: int, cache: Path | None = None) -> Any:
    """Drawings cut from scenes 0..scenes-1 of `seed`, random art of the training families
    only (IdentityData), read from `cache` when there, saved there otherwise."""
    from blitzcam.datasets.art import HOLDOUT_FAMILY, RANDOM_FAMILIES
    from blitzcam.models.identity_data import IdentityData, build

    if cache is not None and cache.is_file():
        return IdentityData.load(cache)
    families = tuple(f for f in RANDOM_FAMILIES if f != HOLDOUT_FAMILY)
    data = build(seed, scenes, families, workers=2)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        data.save(cache)
    return data


def average_from_checkpoints(
    checkpoints: Sequence[Path], out: Path, *, lift: float | None = None, fit_data: Any = None
) -> tuple[Path, float]:
    """The checkpoints exported (`identity_checkpoint.export_onnx`) and joined into `out`, with
    `lift`, or (None) the lift fitted on `fit_data` to the first network's scale."""
    from blitzcam.models.identity_checkpoint import export_onnx
    from blitzcam.vision.embedding import Embedder

    if lift is None and fit_data is None:
        raise ValueError("give the lift, or the drawings to fit it on")
    with tempfile.TemporaryDirectory() as tmp:
        exports = [export_onnx(pt, Path(tmp) / f"{i}.onnx") for i, pt in enumerate(checkpoints)]
        if lift is None:
            plain = join_networks(exports, Path(tmp) / "plain.onnx")
            lift = lift_on(Embedder(exports[0]).embed, Embedder(plain).embed, fit_data)
        return join_networks(exports, out, lift=lift), lift


def main(argv: list[str] | None = None) -> None:
    from blitzcam.models import IDENTITY_ONNX

    parser = argparse.ArgumentParser(description="identity checkpoints averaged as one ONNX")
    parser.add_argument("checkpoints", type=Path, nargs="+", help="the networks' .pt files")
    parser.add_argument("--out", type=Path, required=True, help="folder to write it into")
    parser.add_argument("--lift", type=float, default=None, help="given, not fitted")
    parser.add_argument("--fit-seed", type=int, default=FIT_SEED)
    parser.add_argument("--fit-scenes", type=int, default=FIT_SCENES)
    parser.add_argument(
        "--fit-cache", type=Path, default=None, help="where the fit's drawings are kept (.npz)"
    )
    args = parser.parse_args(argv)
    if len(args.checkpoints) < 2:
        parser.error("give two or more checkpoints")
    if args.lift is not None and not 0 < args.lift <= 1:
        parser.error(f"--lift {args.lift}: must be in (0, 1]")
    fit_data = None
    if args.lift is None:
        fit_data = fit_drawings(args.fit_seed, args.fit_scenes, args.fit_cache)
    args.out.mkdir(parents=True, exist_ok=True)
    out, lift = average_from_checkpoints(
        args.checkpoints, args.out / IDENTITY_ONNX.name, lift=args.lift, fit_data=fit_data
    )
    print(f"wrote {out} ({len(args.checkpoints)} networks, lift {lift:.4f})")


if __name__ == "__main__":
    main()
