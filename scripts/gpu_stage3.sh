#!/usr/bin/env bash
# Stage 3 of the detector recipe on a borrowed GPU machine that has Python, torch (CUDA),
# OpenCV and numpy but no ultralytics and no network. This is how the shipped
# stage 3 was trained; see models/MODEL_CARD.md.
#
# Prepared on the development machine (where pip can reach the registry):
#   .whl/     ultralytics 8.4.190, ultralytics-thop, ultralytics-platform and platformdirs wheels
#             (`pip download --no-deps --python-version 3.12 ...`); polars is not carried (its
#             runtime alone is 54 MB): ultralytics only reads results.csv with it while training,
#             so a stand-in (scripts/gpu_shim/polars) does that with the csv module.
#   RUN/      a run folder holding stages 1 and 2: train/results.csv, refine/results.csv and
#             refine/weights/best.pt (the shipped models/blitzcam-obb.pt).
# Then: scripts/gpu_stage3.sh RUN OUT_DIR SECONDS
# (DEVICE, SCENES, HOURS, PYTHON and SKIP_INSTALL=1 in the environment override device 0,
# the recipe's stage 3 scenes and hours, python3 and the set-up, for a dry run on a small
# machine.)
# It runs `blitzcam train --resume --device 0 --workers 16` without the export (ONNX export
# needs onnxslim; it is done back on the development machine with the same code), stops the
# training 25 s before SECONDS whatever happens (scripts/gpu_common.sh, as the other GPU
# scripts), and copies the stage's logs to OUT_DIR and its checkpoints in parts of 15 MiB (a
# stage cut off keeps its optimizer: 27 MB, over what comes back whole). Back home:
# cat OUT/best.pt.part-* > best.pt, and the same for last.pt.
set -u
run=${1:?run folder}
out=${2:?output folder}
limit=${3:?seconds}
started=$(date +%s)
python=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 YOLO_VERBOSE=1 BLITZCAM_DATA_DIR=/tmp/blitzcam-data
mkdir -p "$out"
log="$out/stage3.log"
. scripts/gpu_common.sh
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  nproc
  gpu_setup "$PWD/scripts/gpu_shim"  # polars: scripts/gpu_shim
  # DataLoader workers pass batches through shared memory; small VMs give it little
  [ "${SKIP_INSTALL:-0}" != 1 ] && mount -o remount,size=32G /dev/shm 2>/dev/null
  df -h /dev/shm | tail -1
  # the run folder and the overrides go in as arguments, never pasted into Python source
  gpu_run_within "$limit" "$python" scripts/gpu_stage3.py "$run" "${SCENES:-}" "${HOURS:-}" \
    "${DEVICE:-0}"
} >"$log" 2>&1
stage="$run/extend"
gpu_bring_back "$stage/weights/best.pt" best.pt
gpu_bring_back "$stage/weights/last.pt" last.pt
cp "$stage/results.csv" "$stage/args.yaml" "$stage/finished.json" "$out/" 2>/dev/null
ls -la "$out" >>"$log"
tail -c 8000 "$log"
exit "$trained"  # (124 or 130: stopped at the time limit, its epochs kept)
