#!/usr/bin/env bash
# The identity network trained from its first step with a big game's late rounds in its data
# (`blitzcam train-identity --late-scenes 600`), on a borrowed GPU machine that has Python,
# torch (CUDA), OpenCV and numpy but no network. Both refines of the shipped network on those
# drawings traded the eight decks' reading for the late rounds' (models/MODEL_CARD.md): they
# want to be in the data from the start. Prepared, never run on a GPU yet; with WIDE=1, run on
# the CPU at stop 49 (`train-identity --wide-art --late-scenes 600`): not shipped, see the card.
#
# Prepared on the development machine (where pip can reach the registry):
#   .whl/   platformdirs and tqdm wheels, both pure Python
#           (`.venv/bin/pip download --no-deps platformdirs tqdm -d .whl`), carried with the
#           working tree (the device tool's carry: [".whl"]).
# Then: scripts/gpu_identity.sh OUT_DIR SECONDS, with SECONDS at least 30 under the call's own
# limit (the last 25 are kept to stop the run and copy its results back).
# The drawings are cut on every core into /tmp/identity-run (GBs: they stay there), the network
# trains on the GPU and is stopped at SECONDS whatever happens, its last checkpoint kept (every
# 100 steps). RESUME_FROM=FILE (a last.pt an earlier call brought back, carried in the working
# tree with the train_seconds.json beside it) goes on from it on a fresh machine, with the same
# overrides: the drawings are cut again, the same bytes.
# Sizing, measured on the 2-core CPU (stop 43): cutting drawings takes 0.26 core-seconds a scene
# (0.39 a late round), about 2.5 min on 16 cores for the recipe's 7,500 scenes and 600 late ones;
# a step draws its drawings in 15.5 ms on one core, the floor on any GPU (the recipe's 18,000
# steps: about 5 min), and spends 316 ms in the network on the CPU; mining, every 250 steps,
# 6.6 s on the CPU. A task's device time is 15 minutes, start-up included, and a machine left
# idle for 30 s is given back: one call of about 9 minutes cuts the drawings and runs most of
# the steps, not all; STEPS=6000 (a shorter recipe of its own: say so in the card) or a later
# call with RESUME_FROM finishes.
# last.pt, recipe.json, train_seconds.json, device.json and the log come back in OUT_DIR; export
# and measure them here, in a run folder holding the recipe's drawings (runs/identity-data has
# them all, where an earlier session cut them; runs/ is not kept in the repository: in a fresh
# checkout that export cuts them first, about 9 minutes here):
#   cp OUT/{last.pt,train_seconds.json,device.json} runs/identity-data/ && \
#     .venv/bin/blitzcam train-identity --run runs/identity-data --late-scenes 600 --resume \
#     --no-ship
# then scripts/identity_measure.sh NAME runs/identity-data/export/blitzcam-identity.onnx.
# WIDE=1 cuts drawings of the generator's wider art families too (`--wide-art`, which the
# command back home then takes as well; its drawings are files of their own, `-wide`, which
# runs/identity-data does not hold: that export cuts them first, about half an hour here).
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
. scripts/gpu_common.sh
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
  nproc
  gpu_setup
  if [ -n "${RESUME_FROM:-}" ] && [ ! -f "$run/last.pt" ]; then
    cp "$RESUME_FROM" "$run/last.pt" && echo "going on from $RESUME_FROM"
    # the time trained so far, when it was brought back beside it
    cp "$(dirname "$RESUME_FROM")/train_seconds.json" "$run/" 2>/dev/null
  fi
  gpu_run_within "$limit" "$python" scripts/gpu_identity.py "$run" "${LATE:-600}" \
    "${SCENES:-}" "${STEPS:-}" "${DEVICE:-cuda:0}" "${WORKERS:-16}" "${WIDE:-0}"
} >"$log" 2>&1
for kept in last.pt recipe.json train_seconds.json device.json; do
  cp "$run/$kept" "$out/" 2>/dev/null
done
ls -la "$out" >>"$log"
tail -c 8000 "$log"
exit "$trained"  # (124 or 130: stopped at the time limit, its epochs kept)
