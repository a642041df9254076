#!/usr/bin/env bash
# The identity network trained from its first step with a big game's late rounds in its data
# (`blitzcam train-identity --late-scenes 600`), on a borrowed GPU machine that has Python,
# torch (CUDA), OpenCV and numpy but no network. Both refines of the shipped network on those
# drawings traded the eight decks' reading for the late rounds' (models/MODEL_CARD.md): they
# want to be in the data from the start. Prepared, never run on a GPU yet.
#
# Prepared on the development machine (where pip can reach the registry):
#   .whl/   platformdirs and tqdm wheels, both pure Python
#           (`.venv/bin/pip download --no-deps platformdirs tqdm -d .whl`), carried with the
#           working tree (the device tool's carry: [".whl"]).
# Then: scripts/gpu_identity.sh OUT_DIR SECONDS
# The drawings are cut on every core into /tmp/identity-run (GBs: they stay there), the network
# trains on the GPU and is stopped at SECONDS whatever happens; the same command on the machine
# while it is still warm goes on from the last checkpoint (drawings and checkpoint are kept).
# Measured on the 2-core CPU (stop 43): cutting drawings 0.26 core-seconds a scene (0.39 for a
# late round), so about 2.5 min on 16 cores for the recipe's 7,500 scenes and 600 late ones; a
# step draws its drawings in 15.5 ms on one core (the floor on any GPU: 18,000 steps, about
# 5 min) and spends 316 ms in the network on the CPU; mining, every 250 steps, 6.6 s on the CPU.
# Plan on two calls of about 9 minutes each.
# last.pt, recipe.json and the log come back in OUT_DIR; export and measure them here, in a run
# folder holding the recipe's drawings (runs/identity-data holds them all):
#   cp OUT/last.pt runs/identity-data/ && .venv/bin/blitzcam train-identity \
#     --run runs/identity-data --late-scenes 600 --resume --no-ship
# then scripts/identity_measure.sh NAME runs/identity-data/export/blitzcam-identity.onnx.
# (LATE, SCENES, STEPS, DEVICE, WORKERS, PYTHON and SKIP_INSTALL=1 in the environment override
# the late-round scenes, the scenes per seed, both stages' steps, cuda:0, 16, python3 and the
# set-up, for a dry run on a small machine.)
set -u
out=${1:?output folder}
limit=${2:?seconds}
started=$(date +%s)
python=${PYTHON:-python3}
run=/tmp/identity-run
export PYTHONUNBUFFERED=1 BLITZCAM_DATA_DIR=/tmp/blitzcam-data
mkdir -p "$out" "$run"
log="$out/identity.log"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  nproc
  if [ "${SKIP_INSTALL:-0}" != 1 ]; then
    "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
      --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
    "$python" -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
  fi
  echo "set-up: $(($(date +%s) - started)) s"
  left=$((limit - ($(date +%s) - started) - 15))  # 15 s kept to copy the results back
  if [ "$left" -lt 60 ]; then  # timeout 0 would mean no limit at all; a negative one, an error
    echo "set-up took the time: ${left} s left of ${limit}, no training"
  else
    timeout --signal=INT --kill-after=20 "$left" "$python" scripts/gpu_identity.py "$run" \
      "${LATE:-600}" "${SCENES:-}" "${STEPS:-}" "${DEVICE:-cuda:0}" "${WORKERS:-16}"
    echo "exit $? after $(($(date +%s) - started)) s"
  fi
} >"$log" 2>&1
cp "$run/last.pt" "$out/" 2>/dev/null
cp "$run/recipe.json" "$out/" 2>/dev/null
ls -la "$out" >>"$log"
tail -c 8000 "$log"
