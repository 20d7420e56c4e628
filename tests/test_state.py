"""Weights and state (CONTRACT.md section 5) through `agc.load`: variables trained inside the
library against the same loop run eagerly, `save`/`restore` across processes, the saved file
read by the `safetensors` package, external weights mapped and swapped, and the errors."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import safetensors.numpy

import agc
import harness
from test_weights import model_folder, parameters, write_safetensors

STATE = harness.TESTS / "state"
SGD = STATE / "softmax_sgd.py"


def data(rng, n=32):
    x = rng.standard_normal((n, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int32) + (x[:, 2] > 1).astype(np.int32)
    return x, y


def fresh_eager(path):
    """The model imported anew (its variables at their initial values)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"agc_state_{path.stem}_{id(object())}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_training_in_the_library_matches_eager(builds):
    lib = agc.load(builds.get(SGD))
    model = fresh_eager(SGD)
    rng = np.random.default_rng(0)
    for step in range(300):
        x, y = data(rng)
        got, want = lib.train_step(x, y), model.train_step(x, y)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6, err_msg=f"loss at step {step}")
    for name, value in lib.variables.items():
        np.testing.assert_allclose(value, getattr(model, name).value, rtol=1e-4, atol=1e-6, err_msg=name)
    assert lib.step_count() == 300
    x, _ = data(rng)
    np.testing.assert_allclose(lib.predict(x), model.predict(x), rtol=1e-4, atol=1e-5)


def test_each_context_has_its_own_variables(builds):
    a, b = agc.load(builds.get(SGD)), agc.load(builds.get(SGD))
    x, y = data(np.random.default_rng(1))
    a.train_step(x, y)
    assert a.step_count() == 1 and b.step_count() == 0
    assert not np.array_equal(a.predict(x), b.predict(x))


def test_save_then_restore_in_a_new_process_is_bit_exact(builds, tmp_path):
    so = builds.get(SGD)
    lib = agc.load(so)
    rng = np.random.default_rng(2)
    for _ in range(20):
        lib.train_step(*data(rng))
    saved = tmp_path / "vars.safetensors"
    lib.save(saved)
    x, _ = data(rng)
    np.save(tmp_path / "x.npy", x)
    expected = lib.predict(x)
    script = textwrap.dedent(f"""
        import numpy as np, agc
        lib = agc.load({str(so)!r})
        lib.restore({str(saved)!r})
        np.save({str(tmp_path / "y.npy")!r}, lib.predict(np.load({str(tmp_path / "x.npy")!r})))
        print(int(lib.step_count()))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "20"
    assert np.load(tmp_path / "y.npy").tobytes() == expected.tobytes()
    # The file is ordinary safetensors.
    read = safetensors.numpy.load_file(str(saved))
    assert set(read) == {"W", "b", "steps"}
    for name, value in lib.variables.items():
        assert read[name].dtype == value.dtype and np.array_equal(read[name], value)


def test_restore_checks_names_dtypes_and_shapes(builds, tmp_path):
    lib = agc.load(builds.get(SGD))
    before = lib.variables
    good = {"W": np.ones((6, 3), np.float32), "b": np.ones(3, np.float32), "steps": np.array(5, np.int64)}
    for case, tensors in {
        "missing": {k: v for k, v in good.items() if k != "b"},
        "dtype": {**good, "W": np.ones((6, 3), np.float64)},
        "shape": {**good, "b": np.ones(4, np.float32)},
    }.items():
        path = tmp_path / f"{case}.safetensors"
        write_safetensors(path, tensors)
        with pytest.raises(agc.Error, match=r"_restore: .*'b'|_restore: .*'W'"):
            lib.restore(path)
        for name, value in lib.variables.items():
            assert np.array_equal(value, before[name]), f"{case}: a failed restore changed {name}"
    path = tmp_path / "truncated.safetensors"
    write_safetensors(path, good)
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(agc.Error, match="_restore"):
        lib.restore(path)
    write_safetensors(path, good)
    lib.restore(path)
    assert lib.step_count() == 5 and np.array_equal(lib.variables["W"], good["W"])


def test_readers_never_see_half_an_assignment(builds):
    import threading

    lib = agc.load(builds.get(STATE / "counter.py"))
    torn, stop = [], threading.Event()

    def reader():
        while not stop.is_set():
            v = lib.read()
            if v.min() != v.max():
                torn.append((v.min(), v.max()))

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for _ in range(300):
        lib.bump(1.0)
    stop.set()
    for t in threads:
        t.join()
    assert not torn, torn[:3]
    assert lib.read()[0] == 300.0


def external_build(weights_root, agc_bin):
    model = model_folder(weights_root, "safetensors")
    out = model.parent / "external"
    proc = harness.run_agc(agc_bin, "build", model, "-o", out, "--weights", "external")
    assert proc.returncode == 0, proc.stderr
    return model, out


@pytest.fixture(scope="module")
def weights_root(tmp_path_factory):
    return tmp_path_factory.mktemp("state_weights")


def test_external_weights_are_mapped_and_swappable(weights_root, agc_bin, tmp_path):
    model, out = external_build(weights_root, agc_bin)
    assert (out / "mlp.weights").is_file()
    stored = safetensors.numpy.load_file(str(out / "mlp.weights"))
    assert {"W1", "b1", "W2", "b2", "E", "ids", "keep", "offsets"} <= set(stored)
    module = harness.import_model(model)
    lib = agc.load(out / "libmlp.so")
    x = np.random.default_rng(3).standard_normal((5, 16)).astype(np.float32)
    np.testing.assert_allclose(lib.predict(x), module.predict(x), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lib.iterate(x[:2], np.int64(4)), module.iterate(x[:2], np.int64(4)), rtol=1e-5, atol=1e-5)
    # Other weights of the same names, dtypes and shapes: no rebuild.
    other = dict(stored)
    other["b2"] = stored["b2"] + 10.0
    swapped = tmp_path / "other.safetensors"
    write_safetensors(swapped, other)
    lib2 = agc.load(out / "libmlp.so", weights=swapped)
    np.testing.assert_allclose(lib2.predict(x), lib.predict(x) + 10.0, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("case", ["missing", "shape", "dtype", "absent", "garbage"])
def test_bad_external_weights_are_load_errors(case, agc_bin, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    out = folder / "out"
    rng = np.random.default_rng(4)
    write_safetensors(folder / "p.safetensors", parameters(rng))
    (folder / "m.py").write_text(
        'import agc\nimport agc.numpy as np\nP = agc.weights("p.safetensors")\n\n\n'
        '@agc.export\ndef f(x: agc.f32[2, 16]):\n    return x @ P["W1"] + P["b1"]\n')
    proc = harness.run_agc(agc_bin, "build", folder / "m.py", "-o", out, "--weights", "external")
    assert proc.returncode == 0, proc.stderr
    stored = safetensors.numpy.load_file(str(out / "m.weights"))
    bad = tmp_path / "bad.safetensors"
    if case == "missing":
        bad = tmp_path / "nope.safetensors"
    elif case == "shape":
        write_safetensors(bad, {**stored, "b1": np.ones(31, np.float32)})
    elif case == "dtype":
        write_safetensors(bad, {**stored, "W1": stored["W1"].astype(np.float64)})
    elif case == "absent":
        write_safetensors(bad, {"W1": stored["W1"]})
    else:
        bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    with pytest.raises(agc.Error, match=r"m_create: "):
        agc.load(out / "libm.so", weights=bad)


def test_variables_through_staged_control_flow(builds):
    path = STATE / "control_flow.py"
    lib = agc.load(builds.get(path))
    model = fresh_eager(path)
    exports = harness.exports(model)
    rng = np.random.default_rng(5)
    for trial in range(12):
        name = ["step", "repeat"][trial % 2]
        inputs = harness.make_inputs(model, exports[name], rng, {})
        harness.check_call(lib.functions[name], exports[name], inputs, f"{name} call {trial}")


def test_three_gigabytes_of_external_weights(agc_bin, tmp_path):
    """A sparse 3 GiB weight file: built with --weights external (the copy keeps its holes),
    a call reads its last gigabyte; embedding it is refused with a clear message."""
    n_big = 3 * 2**30 // 4
    header = {"big": {"dtype": "F32", "shape": [n_big], "data_offsets": [0, n_big * 4]},
              "tail": {"dtype": "F32", "shape": [4], "data_offsets": [n_big * 4, n_big * 4 + 16]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    weights = tmp_path / "w.safetensors"
    with open(weights, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        start = f.tell()
        f.seek(start + (n_big - 4) * 4)
        f.write(np.array([10, 20, 30, 40], np.float32).tobytes())
        f.write(np.array([1, 2, 3, 4], np.float32).tobytes())
    model = tmp_path / "big.py"
    model.write_text('import agc\nP = agc.weights("w.safetensors")\n\n\n'
                     '@agc.export\ndef f(x: agc.f32[4]):\n    return x + P["big"][-4:] + P["tail"]\n')
    refused = harness.run_agc(agc_bin, "build", model, "-o", tmp_path / "embedded")
    assert refused.returncode == 1 and "limited to 2 GiB" in refused.stderr and "--weights external" in refused.stderr
    built = harness.run_agc(agc_bin, "build", model, "-o", tmp_path / "out", "--weights", "external")
    assert built.returncode == 0, built.stderr
    stored = tmp_path / "out" / "big.weights"
    assert stored.stat().st_size > 3 * 2**30 and stored.stat().st_blocks * 512 < 2**24, "the holes were kept"
    # One safetensors file holds every weight under its own name: it is linked, not copied.
    assert stored.stat().st_ino == weights.stat().st_ino
    lib = agc.load(tmp_path / "out" / "libbig.so")
    np.testing.assert_array_equal(lib.f(np.ones(4, np.float32)), [12, 23, 34, 45])
