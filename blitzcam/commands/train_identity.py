"""`blitzcam train-identity`: reproduce the shipped identity network (defaults = its recipe)."""

from __future__ import annotations

import argparse
import io
import sys
from contextlib import ExitStack
from typing import Final

from blitzcam.commands.device_option import torch_device
from blitzcam.commands.path_option import path_argument
from blitzcam.paths import run_writes, train_extras_needed
from blitzcam.worker_pool import DEFAULT_WORKERS, workers_for

# a stage's convolution width at most (the shipped 16/32/64; 100000 runs out of memory after
# the drawings are cut, minutes in, a traceback), and the most steps a run may take
MAX_WIDTH: Final = 1024
MAX_STEPS: Final = 10_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train-identity",
        help="train the network that tells decks apart (defaults reproduce the shipped one)",
        description="Cut drawings from synthetic scenes (thousands of random designs plus the "
        "eight decks), train the identity network (on the CPU, or a GPU with --device), "
        "measure it on drawings of a kind it never saw, then export it to models/ (an installed "
        "blitzcam: into the run folder). An interrupted run continues with --resume. "
        f"{train_extras_needed()}",
    )
    parser.add_argument(
        "--run",
        type=path_argument,
        default=None,
        help="run folder for drawings, checkpoints and the report (default: runs/identity of "
        "the checkout; installed, of the data directory)",
    )
    parser.add_argument(
        "--data-seeds",
        default=None,
        help="comma-separated scene seeds to cut training drawings from, 1,500 scenes each "
        "(default: the recipe's 1,3,5,7,9; more seeds, more random designs)",
    )
    parser.add_argument(
        "--late-scenes",
        type=int,
        default=None,
        help="also cut drawings from this many scenes of a big game's late rounds (6-8 decks "
        "of 25-40 cards laid out tight; default 0: none)",
    )
    parser.add_argument(
        "--wide-art",
        action="store_true",
        help="cut drawings of the generator's wider line-art families too (buildings, emblems, "
        "letter-like glyphs, solid silhouettes)",
    )
    parser.add_argument(
        "--widths",
        default=None,
        help="the network's three convolution widths, comma-separated (default: the recipe's "
        "16,32,64)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="steps of the first stage (default: the shipped recipe's, 9000)",
    )
    parser.add_argument(
        "--reject-steps",
        type=int,
        default=None,
        help="steps of the second stage, which pushes random art away from the decks (0: none; "
        "default: the shipped recipe's, 9000)",
    )
    parser.add_argument(
        "--refine-steps",
        type=int,
        default=None,
        help="steps of a third stage, on faded and pencil- or finger-crossed drawings (default "
        "0: none); it can start from a shipped network: copy models/blitzcam-identity.pt to "
        "RUN/last.pt and pass --resume",
    )
    parser.add_argument(
        "--refine-random-art-only",
        action="store_true",
        help="the third stage fades and crosses only random designs' drawings, never the eight "
        "decks'",
    )
    parser.add_argument(
        "--negatives-per-step",
        type=int,
        default=None,
        help="drawings of no deck (the detector's boxes on no back, face-up cards) held away "
        "from every design in each step of the second stage (default 0: none)",
    )
    parser.add_argument(
        "--attract-weight",
        type=float,
        default=None,
        help="weight of a second-stage term that pulls each drawing's similarity to its own "
        "design up to 0.8 (default 0: none)",
    )
    parser.add_argument(
        "--ink-gain",
        type=float,
        default=None,
        help="the most the network's first layer may stretch a faint drawing's ink (1: no such "
        "layer)",
    )
    parser.add_argument(
        "--occluded-share",
        type=float,
        default=None,
        help="share of training drawings with a pencil or a finger drawn across them (0..1)",
    )
    parser.add_argument(
        "--faded-share",
        type=float,
        default=None,
        help="share of training drawings faded towards the paper, as by glare (0..1)",
    )
    parser.add_argument(
        "--small-share",
        type=float,
        default=None,
        help="share of training drawings shrunk to a far card's 6-20 pixels and stretched back "
        "(0..1)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        help="where the network trains: cpu (default) or a CUDA device index such as 0",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=DEFAULT_WORKERS,
        help="processes that cut the drawings from scenes (default 2)",
    )
    parser.add_argument(
        "--trial",
        action="store_true",
        help="every stage, tiny (one seed's 30 scenes, 30 steps a stage), to see that training "
        "works on this machine in some minutes; the network stays in the run folder (as "
        "--no-ship; default runs/identity-trial) and tells decks apart badly",
    )
    parser.add_argument("--resume", action="store_true", help="continue the run's checkpoint")
    parser.add_argument(
        "--no-ship", action="store_true", help="leave models/ alone (export into the run folder)"
    )
    parser.set_defaults(func=_train_identity, interrupt_on_sigterm=True)  # (as train's)


# the options that set a recipe field of their own name
RECIPE_OPTIONS = (
    "late_scenes",
    "steps",
    "reject_steps",
    "refine_steps",
    "negatives_per_step",
    "attract_weight",
    "ink_gain",
    "occluded_share",
    "faded_share",
    "small_share",
)


@run_writes
def _train_identity(args: argparse.Namespace) -> int:
    import importlib.util
    import json
    from dataclasses import asdict, replace

    from blitzcam.errors import UserError

    if args.steps is not None and not 0 < args.steps <= MAX_STEPS:
        raise UserError(f"--steps must be from 1 to {MAX_STEPS:,}, got {args.steps}")
    if args.reject_steps is not None and args.reject_steps < 0:
        raise UserError(f"--reject-steps must be 0 or more, got {args.reject_steps}")
    if args.refine_steps is not None and args.refine_steps < 0:
        raise UserError(f"--refine-steps must be 0 or more, got {args.refine_steps}")
    if args.refine_random_art_only and not args.refine_steps:  # (the recipe's has none)
        raise UserError(
            "--refine-random-art-only: the third stage trains only with steps (give --refine-steps)"
        )
    if args.late_scenes is not None and args.late_scenes < 0:
        raise UserError(f"--late-scenes must be 0 or more, got {args.late_scenes}")
    if args.workers <= 0:
        raise UserError(f"--workers must be a positive number, got {args.workers}")
    if args.device != "cpu" and not (args.device.isascii() and args.device.isdigit()):
        raise UserError(
            f"--device must be cpu or a CUDA device index such as 0, got {args.device!r}"
        )
    if args.negatives_per_step is not None and args.negatives_per_step < 0:
        raise UserError(f"--negatives-per-step must be 0 or more, got {args.negatives_per_step}")
    if args.attract_weight is not None and not 0 <= args.attract_weight < float("inf"):
        raise UserError(f"--attract-weight must be 0 or more, got {args.attract_weight}")
    if args.ink_gain is not None and not 1 <= args.ink_gain < float("inf"):
        raise UserError(f"--ink-gain must be 1 or more, got {args.ink_gain}")
    for flag, share in (("--occluded-share", args.occluded_share),
                        ("--faded-share", args.faded_share),
                        ("--small-share", args.small_share)):  # fmt: skip
        if share is not None and not 0 <= share <= 1:
            raise UserError(f"{flag} must be between 0 and 1, got {share}")
    data_seeds = None if args.data_seeds is None else _seeds(args.data_seeds)
    widths = None if args.widths is None else _widths(args.widths)
    if importlib.util.find_spec("torch") is None:
        from blitzcam.paths import train_extras_hint

        raise UserError(
            f"training needs torch: install the train extras with {train_extras_hint()}"
        )
    device = torch_device(args.device)
    from blitzcam.commands.train import RESUME_HINT
    from blitzcam.files import write_text_atomic
    from blitzcam.models import IDENTITY_ONNX, MODELS_DIR
    from blitzcam.models.identity_average import join_again_hint, networks_joined
    from blitzcam.models.identity_checkpoint import resumed_recipe, ship
    from blitzcam.models.identity_eval import against_shipped, evaluate_identity, format_report
    from blitzcam.models.identity_network import TRIAL, IdentityRecipe
    from blitzcam.models.identity_training import (
        check_negatives_source,
        train,
        training_data,
        training_negatives,
    )
    from blitzcam.models.run_kind import check_run_start, keeps_to_itself, this_run_alone
    from blitzcam.paths import refused_leaves_no_folder, run_folder, runs_root
    from blitzcam.vision.embedding import Embedder
    from blitzcam.vision.identify import UNKNOWN_BELOW
    from blitzcam.vision.pipeline import default_model_path

    # the options given: over the recipe a resumed run was started with, else the default one
    given: dict[str, object] = {}
    if data_seeds is not None:
        given["data_seeds"] = data_seeds
    if widths is not None:
        given["widths"] = widths
    if args.wide_art:
        given["wide_art"] = True
    if args.refine_random_art_only:
        given["refine_builtin_augmented"] = False
    for field in RECIPE_OPTIONS:
        if getattr(args, field) is not None:
            given[field] = getattr(args, field)
    recipe = replace(TRIAL if args.trial else IdentityRecipe(), **given)
    default_run = runs_root() / ("identity-trial" if args.trial else "identity")
    with ExitStack() as alone:  # (the run folder held until the command ends)
        with refused_leaves_no_folder(args.run or default_run, "--run") as run_dir:
            alone.enter_context(this_run_alone(run_dir, "blitzcam train-identity"))
            check_run_start(run_dir, "identity", resume=args.resume)
            if args.resume:  # a checkpoint of another recipe is refused before drawings are cut
                recipe = resumed_recipe(run_dir / "last.pt", given, recipe)
            # (so is a detector that is not; opened once, here, and used to cut the drawings)
            detector = check_negatives_source(recipe, default_model_path())
        no_ship = keeps_to_itself(
            run_dir,
            no_ship=args.no_ship or args.trial,
            resume=args.resume,
            kind="identity",
            trial=args.trial,
        )
        # its recipe kept from the start, as the detector's is: a run stopped before its end goes on
        # with `--resume` alone (its options had to be typed again, unsaid which)
        write_text_atomic(run_dir / "recipe.json", json.dumps(asdict(recipe), indent=2))
        # said when interrupted once there is a checkpoint to go on from
        args.interrupted_hint = lambda: RESUME_HINT if (run_dir / "last.pt").is_file() else None
        # each progress line as it is printed: to a file or a pipe (`> log`, `| tee`) Python holds
        # them in a block, and an hour and a half's 180 lines came out at the end
        if isinstance(sys.stdout, io.TextIOWrapper):
            sys.stdout.reconfigure(line_buffering=True)
        data, val = training_data(
            recipe, run_dir, workers=workers_for(args.workers, said=args.workers != DEFAULT_WORKERS)
        )
        # cut with the detector that counting runs: its boxes on no back are what must stay unknown
        negatives = training_negatives(recipe, run_dir, default_model_path(), detector)
        checkpoint = train(
            data, recipe, run_dir, negatives=negatives, resume=args.resume, device=device
        )
        # the network shipped until now, on the same drawings (read before `ship` replaces it); one
        # that cannot be read is no reason to hold back the network just trained
        before = MODELS_DIR / IDENTITY_ONNX.name
        previous, joined = None, 1
        if before.is_file():
            try:
                previous = evaluate_identity(Embedder(before).embed, val)
                joined = networks_joined(before)  # (a file the engine just read: onnx reads it too)
            except UserError as exc:
                print(f"not compared with the network models/ held: {exc}")
        target = run_folder(run_dir / "export" if no_ship else MODELS_DIR, "export to")
        shipped = ship(checkpoint, target)
        report = evaluate_identity(Embedder(shipped["onnx"]).embed, val)
        print(format_report(report))
        if previous is not None:
            print(f"against the network models/ held before this run, at the {UNKNOWN_BELOW} line:")
            print("\n".join(against_shipped(report, previous, UNKNOWN_BELOW)))
        write_text_atomic(
            run_dir / "report.json",
            json.dumps(
                {"recipe": asdict(recipe), "validation": report, "shipped_before": previous},
                indent=2,
            ),
        )
        print(f"identity network written: {shipped['onnx']} and {shipped['pt']}")
        if joined > 1 and not no_ship:
            print(join_again_hint(MODELS_DIR, joined))
        return 0


def _whole_numbers(text: str, flag: str) -> tuple[int, ...]:
    """'1,3,5' -> (1, 3, 5), or a one-line error naming `flag`."""
    from blitzcam.errors import UserError

    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise UserError(f"{flag} must be comma-separated whole numbers, got {text!r}") from None


def _seeds(text: str) -> tuple[int, ...]:
    """'1,3,5' -> (1, 3, 5): distinct non-negative integers (a seed twice repeats its designs)."""
    from blitzcam.errors import UserError

    seeds = _whole_numbers(text, "--data-seeds")
    # past 32 bits a scene seed wraps onto another's scenes (`dataset generate` refuses it too)
    if any(not 0 <= seed < 2**32 for seed in seeds) or len(set(seeds)) != len(seeds):
        raise UserError(
            f"--data-seeds must be distinct numbers from 0 to {2**32 - 1}, got {text!r}"
        )
    return seeds


def _widths(text: str) -> tuple[int, int, int]:
    """'24,48,96' -> (24, 48, 96): three positive integers, one per stage of the network."""
    from blitzcam.errors import UserError

    widths = _whole_numbers(text, "--widths")
    if len(widths) != 3 or any(not 1 <= width <= MAX_WIDTH for width in widths):
        raise UserError(f"--widths must be three numbers from 1 to {MAX_WIDTH}, got {text!r}")
    return widths[0], widths[1], widths[2]
