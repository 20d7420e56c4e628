#!/usr/bin/env python3
"""Weights in the library vs weights passed on every call: a 784-1024-256-10 MLP (1.07M
parameters), batch 1, called from C (bench/weights_call.c). Builds the model three ways
(weights as arguments; `agc.weights` embedded; `--weights external`), prints the embedded
build's time, then per-call time and heap allocations of each variant, in one run.

Usage: python3 bench/weights_call.py [--agc target/release/agc]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent

ARGS_MODEL = '''import agc
import agc.numpy as np


@agc.export
def predict(x: agc.f32["B", 784], W1: agc.f32[784, 1024], b1: agc.f32[1024], W2: agc.f32[1024, 256],
            b2: agc.f32[256], W3: agc.f32[256, 10], b3: agc.f32[10]):
    h = np.maximum(x @ W1 + b1, 0.0)
    h = np.maximum(h @ W2 + b2, 0.0)
    return h @ W3 + b3
'''

WEIGHTS_MODEL = '''import agc
import agc.numpy as np

P = agc.weights("mlp.npz")


@agc.export
def predict(x: agc.f32["B", 784]):
    h = np.maximum(x @ P["W1"] + P["b1"], 0.0)
    h = np.maximum(h @ P["W2"] + P["b2"], 0.0)
    return h @ P["W3"] + P["b3"]
'''


def build(agc, model, out, *extra):
    t = time.perf_counter()
    subprocess.run([str(agc), "build", str(model), "-o", str(out), *extra], check=True)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agc", default=str(BENCH.parent / "target" / "release" / "agc"))
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    shapes = {"W1": (784, 1024), "b1": (1024,), "W2": (1024, 256), "b2": (256,), "W3": (256, 10), "b3": (10,)}
    params = {k: (rng.standard_normal(s) * 0.05).astype(np.float32) for k, s in shapes.items()}
    print(f"parameters: {sum(p.size for p in params.values()):,}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        np.savez(d / "mlp.npz", **params)
        for k, v in params.items():
            v.tofile(d / f"{k}.bin")
        (d / "args.py").write_text(ARGS_MODEL)
        (d / "emb.py").write_text(WEIGHTS_MODEL)
        (d / "ext.py").write_text(WEIGHTS_MODEL)
        build(opts.agc, d / "args.py", d / "out")
        print(f"agc build with embedded weights: {build(opts.agc, d / 'emb.py', d / 'out'):.2f} s")
        build(opts.agc, d / "ext.py", d / "out", "--weights", "external")
        exe = d / "weights_call"
        out = d / "out"
        subprocess.run(["cc", "-O2", "-std=c11", f"-I{out}", str(BENCH / "weights_call.c"), "-o", str(exe),
                        f"-L{out}", "-largs", "-lemb", "-lext", f"-Wl,-rpath,{out}"], check=True)
        proc = subprocess.run([str(exe), str(d), str(out / "ext.weights")], capture_output=True, text=True)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr)
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
