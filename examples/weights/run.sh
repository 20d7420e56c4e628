#!/usr/bin/env bash
# Trains the MLP with numpy, builds it with embedded and with external weights, builds the
# C++ program with CMake and runs it. AGC: the compiler (default: the repository's build).
set -euo pipefail
cd "$(dirname "$0")"
AGC=${AGC:-../../target/release/agc}
OUT=${OUT:-build}
python3 train_mlp.py
"$AGC" build model.py --name mlp_embedded -o "$OUT/embedded"
"$AGC" build model.py --name mlp_external --weights external -o "$OUT/external"
OUT=$(cd "$OUT" && pwd)
cmake -S . -B "$OUT/cpp" -DCMAKE_BUILD_TYPE=Release \
  -Dmlp_embedded_DIR="$OUT/embedded" -Dmlp_external_DIR="$OUT/external" >/dev/null
cmake --build "$OUT/cpp" >/dev/null
"$OUT/cpp/main"
