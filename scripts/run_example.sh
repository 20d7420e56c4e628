#!/usr/bin/env bash
# The main job: set up, build agc, compile examples/mlp.py into a library,
# link examples/main.c against it and run it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
out=build/example
rm -rf "$out"
./target/release/agc build examples/mlp.py -o "$out"
cc -std=c11 -O2 examples/main.c -I"$out" -L"$out" -lmlp -Wl,-rpath,"$PWD/$out" -o "$out/mlp_demo"
echo "--- running $out/mlp_demo"
"$out/mlp_demo"
