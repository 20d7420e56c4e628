#!/usr/bin/env bash
# Installs everything agc needs on a fresh Debian 12 machine (root, Rust
# toolchain and Python 3.11 present), then builds agc. Idempotent: packages
# already present are not reinstalled.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 lld-22 libpolly-22-dev
                 libclang-22-dev libzstd-dev zlib1g-dev valgrind g++ cmake pkg-config)
missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c "import numpy, autograd, pytest, safetensors, jsonschema, agc" >/dev/null 2>&1; then
  echo "setup: installing Python packages"
  "$PYTHON" -m pip install -q --disable-pip-version-check -r scripts/requirements.txt
  "$PYTHON" -m pip install -q --disable-pip-version-check -e python
fi

for component in rustfmt clippy; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    echo "setup: installing the Rust component $component"
    rustup component add "$component"
  fi
done

echo "setup: building agc (cargo build --release)"
cargo build --release -p agc
