"""`agc.weights(path)`: models whose parameters live in safetensors and npz files (tests/weights).

Each format gets its own folder with a copy of the model and weight files written here;
the library (weights embedded) must agree with the model run eagerly by CPython, which
reads the same files. Bad files are build errors at the `agc.weights` call.
"""

import json
import re
import shutil

import numpy as np
import pytest

import agc
import harness

WEIGHTS_DIR = harness.TESTS / "weights"
MODEL = WEIGHTS_DIR / "mlp.py"
SAFETENSORS_CODES = {np.dtype(np.float32): "F32", np.dtype(np.float64): "F64", np.dtype(np.int32): "I32",
                     np.dtype(np.int64): "I64", np.dtype(np.bool_): "BOOL", np.dtype(np.float16): "F16"}


def write_safetensors(path, tensors, metadata=None):
    """The safetensors layout, written by hand: u64 header length, JSON header, data."""
    header, offset, blobs = {}, 0, []
    if metadata:
        header["__metadata__"] = metadata
    for name, array in tensors.items():
        data = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": SAFETENSORS_CODES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(len(text).to_bytes(8, "little") + text + b"".join(blobs))


def parameters(rng):
    return {
        "W1": rng.standard_normal((16, 32)).astype(np.float32) * 0.5,
        "b1": rng.standard_normal(32).astype(np.float32),
        "W2": np.asfortranarray(rng.standard_normal((32, 4)).astype(np.float32)),
        "b2": rng.standard_normal(4).astype(np.float32),
    }


def tables(rng):
    return {
        "E": rng.standard_normal((10, 3)),
        "ids": np.array([3, 0, 9, 3, 7], np.int32),
        "keep": np.array([True, False, True, True, False]),
        "offsets": np.array([5, -2], np.int64),
    }


def model_folder(root, fmt):
    """A folder with the model reading its parameters from a file of format `fmt`."""
    folder = root / fmt
    folder.mkdir()
    rng = np.random.default_rng(7)
    params = parameters(rng)
    name = {"npz": "params.npz", "npz_compressed": "params.npz", "safetensors": "params.safetensors"}[fmt]
    if fmt == "npz":
        np.savez(folder / name, **params)
    elif fmt == "npz_compressed":
        np.savez_compressed(folder / name, **params)
    else:
        write_safetensors(folder / name, params, metadata={"format": "pt"})
    write_safetensors(folder / "tables.safetensors", tables(rng))
    source = MODEL.read_text().replace('PARAMS = "params.npz"', f'PARAMS = "{name}"')
    (folder / "mlp.py").write_text(source)
    return folder / "mlp.py"


@pytest.fixture(scope="module")
def weights_root(tmp_path_factory):
    return tmp_path_factory.mktemp("weights")


@pytest.mark.parametrize("fmt", ["npz", "npz_compressed", "safetensors"])
def test_weights_match_eager(fmt, weights_root, builds):
    model = model_folder(weights_root, fmt)
    lib = agc.load(builds.get(model))
    module = harness.import_model(model)
    for name, export in harness.exports(module).items():
        for trial in range(2):
            rng = harness.rng_for("weights", fmt, name, trial)
            inputs = harness.make_inputs(module, export, rng, {"B": 3 + 4 * trial})
            harness.check_call(lib.functions[name], export, inputs, f"{fmt}:{name}")


def test_eager_weights_read_the_files_as_written(weights_root):
    folder = weights_root / "eager"
    folder.mkdir()
    rng = np.random.default_rng(3)
    params = parameters(rng)
    write_safetensors(folder / "p.safetensors", params)
    np.savez(folder / "p.npz", **params)
    (folder / "m.py").write_text('import agc\nA = agc.weights("p.safetensors")\nB = agc.weights("p.npz")\n')
    module = harness.import_model(folder / "m.py")
    for read in (module.A, module.B):
        assert list(read) == list(params)
        for k, v in params.items():
            assert read[k].dtype == v.dtype and np.array_equal(read[k], v)


def build_error(agc_bin, folder, source, files):
    """Builds a model reading `files` ({name: bytes}); returns the compiler's stderr (exit 1 asserted)."""
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    model = folder / "m.py"
    model.write_text(source)
    out = folder / "out"
    proc = harness.run_agc(agc_bin, "build", model, "-o", out)
    assert proc.returncode == 1, f"exit {proc.returncode}\n{proc.stderr}"
    assert "panicked" not in proc.stderr
    assert not out.exists() or not any(out.iterdir()), "nothing may be written on error"
    return proc.stderr


def safetensors_bytes(tmp_path, tensors):
    path = tmp_path / "tmp.safetensors"
    write_safetensors(path, tensors)
    return path.read_bytes()


BAD_MODEL = 'import agc\nimport agc.numpy as np\n\nP = agc.weights("{file}")\n\n\n@agc.export\ndef f(x: agc.f32[4]):\n    return x + P["w"]\n'


@pytest.mark.parametrize("case", ["missing", "truncated", "garbage", "float16", "pickle", "extension", "name"])
def test_bad_weight_files_are_build_errors(case, agc_bin, tmp_path):
    good = safetensors_bytes(tmp_path, {"w": np.ones(4, np.float32)})
    file, files, pattern = "w.safetensors", {"w.safetensors": good}, None
    if case == "missing":
        files, pattern = {}, r"cannot read .*w\.safetensors"
    elif case == "truncated":
        files, pattern = {"w.safetensors": good[:-3]}, r"not a valid safetensors file"
    elif case == "garbage":
        file, files, pattern = "w.npz", {"w.npz": b"PK\x03\x04 not really a zip"}, r"not a valid npz file"
    elif case == "float16":
        files, pattern = {"w.safetensors": safetensors_bytes(tmp_path, {"w": np.ones(4, np.float16)})}, r"dtype F16"
    elif case == "pickle":
        np.savez(tmp_path / "obj.npz", w=np.array([{"a": 1}], dtype=object))
        file, files, pattern = "w.npz", {"w.npz": (tmp_path / "obj.npz").read_bytes()}, r"dtype \|O"
    elif case == "extension":
        file, files, pattern = "w.bin", {"w.bin": good}, r"neither a \.safetensors nor an \.npz"
    else:
        files = {"w.safetensors": safetensors_bytes(tmp_path, {"v": np.ones(4, np.float32)})}
        pattern = r"KeyError|'w'"
    stderr = build_error(agc_bin, tmp_path / "case", BAD_MODEL.format(file=file), files)
    line = 9 if case == "name" else 4
    assert re.search(rf"m\.py:{line}:\d+: error: ", stderr), stderr
    assert re.search(pattern, stderr), stderr
