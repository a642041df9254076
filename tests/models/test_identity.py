"""The identity network's training path, tiny: drawings from scenes -> train -> resume -> ONNX."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blitzcam.game.decks import DECK_NAMES
from blitzcam.models.identity_data import IdentityData, build, jitter_box, scene_samples
from blitzcam.vision.embedding import PATCH
from tests.models.planted import Planted, was_run

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


def test_drawings_can_be_cut_from_a_big_game_s_late_rounds() -> None:
    # six to eight decks of small cards (`SceneConfig.late_round`): where the shipped network
    # loses most (model card, "Late rounds of a big game")
    usual = [scene_samples(7, i, FAMILIES) for i in range(3)]
    late = [scene_samples(7, i, FAMILIES, late_round=True) for i in range(3)]
    assert all(len(set(s.query_ids)) >= 6 for s in late)  # one id a deck
    assert sum(len(s.queries) for s in late) > 2 * sum(len(s.queries) for s in usual)
    again = build(7, 2, FAMILIES, late_round=True)
    assert again.queries.shape == (sum(len(s.queries) for s in late[:2]), PATCH, PATCH, 3)


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
    from blitzcam.vision.polygons import polygon_iou

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



@pytest.mark.parametrize("damage", ["cut", "garbage", "a field gone"])
def test_a_damaged_drawings_file_is_one_error_naming_it(
    drawings: IdentityData, tmp_path: Path, damage: str
) -> None:
    # (a truncated drawings file stopped train-identity with a BadZipFile traceback)
    from blitzcam.errors import UserError

    path = tmp_path / "d.npz"
    drawings.save(path)
    if damage == "cut":
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "garbage":
        path.write_bytes(b"not drawings at all")
    else:
        np.savez(path, names=np.array(drawings.names))
    with pytest.raises(UserError, match=rf"^{re.escape(str(path))}: cannot be read as cut drawings"):
        IdentityData.load(path)

def _tiny(**changes: object) -> object:
    from blitzcam.models.identity_network import IdentityRecipe

    tiny = {
        "steps": 4,
        "reject_steps": 0,
        "refine_steps": 0,
        "designs_per_step": 12,
        "queries_per_design": 2,
    }
    return replace(IdentityRecipe(), **{**tiny, **changes})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("recipe_changes", "cut_at", "with_negatives"),
    [
        ({}, 2, False),
        # into the reject stage: cut in stage 1, and cut in stage 2 between two minings
        ({"reject_steps": 4, "mine_every": 2, "hard_pool": 4}, 2, False),
        ({"reject_steps": 6, "mine_every": 4, "hard_pool": 4}, 6, False),
        # drawings of no deck in the reject stage
        ({"reject_steps": 6, "mine_every": 4, "hard_pool": 4, "negatives_per_step": 5}, 6, True),
        # occluded and faded drawings (their own random stream), through the ink-gain layer
        ({"ink_gain": 3.0, "occluded_share": 0.5, "faded_share": 0.5}, 2, False),
        # into the refine stage, cut between two minings of it
        (
            {"reject_steps": 2, "refine_steps": 4, "mine_every": 2, "hard_pool": 4,
             "refine_occluded_share": 0.5, "refine_faded_share": 0.5},
            8,
            False,
        ),
    ],
)
def test_an_interrupted_run_resumes_to_the_same_network(
    drawings: IdentityData,
    tmp_path: Path,
    recipe_changes: dict[str, int],
    cut_at: int,
    with_negatives: bool,
) -> None:
    import torch

    from blitzcam.models.identity_training import train
    from blitzcam.models.run_timing import train_seconds

    recipe = _tiny(**recipe_changes)
    negatives = drawings.queries[::-3][:8] if with_negatives else None

    def run(folder: str, log: object) -> Path:
        return train(
            drawings, recipe, tmp_path / folder, negatives=negatives, checkpoint_every=2, log=log
        )

    whole = run("whole", lambda _: None)

    class StoppedError(Exception):
        pass

    def stop_at_cut(message: str) -> None:
        if message.startswith(f"step {cut_at}/"):
            raise StoppedError

    with pytest.raises(StoppedError):
        run("cut", stop_at_cut)
    assert torch.load(tmp_path / "cut" / "last.pt", weights_only=False)["step"] == cut_at
    stopped_after = train_seconds(tmp_path / "cut")
    assert stopped_after > 0  # the stopped session's time was kept with its checkpoint
    messages: list[str] = []
    resumed = run("cut", messages.append)
    assert messages[0] == f"resumed at step {cut_at}"
    assert train_seconds(tmp_path / "cut") > stopped_after
    a = torch.load(whole, weights_only=False)
    b = torch.load(resumed, weights_only=False)
    assert a["step"] == b["step"] == recipe.total_steps
    for name in a["net"]:
        torch.testing.assert_close(a["net"][name], b["net"][name], rtol=1e-5, atol=1e-6, msg=name)


REFINING = {"reject_steps": 2, "refine_steps": 4, "mine_every": 2, "hard_pool": 4,
            "refine_occluded_share": 0.5, "refine_faded_share": 0.5}  # fmt: skip


@pytest.mark.slow
def test_the_refine_stage_begins_from_weights_alone_as_an_unbroken_run_does(
    drawings: IdentityData, tmp_path: Path
) -> None:
    import torch

    from blitzcam.models.identity_checkpoint import ship
    from blitzcam.models.identity_training import train

    recipe = _tiny(**REFINING)
    whole = torch.load(train(drawings, recipe, tmp_path / "whole", log=lambda _: None),
                       weights_only=False)  # fmt: skip
    # the same run without its refine stage, shipped (weights, recipe and step only) ...
    before = train(drawings, replace(recipe, refine_steps=0), tmp_path / "before",
                   log=lambda _: None)  # fmt: skip
    shipped = ship(before, tmp_path / "models")["pt"]
    assert set(torch.load(shipped, weights_only=False)) == {"net", "recipe", "step"}
    # ... then refined from those weights in a folder of its own
    (tmp_path / "refined").mkdir()
    (tmp_path / "refined" / "last.pt").write_bytes(shipped.read_bytes())
    messages: list[str] = []
    refined = torch.load(train(drawings, recipe, tmp_path / "refined", log=messages.append),
                         weights_only=False)  # fmt: skip
    assert messages[0] == f"resumed at step {recipe.refine_from}"
    assert refined["step"] == whole["step"] == recipe.total_steps
    for name in whole["net"]:
        torch.testing.assert_close(whole["net"][name], refined["net"][name], rtol=1e-5,
                                   atol=1e-6, msg=name)  # fmt: skip
    # the refine stage changed the weights
    plain = torch.load(shipped, weights_only=False)["net"]
    assert any(not torch.equal(plain[name], whole["net"][name]) for name in plain)


def test_weights_alone_begin_only_the_refine_stage(drawings: IdentityData, tmp_path: Path) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models.identity_checkpoint import ship
    from blitzcam.models.identity_training import train

    recipe = _tiny(**REFINING)
    first = train(drawings, _tiny(), tmp_path / "first", log=lambda _: None)  # 4 steps, stage 1
    shipped = ship(first, tmp_path / "models")["pt"]
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "last.pt").write_bytes(shipped.read_bytes())
    with pytest.raises(UserError, match=r"carry no training state; only the refine stage can "
                                        r"begin from weights alone, at step 6"):  # fmt: skip
        train(drawings, recipe, tmp_path / "run", log=lambda _: None)


def test_a_refine_step_fades_and_crosses_at_its_own_shares(drawings: IdentityData) -> None:
    from blitzcam.models.identity_training import Sampler

    recipe = _tiny(refine_occluded_share=0.5, refine_faded_share=0.5)

    def step(refine: bool) -> np.ndarray:
        return Sampler(drawings, recipe, np.random.default_rng(0)).step(refine=refine)[0]

    plain, refined = step(False), step(True)
    # the same designs and drawings, some of them now faded or crossed
    assert plain.shape == refined.shape and not np.array_equal(plain, refined)
    assert np.array_equal(step(True), refined)
    same = [np.array_equal(a, b) for a, b in zip(plain, refined, strict=True)]
    assert 0 < sum(same) < len(same)


def test_a_refine_step_can_leave_the_decks_drawings_as_they_are(drawings: IdentityData) -> None:
    from blitzcam.models.identity_training import Sampler

    recipe = _tiny(refine_occluded_share=0.5, refine_faded_share=0.5,
                   refine_builtin_augmented=False)  # fmt: skip
    plain, labels, _ = Sampler(drawings, recipe, np.random.default_rng(0)).step()
    refined, same_labels, _ = Sampler(drawings, recipe, np.random.default_rng(0)).step(refine=True)
    assert np.array_equal(labels, same_labels)
    decks = labels < len(DECK_NAMES)
    assert decks.any() and np.array_equal(plain[decks], refined[decks])
    assert not np.array_equal(plain[~decks], refined[~decks])


def test_rejection_loss_pushes_only_random_drawings_over_the_line() -> None:
    import torch

    from blitzcam.models.identity_training import rejection_loss

    # columns: 2 built-in decks, then 1 random design; rows: two built-in drawings, two random
    sims = torch.tensor(
        [[0.9, 0.7, 0.1], [0.2, 0.95, 0.5], [0.3, 0.1, 0.9], [0.6, 0.5, 0.8]], requires_grad=True
    )
    labels = torch.tensor([0, 1, 2, 2])
    loss = rejection_loss(sims, labels, n_builtin=2, line=0.4)
    # only the last drawing reaches over 0.4, by 0.2 and 0.1; averaged over both random drawings
    assert float(loss) == pytest.approx((0.2 + 0.1) / 2)
    loss.backward()
    grad = sims.grad.numpy()
    assert np.all(grad[:3] == 0) and np.all(grad[3, :2] > 0) and grad[3, 2] == 0
    none_random = rejection_loss(sims[:2], labels[:2], n_builtin=2, line=0.4)
    assert float(none_random) == 0.0


def test_attraction_pulls_each_drawing_up_to_its_own_design_only() -> None:
    import torch

    from blitzcam.models.identity_training import attraction_loss

    # rows: a drawing already over the line, one under it by 0.3, one of no deck
    sims = torch.tensor([[0.9, 0.2], [0.1, 0.5], [0.0, 0.1]], requires_grad=True)
    labels = torch.tensor([0, 1, -1])
    loss = attraction_loss(sims, labels, line=0.8)
    assert float(loss) == pytest.approx(0.3 / 2)  # averaged over the two drawings of a design
    loss.backward()
    grad = sims.grad.numpy()
    assert grad[1, 1] < 0  # descending it raises that drawing's similarity to its own design
    grad[1, 1] = 0
    assert np.all(grad == 0)  # nothing else moves: other designs, the satisfied one, no deck
    nothing = attraction_loss(sims[2:], labels[2:], line=0.8)
    assert float(nothing) == 0.0


def test_drawings_of_no_deck_are_pushed_under_the_line_to_every_design() -> None:
    import torch

    from blitzcam.models.identity_training import rejection_loss

    # columns: 2 built-in decks, 1 random design; rows: a random drawing, a drawing of no deck
    sims = torch.tensor([[0.6, 0.1, 0.9], [0.5, 0.2, 0.7]], requires_grad=True)
    labels = torch.tensor([2, -1])
    loss = rejection_loss(sims, labels, n_builtin=2, line=0.4, negative_weight=0.5)
    # the random drawing reaches over only to the first deck (0.2; its own design is not held
    # down); the drawing of no deck to the first deck and the random design (0.1 + 0.3);
    # each kind averaged on its own, the second weighted
    assert float(loss) == pytest.approx(0.2 + 0.5 * (0.1 + 0.3))
    loss.backward()
    grad = sims.grad.numpy()
    assert grad[0, 0] > 0 and grad[0, 1] == 0  # under the line (0.1): not pushed
    assert grad[0, 2] == 0  # its own design: not pushed
    assert grad[1, 0] > 0 and grad[1, 2] > 0 and grad[1, 1] == 0  # every design over the line
    # adding drawings of no deck leaves the random drawings' term as it was
    alone = rejection_loss(sims[:1].detach(), labels[:1], n_builtin=2, line=0.4)
    assert float(alone) == pytest.approx(0.2)


def test_a_reject_step_draws_its_negatives_turned_from_their_own_stream() -> None:
    from blitzcam.models.identity_training import Sampler

    drawings = _noise_drawings(4)
    negatives = drawings.queries[:5]
    recipe = _tiny(negatives_per_step=7, reject_steps=2)
    plain = Sampler(drawings, recipe, np.random.default_rng(2))
    assert plain.negative_step().shape == (0, PATCH, PATCH, 3)
    sampler = Sampler(drawings, recipe, np.random.default_rng(2), negatives)
    before = sampler.rng.bit_generator.state
    step = sampler.negative_step()
    assert sampler.rng.bit_generator.state == before  # designs and drawings: picked as before
    replay = np.random.default_rng(np.random.SeedSequence([recipe.seed, 1]))
    pick = replay.choice(5, 7)
    turns = replay.integers(0, 4, 7)
    expected = np.stack([np.rot90(negatives[i], k) for i, k in zip(pick, turns, strict=True)])
    np.testing.assert_array_equal(step, expected)
    assert any(k % 4 for k in turns)  # some really turned
    with pytest.raises(ValueError, match="no drawings of no deck"):
        Sampler(drawings, recipe, np.random.default_rng(2), negatives[:0])


def test_occluded_and_faded_drawings_come_from_their_own_stream() -> None:
    from blitzcam.models.identity_training import Sampler

    drawings = _noise_drawings(6)
    plain = Sampler(drawings, _tiny(), np.random.default_rng(2))
    shown = Sampler(
        drawings, _tiny(occluded_share=0.5, faded_share=0.5), np.random.default_rng(2)
    )
    (q0, l0, r0), (q1, l1, r1) = plain.step(), shown.step()
    # the same designs, drawings, turns and references: only what is drawn over them differs
    np.testing.assert_array_equal(l0, l1)
    np.testing.assert_array_equal(r0, r1)
    altered = np.any(q0 != q1, axis=(1, 2, 3))
    assert 0 < altered.mean() < 1
    assert plain.rng.bit_generator.state == shown.rng.bit_generator.state


@pytest.mark.slow
def test_negatives_change_the_reject_stage_and_a_checkpoint_resumes_only_with_its_own(
    drawings: IdentityData, tmp_path: Path
) -> None:
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.identity_training import train

    recipe = _tiny(reject_steps=2, mine_every=2, hard_pool=4, negatives_per_step=5)
    negatives = drawings.queries[::-3][:8]
    with_them = train(drawings, recipe, tmp_path / "a", negatives=negatives, log=lambda _: None)
    without = train(
        drawings, replace(recipe, negatives_per_step=0), tmp_path / "b", log=lambda _: None
    )
    a = torch.load(with_them, weights_only=False)["net"]
    b = torch.load(without, weights_only=False)["net"]
    assert any(not torch.equal(a[name], b[name]) for name in a)
    with pytest.raises(UserError, match="other drawings of no deck"):
        train(drawings, recipe, tmp_path / "a", negatives=negatives[1:], log=lambda _: None)
    # a first stage trained without them goes on into a reject stage with them
    first_stage = replace(recipe, reject_steps=0, negatives_per_step=0)
    train(drawings, first_stage, tmp_path / "d", log=lambda _: None)
    messages: list[str] = []
    train(drawings, recipe, tmp_path / "d", negatives=negatives, log=messages.append)
    assert messages[0] == f"resumed at step {recipe.steps}"
    with pytest.raises(ValueError, match="no drawings of no deck"):
        train(drawings, recipe, tmp_path / "c", log=lambda _: None)


def test_the_attraction_term_changes_only_the_reject_stage(
    drawings: IdentityData, tmp_path: Path
) -> None:
    import torch

    from blitzcam.models.identity_training import train

    def weights(folder: str, **changes: object) -> dict:
        recipe = _tiny(**{"reject_steps": 2, "mine_every": 2, "hard_pool": 4, **changes})
        return torch.load(train(drawings, recipe, tmp_path / folder, log=lambda _: None),
                          weights_only=False)["net"]

    plain, pulled = weights("plain"), weights("pulled", attract_weight=1.0)
    assert any(not torch.equal(plain[name], pulled[name]) for name in plain)
    # with no reject stage, the weight is not used at all
    first_only = weights("first", reject_steps=0)
    first_pulled = weights("first-pulled", reject_steps=0, attract_weight=1.0)
    assert all(torch.equal(first_only[name], first_pulled[name]) for name in first_only)


def test_a_checkpoint_resumes_only_with_the_recipe_it_was_trained_with(
    drawings: IdentityData, tmp_path: Path
) -> None:
    from blitzcam.errors import UserError
    from blitzcam.models.identity_training import train

    first = _tiny()  # 4 steps, no reject stage
    train(drawings, first, tmp_path / "run", log=lambda _: None)
    # a first stage goes on into any reject stage ...
    second = replace(first, reject_steps=2, mine_every=2, hard_pool=4, attract_weight=1.0)
    messages: list[str] = []
    train(drawings, second, tmp_path / "run", log=messages.append)
    assert messages[0] == f"resumed at step {first.steps}"
    # ... but once that has begun, or for a first-stage field, the recipe must be the same
    for changed, field in ((replace(second, attract_weight=0.5), "--attract-weight"),
                           (replace(second, lr=1e-4), "lr")):
        with pytest.raises(UserError, match=rf"another recipe \({field} "):
            train(drawings, changed, tmp_path / "run", log=lambda _: None)
    train(drawings, replace(first, lr=1e-4), tmp_path / "fresh", log=lambda _: None)
    with pytest.raises(UserError, match=r"another recipe \(lr 0\.0001 there, 0\.003 now\)"):
        train(drawings, second, tmp_path / "fresh", log=lambda _: None)
    # where validation drawings come from is no part of the weights
    train(drawings, replace(second, val_seed=99), tmp_path / "run", log=lambda _: None)


def test_a_resume_goes_on_with_the_checkpoint_s_recipe_and_the_options_given_over_it(
    drawings: IdentityData, tmp_path: Path
) -> None:
    # (a --resume had to repeat every option the run was started with, unsaid which)
    from blitzcam.errors import UserError
    from blitzcam.models.identity_checkpoint import resumed_recipe
    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import train

    first = _tiny()
    train(drawings, first, tmp_path / "run", log=lambda _: None)
    last = tmp_path / "run" / "last.pt"
    default = IdentityRecipe()
    assert resumed_recipe(last, {}, default) == first
    more = resumed_recipe(last, {"reject_steps": 2}, default)
    assert more == replace(first, reject_steps=2)
    with pytest.raises(UserError, match=rf"another recipe \(--steps {first.steps} there, 9 now\): "
                       "leave those options out"):
        resumed_recipe(last, {"steps": 9}, default)
    with pytest.raises(UserError, match=r"\(--data-seeds \[1, 3, 5, 7, 9\] there, \[1, 3\] now\)"):
        resumed_recipe(last, {"data_seeds": (1, 3)}, default)  # (one form both sides)
    assert resumed_recipe(tmp_path / "none" / "last.pt", {}, default) is default
    # stopped before its first checkpoint: the recipe it was started with, kept from its start
    # (it went on with the default one, unsaid, and wrote that over it; review)
    early = tmp_path / "early"
    early.mkdir()
    (early / "recipe.json").write_text(json.dumps(dataclasses.asdict(first)))
    assert resumed_recipe(early / "last.pt", {}, default) == first
    assert resumed_recipe(early / "last.pt", {"steps": 9}, default) == replace(first, steps=9)
    (early / "recipe.json").write_text("[damaged")
    assert resumed_recipe(early / "last.pt", {}, default) is default


def test_fields_a_checkpoint_lacks_count_as_their_defaults() -> None:
    from dataclasses import asdict

    from blitzcam.models.identity_checkpoint import recipe_changes
    from blitzcam.models.identity_network import IdentityRecipe

    recipe = IdentityRecipe()
    older = {k: v for k, v in asdict(recipe).items() if not k.startswith("attract_")}
    assert recipe_changes(older, recipe, recipe.total_steps) == []
    pulled = replace(recipe, attract_weight=1.0)
    assert recipe_changes(older, pulled, recipe.total_steps) == ["attract_weight"]
    assert recipe_changes(older, pulled, recipe.steps) == []  # first stage only: free to differ
    # a saved recipe from before the refine stage had none; one done with its reject stage may
    # go on into any refine stage, but one inside it only with the same
    before_refine = {k: v for k, v in asdict(recipe).items() if not k.startswith("refine_")}
    refining = replace(recipe, refine_steps=3000)
    assert recipe_changes(before_refine, refining, recipe.refine_from) == []
    assert recipe_changes(before_refine, refining, recipe.refine_from + 1) == ["refine_steps"]
    gentler = replace(refining, refine_lr=1e-5)
    assert recipe_changes(asdict(refining), gentler, recipe.refine_from) == []
    assert recipe_changes(asdict(refining), gentler, recipe.refine_from + 1) == ["refine_lr"]
    # the refine stage's own rejection weight: the shipped weights go on into it, as a refine
    firmer = replace(refining, refine_reject_weight=2.0)
    assert recipe_changes(asdict(recipe), firmer, recipe.refine_from) == []
    assert recipe_changes(asdict(refining), firmer, recipe.refine_from + 1) == [
        "refine_reject_weight"
    ]


def test_the_refine_stage_may_weigh_rejection_on_its_own() -> None:
    from blitzcam.models.identity_network import IdentityRecipe

    recipe = IdentityRecipe(reject_weight=1.5)
    assert [recipe.rejection_weight(stage) for stage in (2, 3)] == [1.5, 1.5]
    firmer = replace(recipe, refine_reject_weight=2.0)
    assert [firmer.rejection_weight(stage) for stage in (2, 3)] == [1.5, 2.0]


def test_a_checkpoint_from_before_the_ink_gain_reads_as_trained_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import asdict, dataclass

    from blitzcam.models import identity_checkpoint
    from blitzcam.models.identity_checkpoint import recipe_changes, recipe_from
    from blitzcam.models.identity_network import IdentityRecipe

    added = ("ink_gain", "occluded_share", "faded_share")
    older = {k: v for k, v in asdict(IdentityRecipe()).items() if k not in added}
    # whatever the defaults become, such a run had no ink-gain layer and no extra drawings
    @dataclass(frozen=True)
    class LaterDefaults(IdentityRecipe):
        ink_gain: float = 3.0
        occluded_share: float = 0.15
        faded_share: float = 0.2

    monkeypatch.setattr(identity_checkpoint, "IdentityRecipe", LaterDefaults)
    newer = LaterDefaults()
    read = recipe_from({"recipe": older})
    assert (read.ink_gain, read.occluded_share, read.faded_share) == (1.0, 0.0, 0.0)
    assert recipe_changes(older, newer, newer.steps) == sorted(added)


def _noise_drawings(n_random: int, per_design: int = 3) -> IdentityData:
    """Drawings of noise for the eight decks and n_random random designs (sampling only)."""
    rng = np.random.default_rng(0)
    names = list(DECK_NAMES) + [f"0:{i}" for i in range(n_random)]
    owner = np.repeat(np.arange(len(names)), per_design)
    tint = rng.integers(0, 200, (len(names), 1, 1, 3))  # each design its own mean colour
    noise = rng.integers(0, 56, (len(owner), PATCH, PATCH, 3))
    patches = (tint[owner] + noise).astype(np.uint8)
    return IdentityData(names, patches, owner, patches.copy(), owner.copy())


def _mean_colour_net() -> object:
    """A stand-in network whose embedding is a drawing's mean colour: hardness by hand."""
    from torch import nn

    return nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())


def test_mining_returns_the_random_designs_nearest_a_builtin_deck() -> None:
    from blitzcam.models.identity_training import Sampler, mine_hard_designs
    from blitzcam.vision.embedding import network_input

    drawings = _noise_drawings(20)
    sampler = Sampler(drawings, _tiny(), np.random.default_rng(0))
    hard = mine_hard_designs(_mean_colour_net(), sampler, count=5, per_design=2)

    def unit(patches: np.ndarray) -> np.ndarray:
        v = network_input(patches).mean(axis=(2, 3))
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    decks = unit(drawings.references[drawings.reference_owner < len(DECK_NAMES)])
    hardness = {
        int(d): float((unit(drawings.queries[sampler.queries_of[d][:2]]) @ decks.T).max())
        for d in sampler.random
    }
    expected = sorted(hardness, key=lambda d: -hardness[d])[:5]
    assert list(hard) == expected


def test_a_step_takes_its_share_of_designs_from_the_hard_pool() -> None:
    from blitzcam.models.identity_training import Sampler

    recipe = _tiny(designs_per_step=len(DECK_NAMES) + 4, hard_share=0.5)
    sampler = Sampler(_noise_drawings(20), recipe, np.random.default_rng(1))
    pool = sampler.random[:3]
    seen_from_pool = set()
    for _ in range(20):
        designs = sampler.designs(pool)
        random = designs[len(DECK_NAMES) :]
        assert designs[: len(DECK_NAMES)] == sampler.builtin
        assert len(random) == len(set(random)) == 4
        assert sum(d in pool for d in random) == 2  # half of four, the rest from outside
        seen_from_pool |= {d for d in random if d in pool}
    assert seen_from_pool == set(pool)  # drawn from the whole pool, not its head
    no_pool = sampler.designs()
    assert len(no_pool) == len(DECK_NAMES) + 4


@pytest.mark.slow
@pytest.mark.parametrize(("ink_gain", "widths"), [(1.0, (16, 32, 64)), (3.0, (16, 32, 64)),
                                                  (1.0, (8, 12, 20))])  # fmt: skip
def test_a_shipped_network_runs_in_onnx_runtime_like_in_torch(
    drawings: IdentityData, tmp_path: Path, ink_gain: float, widths: tuple[int, int, int]
) -> None:
    import torch

    from blitzcam.models.identity_checkpoint import ship
    from blitzcam.models.identity_network import make_network
    from blitzcam.models.identity_training import train
    from blitzcam.vision.embedding import Embedder, network_input

    recipe = _tiny(steps=2, reject_steps=2, mine_every=1, hard_pool=2, ink_gain=ink_gain,
                   widths=widths)  # fmt: skip
    checkpoint = train(drawings, recipe, tmp_path / "run", log=lambda _: None)
    shipped = ship(checkpoint, tmp_path / "not yet made")
    assert {p.name for p in shipped.values()} == {"blitzcam-identity.pt", "blitzcam-identity.onnx"}
    state = torch.load(shipped["pt"], weights_only=False)
    assert set(state) == {"net", "recipe", "step"}  # weights only: no optimizer state shipped
    assert tuple(state["recipe"]["widths"]) == widths
    net = make_network(recipe)
    net.load_state_dict(state["net"])
    net.eval()
    assert [m.out_channels for m in net if isinstance(m, torch.nn.Conv2d)][::2] == list(widths)
    patches = drawings.queries[:9]
    with torch.no_grad():
        expected = torch.nn.functional.normalize(net(torch.from_numpy(network_input(patches))))
    got = Embedder(shipped["onnx"], threads=1).embed(patches)
    np.testing.assert_allclose(got, expected.numpy(), atol=1e-4)


def test_train_identity_bad_arguments_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from blitzcam.cli import main

    # a check that lets one through trains there, not in the checkout's runs/identity
    monkeypatch.setattr("blitzcam.paths.runs_root", lambda: tmp_path / "runs")

    assert main(["train-identity", "--steps", "0"]) == 2
    err = capsys.readouterr().err
    assert "--steps must be from 1 to 10,000,000, got 0" in err and err.count("\n") == 1
    assert main(["train-identity", "--reject-steps", "-1"]) == 2
    err = capsys.readouterr().err
    assert "--reject-steps must be 0 or more, got -1" in err and err.count("\n") == 1
    assert main(["train-identity", "--refine-steps", "-3"]) == 2
    err = capsys.readouterr().err
    assert "--refine-steps must be 0 or more, got -3" in err and err.count("\n") == 1
    for steps in ([], ["--refine-steps", "0"]):  # (it trained a whole run, the flag unused)
        assert main(["train-identity", "--refine-random-art-only", *steps]) == 2
        err = capsys.readouterr().err
        assert "the third stage trains only with steps (give --refine-steps)" in err
    assert main(["train-identity", "--negatives-per-step", "-2"]) == 2
    err = capsys.readouterr().err
    assert "--negatives-per-step must be 0 or more, got -2" in err and err.count("\n") == 1
    for flag in ("--occluded-share", "--faded-share", "--small-share"):
        for bad in ("-0.1", "1.5", "nan"):
            assert main(["train-identity", flag, bad]) == 2
            err = capsys.readouterr().err
            assert f"{flag} must be between 0 and 1, got {float(bad)}" in err
            assert err.count("\n") == 1
    for bad in ("0.5", "nan", "inf"):
        assert main(["train-identity", "--ink-gain", bad]) == 2
        err = capsys.readouterr().err
        assert f"--ink-gain must be 1 or more, got {float(bad)}" in err and err.count("\n") == 1
    for flag, bad, why in (
        ("--data-seeds", "1,x", "comma-separated whole numbers"),
        ("--data-seeds", "", "comma-separated whole"),
        ("--data-seeds", "1,1", "distinct numbers"),
        ("--data-seeds", "3,-1", "distinct numbers"),
        ("--data-seeds", "1,4294967297", "distinct numbers"),  # scene seed 1's, wrapped
        ("--widths", "16,32", "three numbers"),
        ("--widths", "16,0,64", "three numbers"),
        ("--widths", "100000,100000,100000", "three numbers from 1 to 1024"),  # (out of memory)
        ("--widths", "16,32,64,128", "three numbers"),
        ("--widths", "a,b,c", "comma-separated whole"),
    ):
        assert main(["train-identity", flag, bad]) == 2
        err = capsys.readouterr().err
        assert f"{flag} must be {why}" in err and repr(bad) in err
        assert err.count("\n") == 1
    for bad in ("-0.5", "nan", "inf"):
        assert main(["train-identity", "--attract-weight", bad]) == 2
        err = capsys.readouterr().err
        assert f"--attract-weight must be 0 or more, got {float(bad)}" in err
        assert err.count("\n") == 1
    for argv, said in (
        (["--late-scenes", "-1"], "--late-scenes must be 0 or more, got -1"),
        (["--workers", "0"], "--workers must be a positive number, got 0"),
        (["--device", "gpu"], "--device must be cpu or a CUDA device index such as 0, got 'gpu'"),
        (["--device", "7"], "--device 7: no such CUDA device here (torch sees "),  # (no GPU here)
    ):
        assert main(["train-identity", *argv]) == 2
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err


def test_a_failed_identity_export_leaves_the_shipped_pair_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    from blitzcam.models import identity_checkpoint

    models = tmp_path / "models"
    models.mkdir()
    (models / "blitzcam-identity.pt").write_bytes(b"old weights")
    (models / "blitzcam-identity.onnx").write_bytes(b"old export")
    checkpoint = tmp_path / "last.pt"
    torch.save({"net": {}, "recipe": {}, "step": 3}, checkpoint)

    def failing_export(state: dict, out: Path) -> Path:
        out.write_bytes(b"half an export")
        raise RuntimeError("export failed")

    monkeypatch.setattr(identity_checkpoint, "_export_state", failing_export)
    with pytest.raises(RuntimeError, match="export failed"):
        identity_checkpoint.ship(checkpoint, models)
    assert (models / "blitzcam-identity.pt").read_bytes() == b"old weights"
    assert (models / "blitzcam-identity.onnx").read_bytes() == b"old export"
    assert sorted(p.name for p in models.iterdir()) == [
        "blitzcam-identity.onnx", "blitzcam-identity.pt"]  # no staged file left behind


def test_train_identity_sets_its_network_beside_the_one_models_held(
    drawings: IdentityData,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import json

    import blitzcam.models
    from blitzcam.cli import main
    from blitzcam.models import identity_training

    trained = identity_training.train(drawings, _tiny(), tmp_path / "tiny", log=lambda _: None)
    monkeypatch.setattr(identity_training, "training_data",
                        lambda recipe, run, **_: (drawings, drawings))  # fmt: skip
    monkeypatch.setattr(identity_training, "train", lambda *args, **kwargs: trained)
    models = tmp_path / "models"
    models.mkdir()
    monkeypatch.setattr(blitzcam.models, "MODELS_DIR", models)
    run = tmp_path / "run"

    # a file models/ cannot read is said, and the new network still comes out
    (models / "blitzcam-identity.onnx").write_bytes(b"not a model")
    assert main(["train-identity", "--run", str(run), "--no-ship"]) == 0
    out = capsys.readouterr().out
    assert "not compared with the network models/ held:" in out and "cannot load" in out
    assert (run / "export" / "blitzcam-identity.onnx").is_file()
    assert json.loads((run / "report.json").read_text())["shipped_before"] is None

    # a readable one is set beside it, figure by figure, and kept in the report
    (models / "blitzcam-identity.onnx").write_bytes(
        (run / "export" / "blitzcam-identity.onnx").read_bytes()
    )
    assert main(["train-identity", "--run", str(run), "--no-ship"]) == 0
    out = capsys.readouterr().out
    assert "against the network models/ held before this run, at the 0.6 line:" in out
    same = [line for line in out.splitlines() if line.startswith("  unenrolled art left unknown")]
    assert len(same) == 1
    ours, theirs = same[0].split(": ")[1].split(" against ")
    assert ours == theirs  # the same network on both sides
    assert "warning" not in out
    report = json.loads((run / "report.json").read_text())
    assert report["shipped_before"] == report["validation"]
    assert "joined" not in out  # a network alone was there: nothing to join again

    # over a file that joined several networks (as the shipped one does), shipping one says so
    from blitzcam.models.identity_average import join_networks

    alone = run / "export" / "blitzcam-identity.onnx"
    join_networks([alone, alone, alone], models / "blitzcam-identity.onnx", lift=0.8)
    assert main(["train-identity", "--run", str(run)]) == 0
    out = capsys.readouterr().out
    assert f"{models / 'blitzcam-identity.onnx'} joined 3 networks and is now this one alone" in out
    assert "against the network models/ held before this run" in out


def test_a_fresh_run_forgets_the_time_of_one_before_it(drawings: IdentityData, tmp_path: Path) -> None:
    from blitzcam.models.identity_training import train
    from blitzcam.models.run_timing import TIMING_FILE, train_seconds

    out = tmp_path / "run"
    out.mkdir()
    (out / TIMING_FILE).write_text('{"seconds": 5000}')  # an earlier run thrown away
    train(drawings, _tiny(), out, resume=False, log=lambda _: None)
    assert 0 < train_seconds(out) < 5000


def test_a_checkpoint_planted_cut_short_or_foreign_is_one_line_and_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    from blitzcam.errors import UserError
    from blitzcam.models.identity_checkpoint import load_checkpoint

    monkeypatch.chdir(tmp_path)
    last = tmp_path / "last.pt"
    torch.save({"net": {}, "recipe": {}, "step": 3, "opt": Planted()}, last)
    with pytest.raises(UserError, match=r"last\.pt: not an identity checkpoint blitzcam can load"):
        load_checkpoint(last)
    assert not was_run(tmp_path)
    torch.save({"net": {}, "recipe": {}, "step": 3, "pad": list(range(1000))}, last)
    last.write_bytes(last.read_bytes()[:200])
    # (it said "rerun without --resume", which then said the folder holds a run: a loop)
    with pytest.raises(UserError, match=r"start a new run folder, or delete .*last\.pt to start"):
        load_checkpoint(last)
    torch.save({"weights": [1]}, last)
    with pytest.raises(UserError, match="no net, recipe and step"):
        load_checkpoint(last)
    # a run of an earlier release kept its mined designs as an array: it still resumes
    torch.save({"net": {}, "recipe": {}, "step": 3, "hard": np.arange(4, dtype=np.int64)}, last)
    assert load_checkpoint(last)["hard"].tolist() == [0, 1, 2, 3]


def test_resuming_a_run_with_no_checkpoint_says_it_starts_anew(
    drawings: IdentityData, tmp_path: Path
) -> None:
    # it started fresh without a word, and kept the earlier run's time for the model card
    from blitzcam.models.identity_training import train
    from blitzcam.models.run_timing import TIMING_FILE, train_seconds

    (tmp_path / "run").mkdir()
    (tmp_path / "run" / TIMING_FILE).write_text('{"seconds": 5000.0}')
    messages: list[str] = []
    train(drawings, _tiny(), tmp_path / "run", checkpoint_every=2, log=messages.append)
    assert messages[0].startswith("no checkpoint at ") and "starting a new run" in messages[0]
    assert train_seconds(tmp_path / "run") < 5000


def test_late_round_drawings_join_the_training_data(tmp_path: Path) -> None:
    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import training_data

    recipe = IdentityRecipe(data_seeds=(5,), scenes_per_seed=2, val_scenes=1)
    for run in ("plain", "late"):
        (tmp_path / run).mkdir()
    plain, _ = training_data(recipe, tmp_path / "plain", workers=1)
    late = replace(recipe, late_scenes=2, late_seed=13)
    data, _ = training_data(late, tmp_path / "late", workers=1)
    assert (tmp_path / "late" / "drawings-late-seed13-2.npz").is_file()
    assert not list((tmp_path / "plain").glob("drawings-late-*"))
    # two late-round scenes hold more drawings than the two scenes of the usual mix
    assert len(data.queries) > 2 * len(plain.queries)
    np.testing.assert_array_equal(data.queries[: len(plain.queries)], plain.queries)


def test_wide_art_cuts_drawings_of_the_wider_families_into_files_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import blitzcam.models.identity_data as identity_data
    from blitzcam.datasets.art import HOLDOUT_FAMILY, RANDOM_FAMILIES, WIDE_FAMILIES
    from blitzcam.models.identity_network import IdentityRecipe
    from blitzcam.models.identity_training import training_data

    asked: list[tuple[str, ...]] = []
    real_build = identity_data.build

    def build(seed: int, n: int, families: tuple[str, ...], **kw: object) -> object:
        asked.append(families)
        return real_build(seed, n, families, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(identity_data, "build", build)
    recipe = IdentityRecipe(data_seeds=(5,), scenes_per_seed=2, val_scenes=1, wide_art=True)
    training_data(recipe, tmp_path, workers=1)
    assert (tmp_path / "drawings-seed5-2-wide.npz").is_file()
    assert not (tmp_path / "drawings-seed5-2.npz").exists()  # the usual mix's name: not these
    first = tuple(f for f in RANDOM_FAMILIES if f != HOLDOUT_FAMILY)
    # training: the usual families first, then the wider; validation: the holdout family only
    assert asked == [first + WIDE_FAMILIES, (HOLDOUT_FAMILY,)]
    # a run of the usual recipe in the same folder cuts its own
    asked.clear()
    training_data(replace(recipe, wide_art=False), tmp_path, workers=1)
    assert asked == [first] and (tmp_path / "drawings-seed5-2.npz").is_file()

def test_the_card_says_the_late_round_drawings() -> None:
    from dataclasses import asdict

    from blitzcam.models.card import data_line
    from blitzcam.models.identity_network import IdentityRecipe

    plain = data_line(asdict(IdentityRecipe()))
    late = data_line(asdict(IdentityRecipe(late_scenes=600)))
    assert "late rounds" not in plain and plain.startswith("- Data: drawings cut from 1500 ")
    assert "and from 600 scenes of a big game's late rounds (seed 11" in late
    assert "late rounds" not in data_line({**asdict(IdentityRecipe()), "late_scenes": 0})
    wide = data_line(asdict(IdentityRecipe(wide_art=True)))
    assert "but the holdout one, the wider families (`--wide-art`) included)" in wide
    assert "wider" not in plain


def test_the_card_names_the_device_a_run_trained_on(tmp_path: Path) -> None:
    import json

    from blitzcam.models.card import _identity_hardware

    assert _identity_hardware(tmp_path) == "the CPU, 2 cores shared with other work"
    (tmp_path / "device.json").write_text(json.dumps({"device": "NVIDIA H200"}))
    assert _identity_hardware(tmp_path) == "NVIDIA H200"  # (scripts/gpu_identity.py writes it)


def test_a_trial_trains_every_stage_tiny_and_keeps_its_network_in_its_run_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (cutting the recipe's 7,500 scenes took some 9 minutes before a first step)
    import json

    import blitzcam.models.identity_training as identity_training
    from blitzcam.cli import main
    from blitzcam.models.identity_network import TRIAL, IdentityRecipe

    class StartedError(Exception):
        pass

    given: list[IdentityRecipe] = []

    def training_data(recipe: IdentityRecipe, run_dir: Path, **_: object) -> None:
        given.append(recipe)
        raise StartedError

    monkeypatch.setattr(identity_training, "training_data", training_data)
    monkeypatch.setattr("blitzcam.paths.runs_root", lambda: tmp_path / "runs")
    with pytest.raises(StartedError):
        main(["train-identity", "--trial"])
    assert given == [TRIAL] and TRIAL.scenes_per_seed * len(TRIAL.data_seeds) <= 30
    assert TRIAL.steps and TRIAL.reject_steps  # the stages the recipe has, each tiny
    ship = tmp_path / "runs" / "identity-trial" / "ship.json"
    assert json.loads(ship.read_text()) == {"no_ship": True, "trial": True}
