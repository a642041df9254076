"""Two identity networks as one: an ONNX file the counting path can run (`--identity-model`,
BLITZCAM_IDENTITY_MODEL), whose likeness between two drawings is the mean of the two networks'
(each network's vector made unit length, the two joined side by side; `Embedder.embed` makes
the joined vector unit length again, so that its cosine is the mean of the two cosines).

Tried at stop 45 with the shipped network and its refine on a big game's late rounds
(`scripts/identity_refine_late.py`): the refine alone read the late rounds better and the eight
decks' own drawings worse; the pair passed every criterion on the choice sets, then counted one
held-out scene of 400 fewer exactly in each mode (and one more of the late rounds and of the
enrolled art), so it is not shipped (MODEL_CARD.md, "two networks as one", has the figures).

    python -m blitzcam.models.identity_pair FIRST.pt SECOND.pt --out DIR

exports both checkpoints and writes their pair as DIR/blitzcam-identity.onnx.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

FIRST, SECOND = "a_", "b_"  # the two networks' node names are prefixed, so that none clash
INPUT, OUTPUT = "patches", "embedding"  # as `identity_training._export_state` names them


def join_networks(first: Path, second: Path, out: Path) -> Path:
    """The ONNX networks `first` and `second` (each n×3×S×S patches -> n×dim vectors, as
    exported by `identity_training`) as one network giving both vectors, each unit length,
    side by side (n×(dim1 + dim2)); written atomically to `out`."""
    import onnx
    from onnx import compose, helper

    from blitzcam.files import write_bytes_atomic

    prefixes = (FIRST, SECOND)
    models = [compose.add_prefix(onnx.load(path), prefix)
              for path, prefix in zip((first, second), prefixes, strict=True)]  # fmt: skip
    for model, path, prefix in zip(models, (first, second), prefixes, strict=True):
        names = ([i.name for i in model.graph.input], [o.name for o in model.graph.output])
        if names != ([prefix + INPUT], [prefix + OUTPUT]):
            raise ValueError(f"{path}: not an identity network export (inputs, outputs {names})")
    nodes = []
    for model, prefix in zip(models, prefixes, strict=True):
        for node in model.graph.node:  # both read the one input
            node.input[:] = [INPUT if name == prefix + INPUT else name for name in node.input]
            nodes.append(node)
    units = [f"{prefix}unit" for prefix in prefixes]
    nodes += [
        helper.make_node("LpNormalization", [prefix + OUTPUT], [unit], axis=1, p=2)
        for prefix, unit in zip(prefixes, units, strict=True)
    ]
    nodes.append(helper.make_node("Concat", units, [OUTPUT], axis=1))
    dims = [_vector_size(model) for model in models]
    patches = onnx.ValueInfoProto()
    patches.CopyFrom(models[0].graph.input[0])
    patches.name = INPUT
    graph = helper.make_graph(
        nodes,
        "blitzcam identity pair",
        [patches],
        [helper.make_tensor_value_info(OUTPUT, onnx.TensorProto.FLOAT, ["n", sum(dims)])],
        initializer=[*models[0].graph.initializer, *models[1].graph.initializer],
    )
    joined = helper.make_model(graph, opset_imports=list(models[0].opset_import))
    joined.ir_version = models[0].ir_version
    onnx.checker.check_model(joined)
    write_bytes_atomic(out, joined.SerializeToString())
    return out


def _vector_size(model: object) -> int:
    dims = model.graph.output[0].type.tensor_type.shape.dim  # type: ignore[attr-defined]
    if len(dims) != 2 or not dims[1].dim_value:
        raise ValueError("an identity network gives n×dim vectors of a fixed dim")
    return int(dims[1].dim_value)


def pair_from_checkpoints(first: Path, second: Path, out: Path) -> Path:
    """Both checkpoints exported (`identity_training.export_onnx`) and joined into `out`."""
    from blitzcam.models.identity_training import export_onnx

    with tempfile.TemporaryDirectory() as tmp:
        one = export_onnx(first, Path(tmp) / "first.onnx")
        two = export_onnx(second, Path(tmp) / "second.onnx")
        return join_networks(one, two, out)


def main(argv: list[str] | None = None) -> None:
    from blitzcam.models import IDENTITY_ONNX

    parser = argparse.ArgumentParser(description="two identity checkpoints as one ONNX pair")
    parser.add_argument("first", type=Path, help="the identity network's .pt")
    parser.add_argument("second", type=Path, help="the second network's .pt")
    parser.add_argument("--out", type=Path, required=True, help="folder to write it into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"wrote {pair_from_checkpoints(args.first, args.second, args.out / IDENTITY_ONNX.name)}")


if __name__ == "__main__":
    main()
