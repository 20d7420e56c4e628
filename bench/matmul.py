#!/usr/bin/env python3
"""Times agc's float32 matmul against numpy's (OpenBLAS) for a few sizes.

Usage: python3 bench/matmul.py [--threads N] [--sizes 64,256,...] [--native]

Builds one small model (a matmul with run-time sizes, and static 256- and
1024-sized ones) with the `agc` compiler, then for each size times the
compiled call and `a @ b` back to back (best of several batches) and prints
GFLOP/s and the ratio agc/numpy (above 1: agc is faster). agc's kernels run
on one thread; numpy's BLAS is limited to `--threads` (default 1) so that
the comparison is like for like. `--native` builds with
AGC_TARGET_CPU=native (AVX-512 where the machine has it). Nothing is
asserted: the numbers vary with the machine and its load.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from timing import best_time  # bench/ is the script's directory

REPO = Path(__file__).resolve().parents[1]

MODEL = '''
import agc
import agc.numpy as np


@agc.export
def mm(a: agc.f32["M", "K"], b: agc.f32["K", "N"]):
    return a @ b


@agc.export
def mm256(a: agc.f32[256, 256], b: agc.f32[256, 256]):
    return a @ b


@agc.export
def mm1024(a: agc.f32[1024, 1024], b: agc.f32[1024, 1024]):
    return a @ b
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads for numpy (default 1)")
    ap.add_argument("--sizes", default="32,64,128,256,384,512,1000,1024",
                    help="comma-separated square sizes; also non-square MxKxN")
    ap.add_argument("--native", action="store_true", help="build with AGC_TARGET_CPU=native")
    args = ap.parse_args()
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    if args.native:
        os.environ["AGC_TARGET_CPU"] = "native"
    sys.path.insert(0, str(REPO / "python"))
    import numpy as np
    import agc

    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "bench_matmul.py"
        model.write_text(MODEL)
        t0 = time.perf_counter()
        lib = agc.load(agc.build(model, Path(tmp) / "out"))
        print(f"built in {time.perf_counter() - t0:.1f} s; numpy BLAS threads: {args.threads}")
        rng = np.random.default_rng(0)
        print(f"{'M x K x N':>18} {'agc GFLOP/s':>12} {'numpy GFLOP/s':>14} {'agc/numpy':>10}  max rel err")
        for spec in args.sizes.split(","):
            dims = [int(x) for x in spec.split("x")]
            m, k, n = dims * 3 if len(dims) == 1 else dims
            a = rng.standard_normal((m, k), dtype=np.float32)
            b = rng.standard_normal((k, n), dtype=np.float32)
            fn = {256: lib.mm256, 1024: lib.mm1024}.get(m) if m == k == n else None
            fn = fn or lib.mm
            got = fn(a, b)
            want = a.astype(np.float64) @ b.astype(np.float64)
            err = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
            t_agc = best_time(lambda: fn(a, b))
            t_np = best_time(lambda: a @ b)
            flops = 2.0 * m * n * k
            label = f"{m}x{k}x{n}" + (" (static)" if fn is not lib.mm else "")
            print(f"{label:>18} {flops / t_agc / 1e9:12.1f} {flops / t_np / 1e9:14.1f} "
                  f"{t_np / t_agc:10.2f}  {err:.1e}")


if __name__ == "__main__":
    main()
