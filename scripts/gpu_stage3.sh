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
# (DEVICE, SCENES and HOURS in the environment override device 0 and the recipe's stage 3
# scenes and hours, and SKIP_INSTALL=1 the set-up, for a dry run on a small machine: with
# PATH's python3 one that has blitzcam and ultralytics.)
# It runs `blitzcam train --resume --device 0 --workers 16` without the export (ONNX export
# needs onnxslim; it is done back on the development machine with the same code), stops the
# training at SECONDS whatever happens, and copies the stage's weights and logs to OUT_DIR.
set -u
run=${1:?run folder}
out=${2:?output folder}
limit=${3:?seconds}
started=$(date +%s)
trained=1  # the training's exit status, which the script ends with (1: it did not run)
export PYTHONUNBUFFERED=1 YOLO_VERBOSE=1 BLITZCAM_DATA_DIR=/tmp/blitzcam-data
mkdir -p "$out"
log="$out/stage3.log"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  nproc
  if [ "${SKIP_INSTALL:-0}" != 1 ]; then  # (1: a dry run here, in a venv that has them)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD/scripts/gpu_shim  # polars: scripts/gpu_shim
    python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
  fi
  # DataLoader workers pass batches through shared memory; small VMs give it little
  mount -o remount,size=32G /dev/shm 2>/dev/null
  df -h /dev/shm | tail -1
  echo "set-up: $(($(date +%s) - started)) s"
  left=$((limit - ($(date +%s) - started)))
  if [ "$left" -lt 60 ]; then  # timeout 0 would mean no limit at all; a negative one, an error
    echo "set-up took the time: ${left} s left of ${limit}, no training"
  else
  # the run folder and the overrides go in as arguments, never pasted into Python source
  timeout --signal=INT --kill-after=20 "$left" python3 scripts/gpu_stage3.py "$run" \
    "${SCENES:-}" "${HOURS:-}" "${DEVICE:-0}"
  trained=$?
  fi
  echo "exit $trained after $(($(date +%s) - started)) s"
} >"$log" 2>&1
stage="$run/extend"
cp "$stage/weights/best.pt" "$stage/weights/last.pt" "$stage/results.csv" "$stage/args.yaml" "$out/"
cp "$stage/finished.json" "$out/" 2>/dev/null
ls -la "$out" >>"$log"
tail -c 8000 "$log"
exit "$trained"
