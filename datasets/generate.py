"""Write a synthetic OBB dataset: scenes rendered on every core, written whole or not at all.

Scene i's randomness comes only from ``SeedSequence([seed, i])``, so the dataset is the same,
byte for byte, whatever the number of workers. Workers render and encode; the parent process
writes files in index order into ``DIR.tmp-*`` and renames it to DIR at the very end, so an
interrupted or failed run leaves no half-written dataset behind (one killed outright leaves its
``DIR.tmp-*``, which the next run into DIR deletes: the lock its writer held is free). Workers
are spawned, not forked: a fork after OpenCV has started its thread pool in the parent
deadlocks the child.
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final

import numpy as np

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

from blitzcam.datasets.compose import ArtCache, SceneConfig, compose_scene
from blitzcam.datasets.labels import SPLITS, data_yaml, ground_truth, ground_truth_text, label_text
from blitzcam.datasets.photometric import encode_jpeg
from blitzcam.errors import UserError, first_and_more
from blitzcam.files import file_managers_own
from blitzcam.paths import expand_home, link_into_nothing, resolved, why_no_folder
from blitzcam.worker_pool import sigterm_unwinds, spawned_pool

DEFAULT_ART_MODULE: Final = "blitzcam.datasets.art"
RES_LIMITS: Final = ((320, 4096), (240, 4096))  # sensible (min, max) width and height
MAX_SCENES: Final = 1_000_000  # (--n 10**20 listed its scenes until memory ran out)
ENVELOPE_RES: Final = ((1280, 720), (1920, 1080))
SPLIT_SHARES: Final = (0.8, 0.1, 0.1)
MANIFEST: Final = "generator.json"
# a seed is one 32-bit word of its scenes' SeedSequence: a larger one spills into the next word
# and draws another seed's scenes (2**32 + 5 drew seed 5's, one scene on)
MAX_SEED: Final = 2**32


@dataclass(frozen=True)
class GenerateRequest:
    """Everything one `dataset generate` run needs; `res` None draws a resolution per scene."""

    out: Path
    n: int
    seed: int
    res: tuple[int, int] | None = None
    holdout: bool = False
    overwrite: bool = False
    workers: int = 0  # 0: one per CPU core
    art_module: str = DEFAULT_ART_MODULE  # a module name, or the path of a .py file
    progress: bool = True
    chunksize: int = 4
    photometric: bool = True
    late_rounds: float = 0.0  # the share of scenes drawn as a big game's late round (plan.py)
    wide_art: bool = False  # random art of the wider families too (art.WIDE_FAMILIES)
    # an interrupted run's scenes are kept beside `out` (`_kept_name`), and the next run of the
    # same request renders only the rest (training's thousands of scenes: half an hour on 2
    # cores, started again from nothing after a Ctrl+C)
    keep_unfinished: bool = False

    def fingerprint(self) -> dict[str, Any]:
        """What makes the scenes what they are (scene `i` is the same for the same of these)."""
        return {
            "n": self.n,
            "seed": self.seed,
            "res": list(self.res) if self.res else None,
            "holdout": self.holdout,
            "art_module": self.art_module,
            "photometric": self.photometric,
            "late_rounds": self.late_rounds,
            "wide_art": self.wide_art,
        }

    def __post_init__(self) -> None:
        if not 0.0 <= self.late_rounds <= 1.0:
            raise ValueError(f"late_rounds must be a share from 0 to 1, got {self.late_rounds}")
        if not 0 < self.n <= MAX_SCENES:
            raise ValueError(f"n must be from 1 to {MAX_SCENES:,} scenes, got {self.n}")
        if not 0 <= self.seed < MAX_SEED:
            raise ValueError(f"seed must be from 0 to {MAX_SEED - 1}, got {self.seed}")
        if self.res is not None:
            check_resolution(self.res)


@dataclass(frozen=True)
class SceneFiles:
    """One rendered scene, encoded: what the parent process writes for index `index`."""

    index: int
    split: str
    jpeg: bytes
    labels: str
    truth: str
    counts: dict[str, int]


def parse_resolution(text: str) -> tuple[int, int]:
    """'1280x720' -> (1280, 720); ValueError naming what was wrong."""
    parts = text.lower().split("x")
    # (ascii: str.isdigit() also takes '²', which int() refuses)
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise ValueError(f"resolution must look like 1280x720, got {text!r}")
    res = (int(parts[0]), int(parts[1]))
    check_resolution(res)
    return res


def check_resolution(res: tuple[int, int]) -> None:
    (wmin, wmax), (hmin, hmax) = RES_LIMITS
    width, height = res
    if not (wmin <= width <= wmax and hmin <= height <= hmax):
        raise ValueError(
            f"resolution must be {wmin}..{wmax} x {hmin}..{hmax} pixels, got {width}x{height}"
        )


def split_sizes(n: int) -> tuple[int, int, int]:
    """(train, val, test) counts for n scenes: 80/10/10, val and test non-empty from n = 3."""
    val = max(1, round(n * SPLIT_SHARES[1])) if n >= 3 else 0
    test = max(1, round(n * SPLIT_SHARES[2])) if n >= 3 else 0
    return n - val - test, val, test


def split_of(index: int, n: int) -> str:
    """The split of scene `index`: the first 80 % train, then val, then test."""
    train, val, _ = split_sizes(n)
    return "train" if index < train else "val" if index < train + val else "test"


def scene_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, index]))


def sample_resolution(rng: np.random.Generator) -> tuple[int, int]:
    """The envelope's two webcam resolutions, or one in between (16:9, even sides)."""
    pick = rng.random()
    if pick < 0.35:
        return ENVELOPE_RES[0]
    if pick < 0.7:
        return ENVELOPE_RES[1]
    width = 2 * int(rng.integers(ENVELOPE_RES[0][0] // 2, ENVELOPE_RES[1][0] // 2 + 1))
    return width, 2 * round(width * 9 / 32)


def families_for(split: str, *, holdout: bool, art: Any, wide: bool = False) -> tuple[str, ...]:
    """Random-art families a scene of `split` may use. With holdout, HOLDOUT_FAMILY never
    appears in train/val, and test scenes' random backs are all of it; `wide` adds the art
    module's WIDE_FAMILIES (a dataset without them draws as it always did)."""
    wider: tuple[str, ...] = ()
    if wide:
        wider = tuple(getattr(art, "WIDE_FAMILIES", ()))
        if not wider:
            name = getattr(art, "__name__", str(art))
            raise ValueError(f"the card art {name} has no wider art families (WIDE_FAMILIES)")
    every = tuple(dict.fromkeys([*art.RANDOM_FAMILIES, art.HOLDOUT_FAMILY, *wider]))
    if not holdout:
        return every
    if split == "test":
        return (art.HOLDOUT_FAMILY,)
    return tuple(f for f in every if f != art.HOLDOUT_FAMILY)


def load_art(spec: str) -> ModuleType:
    """The card-art module: `spec` is a module name, or a .py file's path (tests' stand-ins)."""
    if not spec.endswith(".py"):
        return importlib.import_module(spec)
    name = f"blitzcam_art_{zlib.crc32(spec.encode()):08x}"  # same name in every worker
    if name not in sys.modules:
        module_spec = importlib.util.spec_from_file_location(name, spec)
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"{spec}: cannot load card art from this file")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    return sys.modules[name]


def render_scene_files(request: GenerateRequest, art: ArtCache, index: int) -> SceneFiles:
    """Render, encode and label scene `index` (pure in (request, index))."""
    rng = scene_rng(request.seed, index)
    split = split_of(index, request.n)
    res = request.res or sample_resolution(rng)
    # drawn only when asked for: every other dataset keeps its bytes
    late_round = request.late_rounds > 0 and rng.random() < request.late_rounds
    config = SceneConfig(
        res,
        families_for(split, holdout=request.holdout, art=art.art, wide=request.wide_art),
        photometric=request.photometric,
        late_round=late_round,
    )
    scene = compose_scene(rng, config, art)
    stem = f"{index:06d}"
    truth = ground_truth(scene, stem=stem, split=split, seed=request.seed, index=index)
    truth["art_module"] = request.art_module
    return SceneFiles(
        index,
        split,
        encode_jpeg(scene.image, scene.jpeg_quality),
        label_text(scene),
        ground_truth_text(truth),
        truth["counts"],
    )


_WORKER: dict[str, Any] = {}


def _init_worker(request: GenerateRequest) -> None:
    import cv2

    cv2.setNumThreads(1)  # one process per core already
    _WORKER["request"] = request
    _WORKER["art"] = ArtCache(load_art(request.art_module))


def _render_in_worker(index: int) -> SceneFiles:
    return render_scene_files(_WORKER["request"], _WORKER["art"], index)


def _rendered(
    request: GenerateRequest, workers: int, indices: Sequence[int]
) -> Iterator[SceneFiles]:
    if workers <= 1:
        art = ArtCache(load_art(request.art_module))
        for index in indices:
            yield render_scene_files(request, art, index)
        return
    pool = spawned_pool(workers, _init_worker, (request,))
    try:
        yield from pool.imap(_render_in_worker, indices, chunksize=request.chunksize)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _check_out_dir(out: Path, *, overwrite: bool) -> None:
    try:
        if out.exists() and not out.is_dir():
            raise UserError(f"{out}: exists and is not a folder")
        if os.path.ismount(out):  # (found only at the end: every scene written on the disk above)
            raise UserError(
                f"{out}: a mount point: the dataset is built beside it and moved in at the end, "
                "which a mount point cannot take; give a folder inside it"
            )
        if out.is_dir() and not os.access(out, os.W_OK):
            # (the new dataset is moved in over it: a folder `cp` or `>` could not write into
            # was replaced all the same, its write protection gone)
            raise UserError(f"{out}: the folder is write-protected: choose another")
        if out.is_dir() and any(out.iterdir()):
            if not overwrite:
                raise UserError(f"{out}: folder is not empty (pass --overwrite to replace it)")
            if not (out / MANIFEST).is_file():  # one slip in --out must not cost someone's files
                raise UserError(
                    f"{out}: not a dataset this command wrote (no {MANIFEST}): --overwrite "
                    "replaces only those; choose an empty or new folder"
                )
            # (nor a file put in one since: notes, a dataset made inside it, a photo of a real
            # table added to its images with its label)
            foreign = foreign_entries(out)
            if foreign:
                raise UserError(
                    f"{out}: holds {first_and_more(foreign)}, which this command did not write: "
                    "--overwrite replaces only a dataset as it wrote it; move them out first"
                )
    except OSError as exc:  # a folder that cannot be listed, or one above it entered
        raise UserError(
            f"{out}: cannot use it as the dataset folder ({exc.strerror or exc})"
        ) from None


# what a dataset folder holds as this command writes it (training adds only to labels/)
DATASET_ENTRIES: Final = frozenset({"data.yaml", MANIFEST, "images", "labels", "scenes"})
SCENE_PICTURES: Final = "images/*/*.jpg"  # each scene's picture, in its split's folder
# ... in its split folders: a scene's picture, labels and ground truth (000123.jpg, .txt,
# .json); beside them in labels/, the label caches ultralytics writes (train.cache)
_SCENE_FILE: Final = re.compile(r"\d{6,}\.(jpg|txt|json)")
_LABEL_CACHE: Final = re.compile(r"(train|val|test)\.cache(\.npy)?")


def foreign_entries(out: Path) -> list[str]:
    """What a dataset folder holds that this command did not write, as paths inside it, in
    order (OSError where a folder cannot be listed); a file manager's own files aside."""
    foreign = []
    for entry in sorted(out.iterdir()):
        if file_managers_own(entry.name):  # (no reason to refuse --overwrite)
            continue
        if entry.name not in DATASET_ENTRIES:
            foreign.append(entry.name)
        elif entry.is_dir():
            for inside in sorted(entry.iterdir()):
                if file_managers_own(inside.name) or (
                    entry.name == "labels" and _LABEL_CACHE.fullmatch(inside.name)
                ):
                    continue
                if inside.name not in SPLITS or not inside.is_dir():
                    foreign.append(f"{entry.name}/{inside.name}")
                    continue
                foreign += [
                    f"{entry.name}/{inside.name}/{file.name}"
                    for file in sorted(inside.iterdir())
                    if not (_SCENE_FILE.fullmatch(file.name) and file.is_file())
                    and not file_managers_own(file.name)
                ]
    return foreign


# the fewest bytes a scene's JPEG takes per pixel (0.032 on 100 held-out scenes; the median
# 0.11): a run that cannot fit even so is refused before it starts, not when the disk is full
LEAST_JPEG_BYTES_PER_PIXEL: Final = 0.03


def least_bytes(request: GenerateRequest, scenes: int | None = None) -> int:
    """The least disk space `scenes` of `request`'s scenes (all of them: None) can take."""
    width, height = request.res or ENVELOPE_RES[0]
    count = request.n if scenes is None else scenes
    return int(count * width * height * LEAST_JPEG_BYTES_PER_PIXEL)


def _said_size(size: int) -> str:
    if size >= 1e9:
        return f"{size / 1e9:.1f} GB"
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} kB"


def kept_unfinished(out: Path) -> tuple[Path, int] | None:
    """Where an interrupted run into `out` kept its scenes, and how many, if it did."""
    kept = _kept_name(resolved(expand_home(out)))
    if not kept.is_dir() or kept.is_symlink():
        return None
    return kept, sum(1 for _ in kept.glob(SCENE_PICTURES))


def generate_dataset(request: GenerateRequest) -> Path:
    """Write the dataset to request.out (made absolute) and return that path."""
    from tqdm import tqdm

    if (why := link_into_nothing(expand_home(request.out))) is not None:
        raise UserError(f"{request.out}: {why}")
    try:
        out = resolved(expand_home(request.out))
    except OSError:
        raise UserError(f"{request.out}: a loop of links, not a folder") from None
    try:  # first: a folder a killed run was replacing is back before `out` is looked at
        _sweep_abandoned(out)
    except OSError as exc:
        raise UserError(
            f"{out}: cannot tidy what a killed run left ({exc.strerror or exc})"
        ) from None
    _check_out_dir(out, overwrite=request.overwrite)
    if request.wide_art:  # an art module without wider families: said before any work
        families_for("train", holdout=request.holdout, art=load_art(request.art_module), wide=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp, lock = _claim_unfinished(out)
    except OSError as exc:
        raise UserError(
            f"{out}: cannot create the dataset folder ({why_no_folder(out, exc)})"
        ) from None
    workers = request.workers or os.cpu_count() or 1
    workers = max(1, min(workers, request.n))
    with sigterm_unwinds():  # (unwinds as Ctrl+C does: the temporary folder is removed)
        try:
            taken = request.keep_unfinished and _take_kept(_kept_name(out), tmp, request)
            for kind in ("images", "labels", "scenes"):
                for split in SPLITS:
                    (tmp / kind / split).mkdir(parents=True, exist_ok=True)
            counts: Counter[str] = Counter()
            per_split: Counter[str] = Counter()
            done = _scenes_written(tmp, request.n, counts, per_split) if taken else set()
            todo = [index for index in range(request.n) if index not in done]
            # said now, not when the disk is full; the scenes kept from before are on it already
            need, free = least_bytes(request, len(todo)), shutil.disk_usage(tmp).free
            if need > free:
                left = f" (of {request.n:,}; {len(done):,} kept from before)" if done else ""
                if done:  # kept again for a run with more room, not deleted with the refusal
                    _keep(tmp, _kept_name(out), request)
                raise UserError(
                    f"{out}: {len(todo):,} scenes{left} take at least {_said_size(need)}, and "
                    f"{_said_size(free)} are free there"
                )
            bar = tqdm(
                total=request.n,
                initial=len(done),
                unit="scene",
                desc="generate",
                disable=not request.progress,
            )
            with bar:
                for files in _rendered(request, workers, todo):
                    stem = f"{files.index:06d}"
                    (tmp / "images" / files.split / f"{stem}.jpg").write_bytes(files.jpeg)
                    (tmp / "labels" / files.split / f"{stem}.txt").write_text(
                        files.labels, encoding="utf-8"
                    )
                    (tmp / "scenes" / files.split / f"{stem}.json").write_text(
                        files.truth, encoding="utf-8"
                    )
                    counts.update(files.counts)
                    per_split[files.split] += 1
                    bar.update(1)
            manifest = {
                "n": request.n,
                "seed": request.seed,
                "res": list(request.res) if request.res else None,
                "holdout": request.holdout,
                "art_module": request.art_module,
                "splits": {split: per_split[split] for split in SPLITS},
                "backs_per_deck": dict(sorted(counts.items())),
            }
            if request.late_rounds:  # said only when asked for: other datasets keep their bytes
                manifest["late_rounds"] = request.late_rounds
            if request.wide_art:
                manifest["wide_art"] = True
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
            # written last: the dataset is complete. It names no folder: ultralytics reads the
            # splits beside it, so the dataset can be moved or copied to another machine
            (tmp / "data.yaml").write_text(data_yaml(None), encoding="utf-8")
            umask = os.umask(0)
            os.umask(umask)
            # made 0700 while unfinished: as any folder the user makes, now
            tmp.chmod(0o777 & ~umask)
            try:  # again: a folder made at `out` meanwhile (another run into it, one's notes)
                # is not replaced unasked, as it was not there when the run began
                _check_out_dir(out, overwrite=request.overwrite)
            except UserError as exc:
                if request.keep_unfinished and _keep(tmp, _kept_name(out), request):
                    raise UserError(
                        f"{exc} (made there while the scenes were: they are kept beside it, "
                        "and the same command takes them up once the folder is free)"
                    ) from None
                raise
            _swap_in(tmp, out)
        except OSError as exc:  # a full disk, a quota: nothing half-written is left
            shutil.rmtree(tmp, ignore_errors=True)
            raise UserError(f"{out}: could not write the dataset ({exc.strerror or exc})") from None
        except (KeyboardInterrupt, SystemExit):  # Ctrl+C, SIGTERM
            if not (request.keep_unfinished and _keep(tmp, _kept_name(out), request)):
                shutil.rmtree(tmp, ignore_errors=True)
            raise
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        finally:
            _release(lock)
    return out


LOCK_SUFFIX: Final = ".lock"
REPLACED_SUFFIX: Final = ".old"  # (shorter than LOCK_SUFFIX: the name fits where the lock's does)


def _unfinished_prefix(out: Path) -> str:
    """The name an unfinished `out` folder and its lock begin with: `out`'s own name, cut so
    that the lock's name stays within the 255 bytes a file name may have (a name a folder may
    have was refused as "File name too long")."""
    name = out.name
    while len(f"{name}.tmp-XXXXXXXX{LOCK_SUFFIX}".encode()) > UNFINISHED_NAME_MAX:
        name = name[:-1]
    return f"{name}.tmp-"


UNFINISHED_NAME_MAX: Final = 255
KEPT_REQUEST: Final = "request.json"  # in a kept folder: the request its scenes are of


def _kept_name(out: Path) -> Path:
    """Where an interrupted run keeps its scenes for the next (never swept: it has no lock)."""
    return out.parent / f"{_unfinished_prefix(out)}kept"


def _keep(tmp: Path, kept: Path, request: GenerateRequest) -> bool:
    """`tmp`'s scenes kept at `kept` for the next run of `request`; whether they were (not
    where there are none: an interrupt before the first scene leaves nothing to go on from)."""
    if next(tmp.glob(SCENE_PICTURES), None) is None:
        return False
    try:
        (tmp / KEPT_REQUEST).write_text(json.dumps(request.fingerprint()), encoding="utf-8")
        shutil.rmtree(kept, ignore_errors=True)
        tmp.rename(kept)
    except OSError:
        return False
    return True


def _take_kept(kept: Path, tmp: Path, request: GenerateRequest) -> bool:
    """An interrupted run's scenes made `tmp`'s when they are of the same request (whether
    they were); those of another are deleted (this request's would be rendered again)."""
    if not kept.is_dir() or kept.is_symlink():
        return False
    try:
        same = (
            json.loads((kept / KEPT_REQUEST).read_text(encoding="utf-8")) == request.fingerprint()
        )
    except (OSError, ValueError):
        same = False
    if not same:
        shutil.rmtree(kept, ignore_errors=True)
        return False
    try:
        tmp.rmdir()  # (made empty by _claim_unfinished: its lock stays, naming it)
        kept.rename(tmp)
    except FileNotFoundError:  # another run of it took them meanwhile
        tmp.mkdir(mode=0o700, exist_ok=True)
        return False
    (tmp / KEPT_REQUEST).unlink(missing_ok=True)
    return True


def _scenes_written(tmp: Path, n: int, counts: Counter[str], per_split: Counter[str]) -> set[int]:
    """The scenes whose three files a kept run wrote whole (the ground truth last), counted
    into `counts` and `per_split`; a scene's files left half-written are deleted."""
    done: set[int] = set()
    for index in range(n):
        split, stem = split_of(index, n), f"{index:06d}"
        files = [
            tmp / "images" / split / f"{stem}.jpg",
            tmp / "labels" / split / f"{stem}.txt",
            tmp / "scenes" / split / f"{stem}.json",
        ]
        if not any(path.exists() for path in files):
            continue
        try:
            truth = (
                json.loads(files[2].read_text(encoding="utf-8"))
                if all(p.is_file() for p in files)
                else None
            )
        except (OSError, ValueError):
            truth = None
        if not isinstance(truth, dict) or not isinstance(truth.get("counts"), dict):
            for path in files:
                path.unlink(missing_ok=True)
            continue
        done.add(index)
        counts.update(truth["counts"])
        per_split[split] += 1
    return done


def _claim_unfinished(out: Path) -> tuple[Path, tuple[int, Path] | None]:
    """A new folder beside `out` to write into, and the lock its writer holds until it is done
    (its file beside the folder): a later run tells a folder that a killed run left (SIGKILL, a
    power cut: no cleanup ran) from one being written, on this machine or another."""
    if fcntl is None:  # (no flock: nothing is swept either)
        return Path(tempfile.mkdtemp(prefix=_unfinished_prefix(out), dir=out.parent)), None
    fd, name = tempfile.mkstemp(prefix=_unfinished_prefix(out), suffix=LOCK_SUFFIX, dir=out.parent)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        folder = Path(name.removesuffix(LOCK_SUFFIX))
        folder.mkdir(mode=0o700)
    except BaseException:
        _release((fd, Path(name)))
        raise
    return folder, (fd, Path(name))


def _release(lock: tuple[int, Path] | None) -> None:
    if lock is not None:
        lock[1].unlink(missing_ok=True)  # (while still held: no sweeper takes it meanwhile)
        os.close(lock[0])


def _sweep_abandoned(out: Path) -> None:
    """Delete the unfinished `out` folders (scenes, gigabytes of them) that killed runs left
    beside it: those whose lock nobody holds. A folder still being written, by this machine or
    another on a shared disk, keeps its writer's lock. A folder such a run was replacing is
    put back or deleted (`_finish_swap`)."""
    if fcntl is None:
        return
    for lock in out.parent.glob(f"{glob.escape(_unfinished_prefix(out))}*{LOCK_SUFFIX}"):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:  # gone meanwhile, a link, another user's
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # its writer runs
            os.close(fd)
            continue
        folder = lock.with_name(lock.name.removesuffix(LOCK_SUFFIX))
        _finish_swap(_replaced_name(folder), out)
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)
        _release((fd, lock))


def _replaced_name(tmp: Path) -> Path:
    """Where `_swap_in` keeps the folder `tmp` replaces while it swaps: named after `tmp`, so
    that a sweep knows it by `tmp`'s lock."""
    return tmp.with_name(f"{tmp.name}{REPLACED_SUFFIX}")


def _finish_swap(replaced: Path, out: Path) -> None:
    """After a run killed in the middle of `_swap_in`: the folder it was replacing goes back to
    `out` when `out` is not there (killed between the two renames: the run never finished),
    and is deleted when it is (killed while deleting it)."""
    if not replaced.is_dir() or replaced.is_symlink():
        return
    if out.exists() or out.is_symlink():
        shutil.rmtree(replaced, ignore_errors=True)
    else:
        replaced.rename(out)


def _swap_in(tmp: Path, out: Path) -> None:
    """Put the finished folder at `out`, replacing what was there (checked beforehand)."""
    if not out.exists():
        tmp.rename(out)
        return
    old = _replaced_name(tmp)
    out.rename(old)
    try:
        tmp.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)
