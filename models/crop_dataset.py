"""The detector's training crops, cut from a scene dataset into a YOLO dataset of their own:
in parallel, deterministic for any number of workers, and never left half-written."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from blitzcam.datasets.labels import data_yaml as data_yaml_text
from blitzcam.files import write_text_atomic
from blitzcam.models.crops import (
    crop_windows,
    cut_crop,
    obb_label_text,
    read_canonical,
)
from blitzcam.models.mining import Mistakes, hard_windows
from blitzcam.models.recipe import Recipe
from blitzcam.worker_pool import sigterm_unwinds, spawned_pool, workers_for


def _write_jpeg(path: Path, image: np.ndarray, quality: int = 92) -> None:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError(f"cannot encode {path}")
    path.write_bytes(encoded.tobytes())


@dataclass(frozen=True, slots=True)
class _CropJob:
    """One scene's crops: where the scene is, where its crops go, what seeds them."""

    image: Path
    label: Path
    out: Path  # the crop dataset's root: crops go to out/images/<split>, out/labels/<split>
    split: str
    rng_key: tuple[int, int, int]  # (recipe seed, split index, scene index)
    recipe: Recipe
    hard: tuple[tuple[float, float], ...] = ()  # the previous stage's mistakes, canonical pixels
    hard_share: float = 0.0  # of the crops, at most, centred on them


def _cut_scene_crops(job: _CropJob) -> None:
    """Crops of one scene, written as JPEG + label pairs."""
    from blitzcam.errors import UserError

    recipe = job.recipe
    try:  # (raised in a worker process: a UserError reaches the command as one line)
        item = read_canonical(job.image, job.label, recipe.canonical_width)
    except (OSError, ValueError) as exc:
        raise UserError(f"{exc}: the scene dataset is damaged; generate it again") from None
    rng = np.random.default_rng(list(job.rng_key))
    if job.hard_share > 0:
        windows = hard_windows(
            item,
            np.array(job.hard, np.float64).reshape(-1, 2),
            rng,
            size=recipe.crop_size,
            count=recipe.crops_per_scene,
            hard_share=job.hard_share,
        )
    else:
        windows = crop_windows(item, rng, size=recipe.crop_size, count=recipe.crops_per_scene)
    for k, (x0, y0) in enumerate(windows):
        crop = cut_crop(item, x0, y0, recipe.crop_size)
        stem = f"{job.image.stem}_c{k}"
        _write_jpeg(job.out / "images" / job.split / f"{stem}.jpg", crop.image)
        (job.out / "labels" / job.split / f"{stem}.txt").write_text(
            obb_label_text(crop), encoding="utf-8"
        )


def build_crop_dataset(
    scenes_dir: Path,
    out_dir: Path,
    recipe: Recipe,
    *,
    splits: tuple[str, ...] = ("train", "val"),
    workers: int = 1,
    mistakes: Mistakes | None = None,
    hard_share: float = 0.0,
) -> Path:
    """Cut crops at inference scale from a scene dataset; returns the crops' data.yaml.

    With `mistakes` (by "split/stem", from models/mining.py), up to `hard_share` of each scene's
    crops are centred on them.

    Deterministic: the crops of scene i depend only on (recipe.seed, split, i), so any number
    of worker processes writes the same files. Written into a temporary folder and renamed, so
    an interrupted run never leaves a half dataset behind (the part cut is removed, and a
    part left by a run killed outright is removed by the next).
    """
    data_yaml = out_dir / "data.yaml"
    if data_yaml.is_file():
        text = data_yaml_text(None, splits)
        if data_yaml.read_text(encoding="utf-8") != text:  # cut by a release that named its root
            write_text_atomic(data_yaml, text)
        return data_yaml
    tmp = out_dir.with_name(out_dir.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    with sigterm_unwinds():  # (a kill unwinds as Ctrl+C does: workers stopped, the part removed)
        try:
            _cut_all(_jobs(scenes_dir, tmp, recipe, splits, mistakes or {}, hard_share), workers)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    # no root named: a run folder copied back from a GPU machine, or moved, still finds them
    (tmp / "data.yaml").write_text(data_yaml_text(None, splits), encoding="utf-8")
    shutil.rmtree(out_dir, ignore_errors=True)
    tmp.rename(out_dir)
    return data_yaml


def _cut_all(jobs: list[_CropJob], workers: int) -> None:
    workers = workers_for(workers, len(jobs), said=False)
    # (closed however it ends: a scene refused left the bar open, and the error was printed on
    # its line, "0/5 [00:00<?]blitzcam train: error: ...")
    with tqdm(total=len(jobs), desc="crops", unit="scene") as progress:
        if workers <= 1:
            for job in jobs:
                _cut_scene_crops(job)
                progress.update()
        else:
            with spawned_pool(workers) as pool:
                for _ in pool.imap_unordered(_cut_scene_crops, jobs, chunksize=16):
                    progress.update()


def _jobs(
    scenes_dir: Path,
    tmp: Path,
    recipe: Recipe,
    splits: tuple[str, ...],
    hard: Mistakes,
    hard_share: float,
) -> list[_CropJob]:
    """Each scene's crop job, its split's folders made in `tmp`; UserError for a scene whose
    label file is gone."""
    jobs: list[_CropJob] = []
    for split_index, split in enumerate(splits):
        images = sorted((scenes_dir / "images" / split).glob("*.jpg"))
        if not images:  # (a resumed run's dataset moved, its crops gone: a traceback)
            from blitzcam.errors import UserError

            gone = "no such folder" if not scenes_dir.is_dir() else "no .jpg scene in it"
            raise UserError(
                f"{scenes_dir / 'images' / split}: {gone}: the scenes to cut crops of are "
                "gone (moved? a run resumes from the dataset it was started on)"
            )
        (tmp / "images" / split).mkdir(parents=True)
        (tmp / "labels" / split).mkdir(parents=True)
        labels = scenes_dir / "labels" / split
        for path in images:  # the generator writes one for every scene, empty for no cards
            if not (labels / f"{path.stem}.txt").is_file():
                from blitzcam.errors import UserError

                raise UserError(
                    f"{labels / path.stem}.txt: missing, for the scene {path}: the scene "
                    "dataset is damaged; generate it again"
                )
        jobs += [
            _CropJob(
                path,
                labels / f"{path.stem}.txt",
                tmp,
                split,
                (recipe.seed, split_index, i),
                recipe,
                hard=tuple(map(tuple, hard.get(f"{split}/{path.stem}", []))),
                hard_share=hard_share,
            )
            for i, path in enumerate(images)
        ]
    return jobs
