#!/usr/bin/env bash
# Runs every test: set up, Rust unit and integration tests, then the
# end-to-end Python suite (models vs numpy, C/C++ ABI, diagnostics).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "=== cargo test"
cargo test --release --workspace 2>&1 | tee /tmp/agc-cargo-test.log | grep -E "^(test result|running|error|failures|----|thread)" || true
if grep -qE "^test result: FAILED|error(\[E[0-9]+\])?:" /tmp/agc-cargo-test.log; then
  echo "cargo test failed"; tail -50 /tmp/agc-cargo-test.log; exit 1
fi
echo "=== pytest"
python3 -m pytest tests -q -p no:cacheprovider
