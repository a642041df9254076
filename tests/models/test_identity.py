"""The identity network's training path, tiny: drawings from scenes -> train -> resume -> ONNX."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blitzcam.game.decks import DECK_NAMES
from blitzcam.models.identity_data import IdentityData, build, jitter_box, scene_samples
from blitzcam.vision.embedding import PATCH

FAMILIES = ("tool", "vessel")


@pytest.fixture(scope="module")
def drawings() -> IdentityData:
    return build(7, 6, FAMILIES, workers=1)


def test_drawings_come_with_their_designs_references(drawings: IdentityData) -> None:
    assert drawings.names[: len(DECK_NAMES)] == list(DECK_NAMES)
    assert drawings.queries.shape[1:] == (PATCH, PATCH, 3)
    assert len(drawings.query_owner) == len(drawings.queries)
    # every drawing's design has references, and random designs are named scene:slot
    assert set(drawings.query_owner) <= set(drawings.reference_owner)
    assert all(":" in name for name in drawings.names[len(DECK_NAMES):])
    assert len(drawings.names) > len(DECK_NAMES), "some scenes should hold random art"


def test_scene_samples_are_pure_in_their_arguments() -> None:
    a, b = scene_samples(7, 2, FAMILIES), scene_samples(7, 2, FAMILIES)
    np.testing.assert_array_equal(a.queries, b.queries)
    assert a.query_ids == b.query_ids
    assert a.references.keys() == b.references.keys()


def test_a_random_design_is_drawn_again_the_same_at_reference_size() -> None:
    from blitzcam.datasets.art import render_random_back
    from blitzcam.models.identity_data import RecordingArt, random_reference

    art = RecordingArt()
    rng = np.random.default_rng(5)
    small = art.random_back(rng, 64, "tool")
    state, family = art.random_designs[0]
    again = random_reference(state, family)
    twin = render_random_back(np.random.default_rng(5), width=again.rgba.shape[1], family="tool")
    np.testing.assert_array_equal(again.rgba, twin.rgba)
    assert small.rgba.shape[1] == 64


def test_jittered_boxes_stay_near_the_label() -> None:
    from blitzcam.models.metrics import polygon_iou

    label = np.float32([[140, 130], [100, 130], [100, 100], [140, 100]])
    rng = np.random.default_rng(0)
    ious = [polygon_iou(label, jitter_box(label, rng)) for _ in range(200)]
    assert 0.6 < np.median(ious) < 0.95  # detector-like: off, never far off
    assert min(ious) > 0.2


def test_concat_keeps_designs_apart_and_decks_shared(drawings: IdentityData) -> None:
    both = IdentityData.concat([drawings, drawings])
    n_random = len(drawings.names) - len(DECK_NAMES)
    assert len(both.names) == len(DECK_NAMES) + 2 * n_random
    second = both.query_owner[len(drawings.query_owner):]
    builtin = drawings.query_owner < len(DECK_NAMES)
    np.testing.assert_array_equal(second[builtin], drawings.query_owner[builtin])
    np.testing.assert_array_equal(second[~builtin], drawings.query_owner[~builtin] + n_random)


def test_save_and_load_round_trip(drawings: IdentityData, tmp_path: Path) -> None:
    drawings.save(tmp_path / "d.npz")
    again = IdentityData.load(tmp_path / "d.npz")
    assert again.names == drawings.names
    np.testing.assert_array_equal(again.references, drawings.references)


@pytest.mark.slow
def test_an_interrupted_run_resumes_to_the_same_network(drawings: IdentityData, tmp_path: Path) -> None:
    import torch

    from blitzcam.models.identity_training import IdentityRecipe, train

    recipe = replace(IdentityRecipe(), steps=4, designs_per_step=12, queries_per_design=2)
    whole = train(drawings, recipe, tmp_path / "whole", checkpoint_every=2, log=lambda _: None)

    class StoppedError(Exception):
        pass

    def stop_after_first_checkpoint(message: str) -> None:
        if message.startswith("step 2/"):
            raise StoppedError

    with pytest.raises(StoppedError):
        train(drawings, recipe, tmp_path / "cut", checkpoint_every=2, log=stop_after_first_checkpoint)
    assert torch.load(tmp_path / "cut" / "last.pt", weights_only=False)["step"] == 2
    messages: list[str] = []
    resumed = train(drawings, recipe, tmp_path / "cut", checkpoint_every=2, log=messages.append)
    assert messages[0] == "resumed at step 2"
    a = torch.load(whole, weights_only=False)["net"]
    b = torch.load(resumed, weights_only=False)["net"]
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-5, atol=1e-6, msg=name)


@pytest.mark.slow
def test_a_shipped_network_runs_in_onnx_runtime_like_in_torch(drawings: IdentityData,
                                                              tmp_path: Path) -> None:
    import torch

    from blitzcam.models.identity_training import IdentityRecipe, make_network, ship, train
    from blitzcam.vision.embedding import Embedder, network_input

    recipe = replace(IdentityRecipe(), steps=2, designs_per_step=12, queries_per_design=2)
    checkpoint = train(drawings, recipe, tmp_path / "run", log=lambda _: None)
    shipped = ship(checkpoint, tmp_path)
    assert {p.name for p in shipped.values()} == {"blitzcam-identity.pt", "blitzcam-identity.onnx"}
    state = torch.load(shipped["pt"], weights_only=False)
    assert set(state) == {"net", "recipe", "step"}  # weights only: no optimizer state shipped
    net = make_network(recipe)
    net.load_state_dict(state["net"])
    net.eval()
    patches = drawings.queries[:9]
    with torch.no_grad():
        expected = torch.nn.functional.normalize(net(torch.from_numpy(network_input(patches))))
    got = Embedder(shipped["onnx"], threads=1).embed(patches)
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-4)


def test_train_identity_bad_arguments_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from blitzcam.cli import main

    assert main(["train-identity", "--steps", "0"]) == 2
    err = capsys.readouterr().err
    assert "--steps must be a positive number, got 0" in err and err.count("\n") == 1
