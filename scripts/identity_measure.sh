#!/bin/bash
# scripts/identity_measure.sh NAME ONNX: one identity network on the choice sets
# (scripts/choice_sets.sh) and on the holdout family's drawings; into runs/refine-late/m-NAME.
set -u
name=$1; onnx=$2; out=runs/refine-late/m-$name
scripts/choice_sets.sh $out --identity-model $onnx
.venv/bin/python - "$onnx" > $out/drawings.txt 2>&1 <<'PY'
import sys
from blitzcam.models.identity_data import IdentityData
from blitzcam.models.identity_eval import evaluate_identity, format_report
from blitzcam.vision.embedding import Embedder
val = IdentityData.load("runs/identity-data/drawings-val-seed2-200.npz")
print(format_report(evaluate_identity(Embedder(sys.argv[1]).embed, val)))
PY
echo done > $out/DONE
