"""Kernels are chosen by the running CPU's features: the runtime's GEMM micro-kernels, and the
variant of a library's generated code for the CPU's x86-64 level (a default build holds the
baseline code and x86-64-v3/-v4 variants). One library gives numpy's results on the AVX-512
path, with AVX-512 masked (`AGC_CPU_MASK=avx512f`, as on an AVX2-only machine or under
valgrind), and with AVX2 masked too (the baseline). Each run is a child process: the choice is
made once per process."""

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


@agc.export
def elementwise(x: agc.f32["N"], y: agc.f64["N"]):
    s = np.exp(x - np.max(x))
    return s / np.sum(s), np.tanh(x) * np.log1p(np.abs(x)), np.sqrt(np.abs(y)) + np.sin(y)
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
for n in (1, 7, 16, 33, 1000):
    v = rng.standard_normal(n).astype(np.float32)
    y = 10 * rng.standard_normal(n)
    v64 = v.astype(np.float64)
    e = np.exp(v64 - v64.max())
    wants = (e / e.sum(), np.tanh(v64) * np.log1p(np.abs(v64)), np.sqrt(np.abs(y)) + np.sin(y))
    errors.extend(err(g, w) for g, w in zip(lib.elementwise(v, y), wants))
print(json.dumps(errors))
'''


def test_products_agree_with_numpy_on_every_kernel_path(agc_bin, tmp_path):
    (tmp_path / "dispatch.py").write_text(MODEL)
    out = tmp_path / "out"
    proc = harness.run_agc(agc_bin, "build", tmp_path / "dispatch.py", "-o", out)
    assert proc.returncode == 0, proc.stderr
    # The best path, AVX-512 masked (x86-64-v3 variant, AVX2 GEMM), AVX2 masked too (the
    # baseline code); on a CPU without a feature the mask changes nothing.
    for mask in ("", "avx512f", "avx512f,avx2"):
        env = {**os.environ, "AGC_CPU_MASK": mask}
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(out / "libdispatch.so"), str(harness.REPO / "python"),
             json.dumps(SHAPES)],
            capture_output=True, text=True, env=env, timeout=300)
        assert child.returncode == 0, child.stderr
        errors = json.loads(child.stdout)
        assert len(errors) == len(SHAPES) + 1 + 5 * 3
        assert max(errors) < 1e-5, (mask, errors)
        assert np.all(np.isfinite(errors))


def test_a_default_library_has_variants_for_newer_cpus(agc_bin, tmp_path):
    """On x86-64 a default build is compiled for the baseline CPU (it runs on any x86-64 CPU)
    with x86-64-v4 and -v3 variants of its kernels, each compiled for its level and chosen by
    the trampoline through agc_rt_cpu_level; -O0 and an explicit target get no variants."""
    import agc

    (tmp_path / "dispatch.py").write_text(MODEL)
    out = tmp_path / "out"
    proc = harness.run_agc(agc_bin, "build", tmp_path / "dispatch.py", "-o", out, "--emit", "llvm")
    assert proc.returncode == 0, proc.stderr
    target = agc.load(out / "libdispatch.so").metadata["target"]
    if not target["triple"].startswith("x86_64"):
        assert target["variants"] == []
        return
    assert target["cpu"] == "x86-64" and target["variants"] == ["x86-64-v4", "x86-64-v3"], target
    text = (out / "dispatch.ll").read_text()
    assert "@agc_rt_cpu_level()" in text
    assert "__v4(" in text and "__v3(" in text
    assert '"target-cpu"="x86-64-v4"' in text and '"target-cpu"="x86-64-v3"' in text
    for extra in (["-O0"], ["--target-cpu", "x86-64-v3"]):
        plain = tmp_path / ("plain" + extra[0])
        proc = harness.run_agc(agc_bin, "build", tmp_path / "dispatch.py", "-o", plain, "--emit", "llvm", *extra)
        assert proc.returncode == 0, proc.stderr
        assert "__v4" not in (plain / "dispatch.ll").read_text(), extra
        assert agc.load(plain / "libdispatch.so").metadata["target"]["variants"] == [], extra
