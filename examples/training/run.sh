#!/usr/bin/env bash
# Builds the model, trains it from C (1000 SGD steps inside the library), saves the variables,
# restores them in a second process and checks that both predict the same, bit for bit.
set -euo pipefail
cd "$(dirname "$0")"
AGC=${AGC:-../../target/release/agc}
OUT=${OUT:-build}
"$AGC" build model.py -o "$OUT"
cc -std=c11 -O2 -I"$OUT" train.c -o "$OUT/train" -L"$OUT" -lmodel -Wl,-rpath,"$(cd "$OUT" && pwd)"
"$OUT/train" fit 1000 "$OUT/variables.safetensors" | tee "$OUT/fit.txt"
"$OUT/train" predict "$OUT/variables.safetensors" > "$OUT/restored.txt"
if diff <(grep PRED "$OUT/fit.txt") "$OUT/restored.txt" >/dev/null; then
  echo "restored predictions: identical"
else
  echo "restored predictions differ" >&2
  exit 1
fi
