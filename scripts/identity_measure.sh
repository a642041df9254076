#!/bin/bash
# scripts/identity_measure.sh NAME ONNX: one identity network on the choice sets (stop 42): the
# tuning scenes (runs/tune, seed 4242; runs/tune5151, seed 5151 --holdout), the late-round tuning
# set (runs/late-tune, seed 7171 --holdout --late-rounds 1), each with every deck and in play,
# enrolled art of seed 77 (80 scenes) and the holdout family's drawings; into runs/refine-late/m-NAME.
set -u
name=$1; onnx=$2; out=runs/refine-late/m-$name; mkdir -p $out
B=.venv/bin/blitzcam
for set in tune tune5151 late-tune; do
  $B evaluate --data runs/$set --split all --identity-model $onnx --json $out/$set.json > $out/$set.txt 2>&1
  $B evaluate --data runs/$set --split all --in-play --identity-model $onnx --json $out/$set-inplay.json > $out/$set-inplay.txt 2>&1
done
.venv/bin/python -m benchmarks.enrolled_eval --scenes 80 --seed 77 --identity-model $onnx > $out/enrolled77.txt 2>&1
.venv/bin/python -m benchmarks.enrolled_eval --scenes 80 --seed 77 --in-play --identity-model $onnx > $out/enrolled77-inplay.txt 2>&1
.venv/bin/python - "$onnx" > $out/drawings.txt 2>&1 <<'PY'
import sys
from blitzcam.models.identity_data import IdentityData
from blitzcam.models.identity_eval import evaluate_identity, format_report
from blitzcam.vision.embedding import Embedder
val = IdentityData.load("runs/identity-data/drawings-val-seed2-200.npz")
print(format_report(evaluate_identity(Embedder(sys.argv[1]).embed, val)))
PY
echo done > $out/DONE
