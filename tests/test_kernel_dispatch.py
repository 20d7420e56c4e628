"""The runtime's kernels are chosen by the running CPU's features: one library gives numpy's
products on the AVX-512 path and, with AVX-512 masked (`AGC_CPU_MASK=avx512f`, as on an
AVX2-only machine or under valgrind), on the AVX2 path. Each run is a child process: the choice
is made once per process."""

import json
import os
import subprocess
import sys

import numpy as np

import harness

MODEL = '''
import agc
import agc.numpy as np


@agc.export
def products(a: agc.f32["M", "K"], b: agc.f32["K", "N"], at: agc.f32["K", "M"]):
    return a @ b, at.T @ b


@agc.export
def square(x: agc.f32[256, 256], w: agc.f32[256, 256]):
    return np.tanh(x @ w) @ w.T
'''

# Shapes with every count of leftover rows (M mod 6), partial last panels (N mod 16), groups of
# fewer panels than a kernel covers, and depths of one and of several blocks.
SHAPES = [(1, 1, 1), (5, 3, 17), (6, 16, 16), (13, 70, 47), (32, 256, 100), (37, 600, 65), (200, 784, 10)]

CHILD = r'''
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
import agc
lib = agc.load(sys.argv[1])
rng = np.random.default_rng(0)
errors = []
def err(got, want):
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)) if want.size else 0.0
for m, k, n in json.loads(sys.argv[3]):
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    at = rng.standard_normal((k, m)).astype(np.float32)
    p, q = lib.products(a, b, at)
    errors.append(max(err(p, a.astype(np.float64) @ b), err(q, at.T.astype(np.float64) @ b)))
x = rng.standard_normal((256, 256)).astype(np.float32)
w = (0.1 * rng.standard_normal((256, 256))).astype(np.float32)
want = np.tanh(x.astype(np.float64) @ w) @ w.T.astype(np.float64)
errors.append(err(lib.square(x, w), want))
print(json.dumps(errors))
'''


def test_products_agree_with_numpy_on_every_kernel_path(agc_bin, tmp_path):
    (tmp_path / "dispatch.py").write_text(MODEL)
    out = tmp_path / "out"
    proc = harness.run_agc(agc_bin, "build", tmp_path / "dispatch.py", "-o", out)
    assert proc.returncode == 0, proc.stderr
    for mask in ("", "avx512f"):
        env = {**os.environ, "AGC_CPU_MASK": mask}
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(out / "libdispatch.so"), str(harness.REPO / "python"),
             json.dumps(SHAPES)],
            capture_output=True, text=True, env=env, timeout=300)
        assert child.returncode == 0, child.stderr
        errors = json.loads(child.stdout)
        assert len(errors) == len(SHAPES) + 1
        assert max(errors) < 1e-5, (mask, errors)
        assert np.all(np.isfinite(errors))
