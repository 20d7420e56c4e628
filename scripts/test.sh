#!/usr/bin/env bash
# Runs every test: set up, Rust unit and integration tests, then the
# end-to-end Python suite (models vs numpy, C/C++ ABI, diagnostics).
set -euo pipefail
cd "$(dirname "$0")/.."
# A clean CI clone gains nothing from incremental state (about 2 GB on disk
# beside test binaries of 250 MB each); CI machines' disks can be small.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi
bash scripts/setup.sh
echo "=== cargo fmt --check, cargo clippy"
cargo fmt --all --check
cargo clippy --release --workspace --all-targets -q -- -D warnings
echo "=== cargo test"
set +e
cargo test --release --workspace > /tmp/agc-cargo-test.log 2>&1
status=$?
set -e
grep -E "^(test result|running|failures:|---- )" /tmp/agc-cargo-test.log || true
if [ $status -ne 0 ]; then
  echo "cargo test failed (exit $status)"; tail -80 /tmp/agc-cargo-test.log; exit $status
fi
echo "=== pytest"
df -h . | tail -1
python3 -m pytest tests -q -p no:cacheprovider
