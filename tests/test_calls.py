"""Calling conventions through agc.load and the raw C ABI: aliasing, layouts, result tensors, Python threads."""

import ctypes
import threading

import numpy as np
import pytest

import agc
import harness
from agc import _loader

RESULTS = harness.MODELS / "multiple_results.py"
MLP = harness.MODELS / "mlp_mnist.py"


@pytest.fixture(scope="module")
def results_lib(builds):
    return agc.load(builds.get(RESULTS))


def raw_call(lib, name, arrays):
    """Call `name` through the C ABI directly; returns the result DLTensor pointers (caller releases)."""
    fn = lib.functions[name]
    tensors = [_loader._input_tensor(np.ascontiguousarray(a)) for a in arrays]
    outs = [ctypes.POINTER(_loader.DLTensor)() for _ in fn.results]
    status = fn._cfn(*[ctypes.byref(t) for t, _ in tensors], *[ctypes.byref(o) for o in outs])
    assert status == 0, lib.last_error()
    return outs


def test_result_tensors_are_fresh_contiguous_cpu_tensors(results_lib):
    x = np.arange(4, dtype=np.float32)
    n = np.arange(3, dtype=np.int32)
    twice = raw_call(results_lib, "same_value_twice", [x])
    passthrough = raw_call(results_lib, "input_passthrough", [np.ones((2, 2), np.float32), n])
    try:
        pointers = [o.contents.data for o in twice + passthrough]
        assert len(set(pointers)) == len(pointers), "results share a buffer"
        assert x.ctypes.data not in pointers and n.ctypes.data not in pointers, "a result aliases an argument"
        for o in twice + passthrough:
            t = o.contents
            assert t.device.device_type == 1 and t.byte_offset == 0
            shape = [t.shape[i] for i in range(t.ndim)]
            assert t.strides, "strides are filled in"
            strides = [t.strides[i] for i in range(t.ndim)]
            expected = [int(np.prod(shape[i + 1:])) for i in range(t.ndim)]
            assert all(s == e for s, e, d in zip(strides, expected, shape) if d != 1), (shape, strides)
    finally:
        for o in twice + passthrough:
            results_lib._release(o)


def test_metadata_declares_abi_version(results_lib):
    assert results_lib.metadata.get("abi_version") == 1


def test_same_array_for_two_parameters(builds):
    path = harness.MODELS / "maximum_minimum.py"
    module, lib = harness.import_model(path), agc.load(builds.get(path))
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    harness.check_call(lib.max_min, harness.exports(module)["max_min"], [x, x], "max_min(x, x)")


def test_views_fortran_and_readonly_inputs(builds):
    path = harness.MODELS / "matmul_variants.py"
    module, lib = harness.import_model(path), agc.load(builds.get(path))
    export = harness.exports(module)["mat_mat"]
    rng = np.random.default_rng(2)
    a = np.asfortranarray(rng.standard_normal((4, 6)).astype(np.float32))
    b = rng.standard_normal((12, 3)).astype(np.float32)[::2]   # a strided view
    b.flags.writeable = False
    harness.check_call(lib.mat_mat, export, [a, b], "mat_mat on Fortran-ordered, strided, read-only inputs")


def test_python_scalars_and_lists_are_converted(builds):
    path = harness.MODELS / "scalar_params.py"
    module, lib = harness.import_model(path), agc.load(builds.get(path))
    got = lib.scale_vector([1, 2, 3, 4, 5], 2)
    expected = harness.eager(harness.exports(module)["scale_vector"],
                             [np.arange(1, 6, dtype=np.float32), np.float32(2)])
    for g, e in zip(got, expected):
        harness.assert_matches(g, e, "scale_vector from Python values")


def test_results_are_owned_copies(results_lib):
    x = np.arange(4, dtype=np.float32)
    first = results_lib.same_value_twice(x)
    first[0][:] = -1
    again = results_lib.same_value_twice(x)
    np.testing.assert_array_equal(again[0], x * 2)
    np.testing.assert_array_equal(again[2], x)
    np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32), err_msg="the input was written")


def test_concurrent_python_threads(builds):
    module, lib = harness.import_model(MLP), agc.load(builds.get(MLP))
    export = harness.exports(module)["predict"]
    jobs = [harness.make_inputs(module, export, harness.rng_for("threads", t), {"B": t + 1}) for t in range(8)]
    expected = [harness.eager(export, inputs)[0] for inputs in jobs]
    failures = []

    def work(t):
        try:
            for _ in range(20):
                harness.assert_matches(lib.predict(*jobs[t]), expected[t], f"thread {t}")
                with pytest.raises(agc.Error, match=r"\bx\b"):
                    lib.predict(jobs[t][0][:, :-1], *jobs[t][1:])
        except BaseException as e:  # reported below, from the main thread
            failures.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, failures[0]


def test_one_dtype_policy_for_lists_arrays_and_dlpack(builds):
    """Python numbers and lists take the parameter's dtype where numpy would cast their kind;
    arrays, numpy's or any DLPack producer's, must have it (never a silent cast)."""
    path = harness.MODELS / "maximum_minimum.py"
    lib = agc.load(builds.get(path))
    a = np.arange(6, dtype=np.int32)
    np.testing.assert_array_equal(lib.int_max_min([0, 1, 2, 3, 4, 5], a)[0], a)
    with pytest.raises(agc.Error, match="float64 value cannot be passed for a int32"):
        lib.int_max_min([0.5] * 6, a)
    with pytest.raises(agc.Error, match="int64|dtype"):
        lib.int_max_min(a.astype(np.int64), a)

    class Producer:
        """A DLPack producer that is not a numpy array."""

        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    x = np.ones((4, 3), np.float32)
    np.testing.assert_array_equal(lib.max_min(Producer(x), Producer(x * 2))[0], x * 2)
    with pytest.raises(agc.Error, match="float64|dtype"):
        lib.max_min(Producer(x.astype(np.float64)), Producer(x))


def test_results_view_the_library_buffers(results_lib):
    """A result over 64 KiB is a numpy array over the library's tensor (no copy); a smaller one
    is a copy (cheaper than keeping the tensor alive); both writable and DLPack-exportable."""
    x = np.arange(4, dtype=np.float32)
    y = results_lib.same_value_twice(x)[0]
    assert y.flags.writeable and y.flags.owndata
    np.testing.assert_array_equal(np.from_dlpack(y), x * 2)
    big = np.arange(20_000, dtype=np.float32)
    doubled, plus_one = results_lib.scaled_pair(big)
    for r in (doubled, plus_one):
        assert r.flags.writeable and not r.flags.owndata
    np.testing.assert_array_equal(np.from_dlpack(doubled), big * 2)
    np.testing.assert_array_equal(plus_one, big + 1)
