#!/usr/bin/env bash
# The detector's stage 5 (`blitzcam train --from-shipped --more-hours H`): from the shipped
# weights, stage 3's schedule again on fresh scenes, a quarter of them a big game's late rounds,
# on a borrowed GPU machine that has Python, torch (CUDA), OpenCV and numpy but no ultralytics
# and no network. Stage 3 ran 10 epochs in its 0.1 h and its validation recall was still
# rising (models/MODEL_CARD.md). Run on a lent GPU at stops 46 and 47 (the model card).
#
# Prepared on the development machine (where pip can reach the registry):
#   .whl/   ultralytics 8.4.190, ultralytics-thop, ultralytics-platform, platformdirs and tqdm
#           wheels (`.venv/bin/pip download --no-deps ... -d .whl`), all pure Python, carried
#           with the working tree (the device tool's carry: [".whl"]); polars is not carried
#           (54 MB): scripts/gpu_shim stands in for the one call ultralytics makes.
# Then: scripts/gpu_detector_more.sh OUT_DIR SECONDS, with SECONDS at least 30 under the call's
# own limit (the last 25 are kept to stop and copy back). HOURS (default 0.1) is the training's
# own budget, which ultralytics keeps itself, stopping cleanly at an epoch's end: size it so
# that set-up, the scenes (12,000 cut into crops: about 160 s on 16 cores, from stage 3's 70 s
# for 8,000) and the last validation fit in SECONDS too; a stop by SECONDS instead loses the
# epoch under way (last.pt is saved once an epoch).
# Sizing: a task has 15 device minutes, start-up included; one call of 9.5 minutes (570 s) with
# HOURS=0.1 leaves about 2 minutes spare.
# More time on a warm machine: the same command again goes on from the last epoch, with
# HOURS again in full (ultralytics restarts its clock on resume). On a fresh machine,
# RESUME_FROM=FILE (a last.pt brought back, carried in the working tree: e.g.
# runs/detector-more/more/weights/last.pt as put together below, with carry
# runs/detector-more/more/weights/last.pt, runs/detector-more/more/results.csv and
# runs/detector-more/more/train_seconds.json, found beside it or a folder up; not the whole
# folder: its best.pt too passes the carry's 64 MiB with the tree) with the same HOURS and
# SCENES: the scenes and
# crops are made again, the same bytes (`blitzcam train` makes a resumed stage's crops where
# they are gone), and the results.csv that comes back holds every call's epochs.
# Back home, with the files from OUT_DIR (the same HOURS and SCENES): the checkpoints come in
# parts (gpu_bring_back), the small files in run-files.tar,
#   r=runs/detector-more; mkdir -p $r/more/weights && tar -xf OUT/run-files.tar -C $r
#   for w in best last; do cat OUT/$w.pt.part-* > $r/more/weights/$w.pt; done
#   .venv/bin/blitzcam train --run $r --from-shipped --more-hours 0.1 --resume --no-ship
# which finds every stage done and exports $r/export/blitzcam-obb.onnx (and its int8); then
# `blitzcam evaluate --model $r/export/blitzcam-obb.onnx` on the tuning sets first.
# WIDE=1 draws the scenes' random art from the wider families too (`--more-wide-art`, which the
# command back home then takes as well).
# (SCENES, DEVICE, WORKERS, PYTHON and SKIP_INSTALL=1 in the environment override the scenes,
# device 0, 16 workers, python3 and the set-up, for a dry run on a small machine.)
set -u
out=${1:?output folder}
limit=${2:?seconds}
started=$(date +%s)
python=${PYTHON:-python3}
run=/tmp/detector-run
export PYTHONUNBUFFERED=1 YOLO_VERBOSE=1 BLITZCAM_DATA_DIR=/tmp/blitzcam-data
mkdir -p "$out" "$run"
log="$out/more.log"
. scripts/gpu_common.sh
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  nproc
  gpu_setup "$PWD/scripts/gpu_shim"  # polars: scripts/gpu_shim
  # DataLoader workers pass batches through shared memory; small VMs give it little
  [ "${SKIP_INSTALL:-0}" != 1 ] && mount -o remount,size=32G /dev/shm 2>/dev/null
  if [ -n "${RESUME_FROM:-}" ] && [ ! -f "$run/more/weights/last.pt" ]; then
    mkdir -p "$run/more/weights" && cp "$RESUME_FROM" "$run/more/weights/last.pt" \
      && echo "going on from $RESUME_FROM"
    # the stage's time and epochs so far, when they were brought back beside it (ultralytics
    # appends a resumed run's epochs to the results.csv it finds)
    for kept in train_seconds.json results.csv; do
      from=$(dirname "$RESUME_FROM")
      [ -f "$from/$kept" ] || from=$(dirname "$from")
      cp "$from/$kept" "$run/more/" 2>/dev/null
    done
  fi
  gpu_run_within "$limit" "$python" scripts/gpu_detector_more.py "$run" "${HOURS:-0.1}" \
    "${SCENES:-}" "${DEVICE:-0}" "${WORKERS:-16}" "${WIDE:-0}"
} >"$log" 2>&1
# eight files at most come back: the checkpoints in parts, the small files in one tar (a stage
# not begun has none of them)
gpu_bring_back "$run/more/weights/best.pt" best.pt
gpu_bring_back "$run/more/weights/last.pt" last.pt
(cd "$run" && tar -cf "$out/run-files.tar" $(ls recipe.json more/results.csv more/args.yaml \
  more/finished.json more/train_seconds.json 2>/dev/null))
ls -la "$out" >>"$log"
tail -c 8000 "$log"
exit "$trained"  # (124 or 130: stopped at the time limit, its epochs kept)
