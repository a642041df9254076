"""Scene generator throughput: `dataset generate` at 1280x720 with every core vs one worker.

    python -m benchmarks.generator_bench [--n 200] [--res 1280x720] [--rounds 1]

Runs the real `generate_dataset` (render, encode, write) into a temporary folder and reports
scenes per second for all cores and for one worker, measured back to back in the same run (so
the ratio is fair even on a shared machine), plus the load average the machine had at the time.
It also reports the CPU seconds each scene cost (this process and its workers together), and
what that makes on idle cores: on a machine others are using, wall-clock scenes/s measures the
neighbours as much as the generator. The target in the brief is >= 20 scenes/s at 1280x720 on
the 2-core box.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from blitzcam.datasets.generate import GenerateRequest, generate_dataset, parse_resolution


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # workers, once the pool has joined
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _time_run(
    out: Path, *, n: int, res: tuple[int, int], workers: int, seed: int
) -> tuple[float, float]:
    """(scenes per second of wall clock, CPU seconds per scene)."""
    cpu, start = _cpu_seconds(), time.perf_counter()
    generate_dataset(
        GenerateRequest(
            out=out, n=n, seed=seed, res=res, workers=workers, progress=False, overwrite=True
        )
    )
    return n / (time.perf_counter() - start), (_cpu_seconds() - cpu) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="scenes per run")
    parser.add_argument("--res", default="1280x720")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    res = parse_resolution(args.res)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="blitzcam-genbench-") as tmp:
        # A short warm-up so imports and the art caches are not charged to the first run.
        _time_run(Path(tmp) / "warm", n=4, res=res, workers=1, seed=args.seed)
        for r in range(args.rounds):
            load = os.getloadavg()[0]
            parallel, cpu_all = _time_run(
                Path(tmp) / "all", n=args.n, res=res, workers=cores, seed=args.seed
            )
            single, cpu_one = _time_run(
                Path(tmp) / "one", n=max(args.n // 4, 8), res=res, workers=1, seed=args.seed
            )
            print(
                f"round {r + 1}: {res[0]}x{res[1]}  {cores} workers {parallel:.1f} scenes/s  "
                f"1 worker {single:.1f} scenes/s  speed-up x{parallel / single:.2f}  "
                f"(load average before: {load:.2f})\n"
                f"  CPU per scene: {cpu_all * 1e3:.0f} ms with {cores} workers (all processes), "
                f"{cpu_one * 1e3:.0f} ms in one process -> on {cores} idle cores "
                f"~{cores / cpu_all:.1f} scenes/s"
            )


if __name__ == "__main__":
    main()
