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


def run_example(name, agc_bin, out):
    env = {**os.environ, "AGC": str(agc_bin), "OUT": str(out)}
    proc = subprocess.run(["bash", str(EXAMPLES / name / "run.sh")], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_weights_example_with_cmake(agc_bin, tmp_path):
    """examples/weights: numpy-trained weights in safetensors, built embedded and external, one
    C++ program (CMake, find_package) calling both; numpy with the same file is the oracle."""
    import safetensors.numpy

    out = run_example("weights", agc_bin, tmp_path / "out")
    rows = np.array([[float(v) for v in line.split()] for line in out.splitlines() if line[:1] in "-0123456789"])
    p = safetensors.numpy.load_file(str(EXAMPLES / "weights" / "mlp.safetensors"))
    h = np.tanh(rows[:, :2].astype(np.float32) @ p["W1"] + p["b1"])
    logits = h @ p["W2"] + p["b2"]
    e = np.exp(logits - logits.max(1, keepdims=True))
    expected = (e / e.sum(1, keepdims=True))[:, 1]
    np.testing.assert_allclose(rows[:, 2], expected, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(rows[:, 2], rows[:, 3])


def lcg_batches(steps, batch=64, features=4):
    """train.c's batches: a 32-bit LCG, uniform in [-1, 1), the class the largest of x0..x2."""
    state = 12345
    for _ in range(steps):
        x = np.empty((batch, features), np.float32)
        for i in range(batch):
            for f in range(features):
                state = (state * 1664525 + 1013904223) % 2**32
                x[i, f] = np.float32(state >> 8) / np.float32(8388608.0) - np.float32(1.0)
        yield x, np.argmax(x[:, :3], axis=1).astype(np.int32)


def test_training_example_from_c(agc_bin, tmp_path):
    """examples/training: 1000 SGD steps inside the library from C equal the eager loop;
    predictions after a save and a restore in a new process are bit-identical (the script checks)."""
    out = run_example("training", agc_bin, tmp_path / "out")
    assert "restored predictions: identical" in out
    losses = {int(s): float(v) for _, s, v in (line.split() for line in out.splitlines() if line.startswith("LOSS"))}
    model = harness.import_model(EXAMPLES / "training" / "model.py")
    eager = {}
    for step, (x, y) in enumerate(lcg_batches(1000), 1):
        loss = model.train_step(x, y)
        if step % 100 == 0:
            eager[step] = float(loss)
    assert sorted(losses) == sorted(eager)
    for step in eager:
        np.testing.assert_allclose(losses[step], eager[step], rtol=1e-4, err_msg=f"loss at step {step}")


def test_pkg_config_makefile(builds, tmp_path):
    """A Makefile consumer through `pkg-config --cflags --libs mlp`, run from the output folder
    as built (pkg-config finds the library from the .pc file's own place)."""
    import hashlib

    so = builds.get(EXAMPLES / "mlp.py")
    out = so.parent
    (tmp_path / "Makefile").write_text(
        "CFLAGS += $(shell pkg-config --cflags mlp)\n"
        "LDLIBS += $(shell pkg-config --libs mlp)\n"
        f"demo: {EXAMPLES / 'main.c'}\n"
        "\t$(CC) $(CFLAGS) $< -o $@ $(LDLIBS)\n")
    env = {**os.environ, "PKG_CONFIG_PATH": str(out)}
    make = subprocess.run(["make", "-s", "-C", str(tmp_path)], capture_output=True, text=True, env=env)
    assert make.returncode == 0, make.stderr
    run = subprocess.run([str(tmp_path / "demo")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    readelf = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
    assert "Library soname: [libmlp.so]" in readelf
    import agc

    meta = agc.load(so).metadata
    assert meta["source_sha256"] == hashlib.sha256((EXAMPLES / "mlp.py").read_bytes()).hexdigest()
    assert meta["target"]["triple"].split("-")[0] in ("x86_64", "aarch64") and meta["agc_version"]
    assert "#define AGC_ABI_VERSION 1" in (out / "mlp.h").read_text()
