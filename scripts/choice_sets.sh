#!/bin/bash
# scripts/choice_sets.sh OUT [--model ONNX] [--identity-model ONNX]: the counting path on the
# sets candidates are chosen on (stop 42), never the held-out ones: the tuning scenes
# (runs/tune, seed 4242; runs/tune5151, seed 5151 --holdout), the late-round tuning set
# (runs/late-tune, seed 7171 --holdout --late-rounds 1), each with every deck and in play, and
# enrolled art of seed 77 (80 scenes), both ways; reports into OUT. The options go to each run.
set -u
out=$1; shift; mkdir -p "$out"
B=.venv/bin/blitzcam
for set in tune tune5151 late-tune; do
  $B evaluate --data runs/$set --split all "$@" --json "$out/$set.json" > "$out/$set.txt" 2>&1
  $B evaluate --data runs/$set --split all --in-play "$@" --json "$out/$set-inplay.json" \
    > "$out/$set-inplay.txt" 2>&1
done
.venv/bin/python -m benchmarks.enrolled_eval --scenes 80 --seed 77 "$@" > "$out/enrolled77.txt" 2>&1
.venv/bin/python -m benchmarks.enrolled_eval --scenes 80 --seed 77 --in-play "$@" \
  > "$out/enrolled77-inplay.txt" 2>&1
