"""Train the identity network (torch; training only, the counting path runs the ONNX export).

Metric learning over many designs: each step takes every built-in deck plus random designs,
a few scene drawings of each (queries) and one clean reference variant of each. A query's
similarity to a design is its best cosine similarity over the reference's four quarter turns
(the rule `identify` uses; mirror images are reference variants of their own), and a
cross-entropy over the designs in the step, with a margin on the right one, pulls each drawing
towards its own design. The built-in decks are in every step, so the look-alikes (yellow buggy /
yellow bucket, green pump / green bucket) are always each other's negatives.

A second stage ("reject") then teaches the line `identify` draws: counting calls a drawing a
deck when its similarity is at least 0.6, and cross-entropy only ranks designs, so a random
tool or vehicle can sit at 0.65 to the pump while still nearer its own design. This stage adds
a hinge that pushes every random drawing's similarity to each built-in deck under
`reject_line`, and fills half of each step with the random designs currently most like a
built-in deck (mined with the network itself every `mine_every` steps).

A third stage ("refine") goes on from the reject stage's weights with the same loss and mining
at a small learning rate, a share of its drawings faded or crossed by a pencil or a finger.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from blitzcam.files import write_text_atomic
from blitzcam.game.decks import DECK_NAMES
from blitzcam.models.identity_augment import augment_queries
from blitzcam.models.identity_checkpoint import (
    _fingerprint,
    _refuse_other_recipe,
    _save_atomic,
    load_checkpoint,
)
from blitzcam.models.identity_data import IdentityData
from blitzcam.models.identity_network import IdentityRecipe, make_network
from blitzcam.models.run_timing import TIMING_FILE, RunClock
from blitzcam.vision.embedding import PATCH, network_input, quarter_turns

if TYPE_CHECKING:
    from blitzcam.vision.detector import Detector


def four_turns(patches: np.ndarray) -> np.ndarray:
    """(n,S,S,3) -> (n,4,S,S,3): each patch in its four quarter turns (`quarter_turns`, grouped
    by patch)."""
    turned = quarter_turns(patches).reshape(4, len(patches), *patches.shape[1:])
    return np.ascontiguousarray(turned.swapaxes(0, 1))


class Sampler:
    """Steps of (queries, their design index in the step, one reference per design), and of
    drawings of no deck for the reject stage (`negative_step`)."""

    def __init__(
        self,
        data: IdentityData,
        recipe: IdentityRecipe,
        rng: np.random.Generator,
        negatives: np.ndarray | None = None,
    ):
        self.data, self.recipe, self.rng = data, recipe, rng
        if negatives is not None and recipe.negatives_per_step > 0 and not len(negatives):
            raise ValueError("negatives_per_step > 0 but no drawings of no deck were given")
        self.negatives = negatives if recipe.negatives_per_step > 0 else None
        # their own random stream: turning negatives on leaves every design and drawing a step
        # picks as it was, so a run with them differs from one without by the negatives alone
        self.negative_rng = np.random.default_rng(np.random.SeedSequence([recipe.seed, 1]))
        # and so do the occluders and fading (`identity_augment`)
        self.augment_rng = np.random.default_rng(np.random.SeedSequence([recipe.seed, 2]))
        n = len(data.names)
        self.queries_of = _groups(data.query_owner, n)
        self.references_of = _groups(data.reference_owner, n)
        usable = [i for i in range(n) if len(self.queries_of[i]) and len(self.references_of[i])]
        n_builtin = len(DECK_NAMES)
        self.builtin = [i for i in usable if i < n_builtin]
        self.random = np.array([i for i in usable if i >= n_builtin])

    def designs(self, hard: np.ndarray | None = None) -> list[int]:
        """One step's designs: every built-in deck, then random designs; with `hard` (random
        design indices), `hard_share` of the random ones come from it and the rest from outside
        it."""
        r, rng = self.recipe, self.rng
        extra = min(r.designs_per_step - len(self.builtin), len(self.random))
        chosen: list[int] = []
        rest = self.random
        if hard is not None and len(hard):
            take = min(round(extra * r.hard_share), len(hard))
            chosen = [int(d) for d in rng.choice(hard, take, replace=False)]
            rest = np.setdiff1d(self.random, hard)
        more = rng.choice(rest, min(extra - len(chosen), len(rest)), replace=False)
        return self.builtin + chosen + [int(d) for d in more]

    def begin_refine(self) -> None:
        """Restart every stream from the seed for the refine stage: its steps then depend on
        the weights it starts from alone, not on the steps before."""
        seed = self.recipe.seed
        for stream, key in ((self.rng, 3), (self.augment_rng, 4), (self.negative_rng, 5)):
            stream.bit_generator.state = np.random.default_rng(
                np.random.SeedSequence([seed, key])
            ).bit_generator.state

    def step(
        self, hard: np.ndarray | None = None, *, refine: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Drawings of `designs(hard)`: queries, their design's place in the step, and one
        reference per design; occluded and faded at the refine stage's shares with `refine`
        (random designs' drawings only, unless `refine_builtin_augmented`)."""
        r, rng = self.recipe, self.rng
        designs = self.designs(hard)
        queries, labels, references = [], [], []
        for slot, design in enumerate(designs):
            pick = rng.choice(self.queries_of[design], r.queries_per_design)
            queries.append(self.data.queries[pick])
            labels += [slot] * r.queries_per_design
            references.append(self.data.references[rng.choice(self.references_of[design])])
        shown = np.concatenate(queries)
        rows = np.arange(len(shown))
        if refine and not r.refine_builtin_augmented:
            rows = rows[np.array(labels) >= len(self.builtin)]
        shown[rows] = augment_queries(
            shown[rows],
            self.augment_rng,
            occluded_share=r.refine_occluded_share if refine else r.occluded_share,
            faded_share=r.refine_faded_share if refine else r.faded_share,
            small_share=r.refine_small_share if refine else r.small_share,
        )
        return _turned(shown, rng), np.array(labels), np.stack(references)

    def negative_step(self) -> np.ndarray:
        """`negatives_per_step` drawings of no deck, each in a random quarter turn, drawn from
        `negative_rng` (none when the sampler has no negatives)."""
        if self.negatives is None:
            return np.zeros((0, *self.data.queries.shape[1:]), self.data.queries.dtype)
        pick = self.negative_rng.choice(len(self.negatives), self.recipe.negatives_per_step)
        return _turned(self.negatives[pick], self.negative_rng)


def _turned(patches: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    turns = rng.integers(0, 4, len(patches))
    return np.stack([np.rot90(p, k) for p, k in zip(patches, turns, strict=True)])


def _groups(owner: np.ndarray, n: int) -> list[np.ndarray]:
    order = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[order], np.arange(n + 1))
    return [order[bounds[i] : bounds[i + 1]] for i in range(n)]


def rejection_loss(
    sims: Any, labels: Any, n_builtin: int, line: float, negative_weight: float = 1.0
) -> Any:
    """Torch: how far drawings reach over `line` in similarity to designs they are not, summed
    over those designs and averaged over the drawings; 0 when every one is under the line.
    Random designs' drawings (labels >= n_builtin) are held under it to the built-in decks (the
    step's first n_builtin columns); drawings of no deck (label -1) to every design of the step,
    averaged apart and weighted `negative_weight` (so adding them leaves the first term as is)."""
    import torch

    reach = torch.relu(sims - line)
    loss = sims.sum() * 0.0
    foreign = labels >= n_builtin
    if bool(foreign.any()):
        loss = loss + reach[foreign, :n_builtin].sum(dim=1).mean()
    no_deck = labels < 0
    if bool(no_deck.any()):
        loss = loss + negative_weight * reach[no_deck].sum(dim=1).mean()
    return loss


def attraction_loss(sims: Any, labels: Any, line: float) -> Any:
    """Torch: how far drawings of a design (labels >= 0) fall under `line` in similarity to
    their own design, averaged over them; 0 when every one reaches it."""
    import torch

    of_design = labels >= 0
    if not bool(of_design.any()):
        return sims.sum() * 0.0
    own = sims[of_design].gather(1, labels[of_design][:, None])[:, 0]
    return torch.relu(line - own).mean()


def mine_hard_designs(net: Any, sampler: Sampler, count: int, per_design: int) -> np.ndarray:
    """The `count` random designs whose drawings come nearest a built-in deck (each design's
    best similarity over at most `per_design` of its drawings), hardest first."""
    import torch

    data = sampler.data
    if not len(sampler.random):
        return sampler.random
    picks = [sampler.queries_of[d][:per_design] for d in sampler.random]
    rows = np.concatenate(picks)
    owner = np.repeat(np.arange(len(picks)), [len(p) for p in picks])
    builtin_refs = np.flatnonzero(data.reference_owner < len(DECK_NAMES))
    views = quarter_turns(data.references[builtin_refs])
    was_training = net.training
    net.eval()
    with torch.no_grad():
        refs = _embed(net, views)
        best = np.concatenate(
            [
                (_embed(net, data.queries[c]) @ refs.T).max(axis=1)
                for c in np.array_split(rows, max(1, len(rows) // 2048))
            ]
        )
    net.train(was_training)
    per_design = np.full(len(picks), -np.inf)
    np.maximum.at(per_design, owner, best)
    return sampler.random[np.argsort(-per_design, kind="stable")[:count]]


def _embed(net: Any, patches: np.ndarray) -> np.ndarray:
    import torch
    import torch.nn.functional as nnf

    weight = next(net.parameters(), None)  # the device the network is on (none: the CPU)
    batch = torch.from_numpy(network_input(patches))
    if weight is not None:
        batch = batch.to(weight.device)
    return nnf.normalize(net(batch), dim=1).cpu().numpy()


def design_similarity(net: Any, queries: Any, references: Any) -> Any:
    """Torch: (q,3,S,S), (d,v,3,S,S) -> (q,d) best cosine over each reference's v views."""
    import torch.nn.functional as nnf

    d = references.shape[0]
    eq = nnf.normalize(net(queries), dim=1)
    er = nnf.normalize(net(references.flatten(0, 1)), dim=1).view(d, references.shape[1], -1)
    return (eq[:, None, None, :] * er[None]).sum(-1).amax(dim=2)


def _optimizer(net: Any, recipe: IdentityRecipe, stage: int) -> tuple[Any, Any]:
    """Stage 1: AdamW with one cycle over `steps`; stage 2 (reject) and 3 (refine): AdamW from
    `reject_lr` / `refine_lr`, cosine to zero over the stage."""
    import torch

    if stage == 1:
        opt = torch.optim.AdamW(net.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay)
        return opt, torch.optim.lr_scheduler.OneCycleLR(opt, recipe.lr, total_steps=recipe.steps)
    lr, steps = (
        (recipe.reject_lr, recipe.reject_steps)
        if stage == 2
        else (recipe.refine_lr, recipe.refine_steps)
    )
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=recipe.weight_decay)
    return opt, torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1))


def train(
    data: IdentityData,
    recipe: IdentityRecipe,
    out_dir: Path,
    *,
    negatives: np.ndarray | None = None,
    resume: bool = True,
    checkpoint_every: int = 100,
    log: Callable[[str], None] = print,
    device: str = "cpu",
) -> Path:
    """Train every stage; checkpoints to out_dir/last.pt every `checkpoint_every` steps and at
    the end of each stage; with `resume`, continues from one (the same steps as an
    uninterrupted run: the sampler's random states and the mined designs are in it), or begins
    the refine stage from weights alone (`{"net", "recipe", "step"}`, as `ship` writes them).
    `negatives` (n,S,S,3): drawings of no deck for the reject stage (`identity_negatives`),
    needed when the recipe has `negatives_per_step`; a checkpoint resumes only with the same,
    and only with the recipe it was trained with as far as its steps used it (`recipe_changes`)."""
    import torch
    import torch.nn.functional as nnf

    from blitzcam.errors import UserError

    wants_negatives = recipe.uses_negatives
    if wants_negatives and (negatives is None or not len(negatives)):
        raise ValueError("the recipe has negatives_per_step but no drawings of no deck were given")
    fingerprint = _fingerprint(negatives) if wants_negatives else None
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(2)
    on = torch.device(device)  # "cpu", or a CUDA device ("cuda:0"); checkpoints load on the CPU
    net = make_network(recipe).to(on)
    start = 0
    last = out_dir / "last.pt"
    rng = np.random.default_rng(recipe.seed)
    hard: np.ndarray | None = None
    if resume and not last.is_file():
        log(f"no checkpoint at {last}: starting a new run")
    if not resume or not last.is_file():
        # a fresh start: neither the weights nor the time of an earlier run count
        last.unlink(missing_ok=True)
        (out_dir / TIMING_FILE).unlink(missing_ok=True)
    state = load_checkpoint(last) if last.is_file() else None
    if state is not None:
        _refuse_other_recipe(last, state, recipe)
    # only reject steps used the negatives: a first-stage checkpoint goes on with any
    in_reject_stage = state is not None and state["step"] > recipe.steps
    if in_reject_stage and state.get("negatives") != fingerprint:
        raise UserError(
            f"{last}: this checkpoint trained with other drawings of no deck than these "
            "(another detector or recipe?); start a new run folder, or rerun without --resume"
        )
    if state is not None:
        net.load_state_dict(state["net"])
        start = state["step"]
        if state.get("hard") is not None:  # kept as a list: a weights-only load takes no array
            hard = np.asarray(state["hard"], np.int64)
        if "rng" in state:
            rng.bit_generator.state = state["rng"]
        elif not (start == recipe.refine_from and recipe.refine_steps > 0):
            # weights alone (a shipped .pt) can start the refine stage, which needs nothing else
            raise UserError(
                f"{last}: these weights (step {start}) carry no training state; only the "
                f"refine stage can begin from weights alone, at step {recipe.refine_from}"
            )
    # the stage of the last step done: the loop below turns to the next one where it begins
    stage = recipe.stage_of(max(start - 1, 0))
    opt, sched = _optimizer(net, recipe, stage)
    if state is not None and "opt" in state and state.get("stage", 1) == stage:
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
    if state is not None:
        log(f"resumed at step {start}")
    sampler = Sampler(data, recipe, rng, negatives if wants_negatives else None)
    if state is not None and "negative_rng" in state:
        sampler.negative_rng.bit_generator.state = state["negative_rng"]
    if state is not None and "augment_rng" in state:
        sampler.augment_rng.bit_generator.state = state["augment_rng"]
    n_builtin = len(sampler.builtin)
    t0 = time.time()
    clock = RunClock(out_dir)
    running: list[float] = []
    for step in range(start, recipe.total_steps):
        if recipe.stage_of(step) != stage:
            stage = recipe.stage_of(step)
            opt, sched = _optimizer(net, recipe, stage)
            if stage == 3:
                sampler.begin_refine()
        stage_start = recipe.steps if stage == 2 else recipe.refine_from
        if stage >= 2 and (step - stage_start) % recipe.mine_every == 0:
            hard = mine_hard_designs(net, sampler, recipe.hard_pool, recipe.mine_queries)
        net.train()
        q, labels, refs = sampler.step(hard if stage >= 2 else None, refine=stage == 3)
        if stage >= 2:
            no_deck = sampler.negative_step()
            q = np.concatenate([q, no_deck])
            labels = np.concatenate([labels, np.full(len(no_deck), -1)])
        qt = torch.from_numpy(network_input(q)).to(on)
        views = four_turns(refs)
        rt = torch.from_numpy(network_input(views.reshape(-1, *views.shape[2:]))).view(
            len(refs), 4, 3, *views.shape[2:4]
        )
        sims = design_similarity(net, qt, rt.to(on))
        target = torch.from_numpy(labels).to(on)
        of_design = target >= 0  # drawings of no deck have no right design to rank first
        margin = nnf.one_hot(target[of_design], sims.shape[1]) * recipe.margin
        loss = nnf.cross_entropy(recipe.scale * (sims[of_design] - margin), target[of_design])
        if stage >= 2:
            loss = loss + recipe.rejection_weight(stage) * rejection_loss(
                sims, target, n_builtin, recipe.reject_line, recipe.negative_weight
            )
            if recipe.attract_weight > 0:
                loss = loss + recipe.attract_weight * attraction_loss(
                    sims, target, recipe.attract_line
                )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running.append(float(loss.detach()))
        done = step + 1
        if done % checkpoint_every == 0 or done in (
            recipe.steps,
            recipe.refine_from,
            recipe.total_steps,
        ):
            _save_atomic(
                {
                    "net": net.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "stage": stage,
                    "step": done,
                    "rng": rng.bit_generator.state,
                    "negative_rng": sampler.negative_rng.bit_generator.state,
                    "augment_rng": sampler.augment_rng.bit_generator.state,
                    "negatives": fingerprint,
                    "hard": None if hard is None else hard.tolist(),
                    "recipe": asdict(recipe),
                },
                last,
            )
            clock.lap()
            log(
                f"step {done}/{recipe.total_steps} (stage {stage}) loss {np.mean(running):.3f} "
                f"{time.time() - t0:.0f}s"
            )
            running = []
    write_text_atomic(out_dir / "recipe.json", json.dumps(asdict(recipe), indent=2))
    return last


@contextlib.contextmanager
def _scenes_bar(total: int) -> Iterator[Callable[[int, int], None]]:
    """A progress bar of scenes cut, and the `progress(done, n)` that moves it (a seed's 1,500
    scenes take minutes)."""
    from tqdm import tqdm

    with tqdm(total=total, unit="scene", desc="cut") as bar:
        yield lambda done, _n: bar.update(done - bar.n)


def training_data(
    recipe: IdentityRecipe, run_dir: Path, *, workers: int = 2
) -> tuple[IdentityData, IdentityData]:
    """The recipe's training and validation drawings, built once into the run folder."""
    from blitzcam.datasets.art import HOLDOUT_FAMILY, RANDOM_FAMILIES, WIDE_FAMILIES
    from blitzcam.models.identity_data import build

    families = tuple(f for f in RANDOM_FAMILIES if f != HOLDOUT_FAMILY)
    wide = ""  # (drawings of the wider families are files of their own)
    if recipe.wide_art:
        families, wide = families + WIDE_FAMILIES, "-wide"
    parts = []
    for seed in recipe.data_seeds:
        path = run_dir / f"drawings-seed{seed}-{recipe.scenes_per_seed}{wide}.npz"
        if not path.is_file():
            print(f"cutting drawings from {recipe.scenes_per_seed} scenes (seed {seed}{wide})")
            with _scenes_bar(recipe.scenes_per_seed) as progress:
                drawings = build(
                    seed, recipe.scenes_per_seed, families, workers=workers, progress=progress
                )
            drawings.save(path)
        parts.append(IdentityData.load(path))
    if recipe.late_scenes > 0:
        path = run_dir / f"drawings-late-seed{recipe.late_seed}-{recipe.late_scenes}{wide}.npz"
        if not path.is_file():
            print(f"cutting late-round drawings from {recipe.late_scenes} scenes "
                  f"(seed {recipe.late_seed}{wide})")  # fmt: skip
            with _scenes_bar(recipe.late_scenes) as progress:
                late = build(
                    recipe.late_seed,
                    recipe.late_scenes,
                    families,
                    workers=workers,
                    late_round=True,
                    progress=progress,
                )
            late.save(path)
        parts.append(IdentityData.load(path))
    val_path = run_dir / f"drawings-val-seed{recipe.val_seed}-{recipe.val_scenes}.npz"
    if not val_path.is_file():
        build(recipe.val_seed, recipe.val_scenes, (HOLDOUT_FAMILY,), workers=workers).save(val_path)
    return IdentityData.concat(parts), IdentityData.load(val_path)


def check_negatives_source(recipe: IdentityRecipe, detector_model: Path) -> Detector | None:
    """UserError unless the recipe's drawings of no deck can be cut: its seeds and scenes, and
    `detector_model` a detector that opens. Said before the drawings are cut from 7,500 scenes,
    not after them. The detector opened to cut them (None when the recipe uses none), to be
    handed to `training_negatives` rather than opened again."""
    from blitzcam.errors import UserError
    from blitzcam.models.identity_negatives import NEGATIVE_CONF
    from blitzcam.vision.detector import Detector
    from blitzcam.vision.onnx_session import missing_model
    from blitzcam.vision.pipeline import COUNT_IOU

    if not recipe.uses_negatives:
        return None
    if not recipe.negative_seeds or recipe.negative_scenes <= 0:
        raise UserError("negatives_per_step needs negative_seeds and negative_scenes")
    if not detector_model.is_file():
        raise UserError(
            missing_model(detector_model, "blitzcam-obb.onnx", "detector model", "blitzcam train")
        )
    # (a file that is no detector says so here, in one line)
    return Detector(detector_model, conf=NEGATIVE_CONF, iou=COUNT_IOU)


def training_negatives(
    recipe: IdentityRecipe,
    run_dir: Path,
    detector_model: Path,
    detector: Detector | None = None,
) -> np.ndarray:
    """The recipe's drawings of no deck (`identity_negatives`), cut with `detector_model` from
    scenes generated into the run folder; both built once (a cut is named by the detector's
    sha256 and the cut's settings, so another detector or setting cuts its own). Empty when the
    recipe uses none. `detector`: that model as `check_negatives_source` opened it."""
    from blitzcam.errors import UserError
    from blitzcam.files import sha256_of
    from blitzcam.models.evaluation import labelled_scenes
    from blitzcam.models.identity_negatives import (
        cut_negatives,
        load_negatives,
        save_negatives,
        settings_tag,
    )
    from blitzcam.models.training import generated_scenes
    from blitzcam.vision.images import read_image
    from blitzcam.vision.pipeline import COUNT_IOU

    if not recipe.uses_negatives:
        return np.zeros((0, PATCH, PATCH, 3), np.uint8)
    if detector is None:
        detector = check_negatives_source(recipe, detector_model)
    assert detector is not None  # (the recipe uses negatives)
    folder = run_dir / "negatives"
    tag = settings_tag(sha256_of(detector_model), COUNT_IOU)
    parts = []
    for seed in recipe.negative_seeds:
        scenes = folder / f"scenes-seed{seed}-{recipe.negative_scenes}"
        cut = folder / f"negatives-seed{seed}-{recipe.negative_scenes}-{tag}.npz"
        if not cut.is_file():
            generated_scenes(scenes, recipe.negative_scenes, seed)

            def backs(frame: np.ndarray) -> np.ndarray:
                found = detector.detect(frame)
                return found.corners[found.of_class("back")]

            print(f"cutting drawings of no deck from {scenes}")
            patches = cut_negatives(
                labelled_scenes(scenes, "all"), backs, seed=seed, read_image=read_image
            )
            save_negatives(cut, patches)
        parts.append(load_negatives(cut))
    negatives = np.concatenate(parts)
    if not len(negatives):
        raise UserError(f"{folder}: the scenes gave no drawings of no deck to train with")
    return negatives
