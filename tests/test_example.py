"""examples/mlp.py built and called from examples/main.c exactly as the README's recipe does; numpy is the oracle."""

import os
import re
import shutil
import subprocess

import numpy as np

import harness

EXAMPLES = harness.REPO / "examples"


def det(k, mod, scale):
    """main.c's det(): (float)(k % mod - mod / 2) * scale, in float32."""
    return (np.asarray(k % mod - mod // 2).astype(np.float32) * np.float32(scale)).astype(np.float32)


def example_inputs():
    i = np.arange(4 * 784, dtype=np.int64)
    x = (((i * 31) % 17).astype(np.float32) / np.float32(16.0)).reshape(4, 784)
    w1 = det(np.arange(784 * 128, dtype=np.int64) * 7919, 2001, 5e-5).reshape(784, 128)
    b1 = det(np.arange(128), 7, 0.01)
    w2 = det(np.arange(128 * 10, dtype=np.int64) * 104729, 1009, 2e-3).reshape(128, 10)
    b2 = det(np.arange(10) * 3, 11, 0.02)
    return [x, w1, b1, w2, b2]


def test_example_main_c(builds, tmp_path):
    so = builds.get(EXAMPLES / "mlp.py")
    out = so.parent
    exe = tmp_path / "mlp_demo"
    cc = shutil.which("cc")
    proc = subprocess.run([cc, str(EXAMPLES / "main.c"), f"-I{out}", f"-L{out}", "-lmlp", "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, env={**os.environ, "LD_LIBRARY_PATH": str(out)})
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"

    module = harness.import_model(EXAMPLES / "mlp.py")
    expected = harness.eager(harness.exports(module)["predict"], example_inputs())[0]
    rows = re.findall(r"^row (\d+):((?: [-\d.]+)+)  argmax (\d+)$", run.stdout, re.M)
    assert len(rows) == 4, run.stdout
    got = np.array([[float(v) for v in values.split()] for _, values, _ in rows])
    np.testing.assert_allclose(got, expected, atol=2e-6, err_msg=run.stdout)
    assert [int(a) for _, _, a in rows] == list(np.argmax(expected, axis=1))
    assert re.search(r"^bad call: status 1: .*\bx\b", run.stdout, re.M), run.stdout
