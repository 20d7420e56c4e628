"""`agc build --target cuda` on a machine without a GPU (every CI run):

- every model of tests/models and tests/grad_models builds for CUDA, and the PTX of every
  kernel module it contains is accepted by `ptxas` (from PyPI's nvidia-cuda-nvcc-cu12,
  installed by scripts/setup.sh) for sm_80 and sm_90;
- the emulated CUDA library of every export of tests/models (the same host code, each
  kernel launch run as host loops over its grid, tensors tagged kDLCUDA) matches the eager
  CPython/numpy result, and every gradient export of tests/grad_models its oracles (autograd
  and float64 finite differences, test_gradients.py): the check of the kernels' indexing,
  bounds and launch geometry;
- a CUDA library called where no CUDA driver is installed returns DEVICE_UNAVAILABLE (7)
  with a message saying so, from Python and from C, and its `ldd` is the CPU library's.

Kernels with shared memory or barriers would need a GPU to check: the pipeline makes none
(every kernel is one thread per element of a parallel loop nest, no synchronisation).
"""

import ctypes.util
import gc
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agc
import harness
import test_gradients
import test_models
import test_weights
from test_models import CASES

GRAD_MODELS = sorted((harness.REPO / "tests" / "grad_models").glob("*.py"))
ALL_MODELS = harness.model_paths() + GRAD_MODELS
HAVE_DRIVER = ctypes.util.find_library("cuda") is not None


def _ptxas():
    """ptxas from the nvidia-cuda-nvcc-cu12 wheel (or PATH)."""
    try:
        import nvidia.cuda_nvcc
        for root in nvidia.cuda_nvcc.__path__:
            candidate = Path(root) / "bin" / "ptxas"
            if candidate.is_file():
                return candidate
    except ImportError:
        pass
    found = shutil.which("ptxas")
    return Path(found) if found else None


def _kernel_modules(ptx_text):
    """(module name, PTX) for each module of a `--emit ptx` file."""
    parts = re.split(r"^// agc kernel module: (\S+)\n", ptx_text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def _is_unsupported(path):
    try:
        return getattr(harness.import_model(path), "AGC_KNOWN_UNSUPPORTED", None) is not None
    except Exception:
        return False


@pytest.mark.parametrize("model_path", ALL_MODELS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_ptx_of_every_kernel_assembles(model_path, builds):
    ptxas = _ptxas()
    assert ptxas is not None, "ptxas is missing: run scripts/setup.sh (pip nvidia-cuda-nvcc-cu12)"
    if _is_unsupported(model_path):
        pytest.skip("a model agc does not stage yet (checked by test_models)")
    so = builds.get(model_path, target="cuda", emit="ptx")
    ptx = so.with_name(so.name[3:-3] + ".ptx").read_text()
    for name, text in _kernel_modules(ptx):
        assert ".extern" not in text, f"kernel module {name} calls an undefined function:\n{text[:2000]}"
        src = so.parent / f"{name}.ptx"
        src.write_text(text)
        for arch in ("sm_80", "sm_90"):
            proc = subprocess.run([str(ptxas), f"-arch={arch}", str(src), "-o", str(src.with_suffix(f".{arch}.cubin"))],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, f"ptxas -arch={arch} rejects kernel module {name}:\n{proc.stderr}"


class _EmulatedBuilds:
    """The session's BuildCache, building every model as an emulated CUDA library."""

    def __init__(self, builds):
        self.binary = builds.binary
        self._builds = builds

    def get(self, path, **options):
        return self._builds.get(path, target="cuda", emulate_device=True, **options)


@pytest.mark.parametrize("model_path, export_name", CASES)
def test_emulated_cuda_matches_numpy(model_path, export_name, builds, tmp_path):
    test_models.test_matches_numpy(model_path, export_name, _EmulatedBuilds(builds), tmp_path)


@pytest.mark.parametrize("weights", ["embed", "external"])
def test_emulated_cuda_weights_match_eager(weights, tmp_path, agc_bin):
    """Embedded weights (the kernel-read section) and external ones (the context's copy of the
    mapped file, its table moved onto the copy)."""
    model = test_weights.model_folder(tmp_path, "safetensors")
    out = tmp_path / f"out-{weights}"
    proc = harness.run_agc(agc_bin, "build", model, "-o", out, "--target", "cuda", "--emulate-device",
                           "--weights", weights)
    assert proc.returncode == 0, proc.stderr
    lib = agc.load(out / "libmlp.so")
    module = harness.import_model(model)
    for name, export in harness.exports(module).items():
        rng = harness.rng_for("cuda-weights", weights, name)
        inputs = harness.make_inputs(module, export, rng, {"B": 5})
        harness.check_call(lib.functions[name], export, inputs, f"{weights}:{name}")


@pytest.mark.parametrize("model_path, export_name", test_gradients.CASES)
def test_emulated_cuda_gradients(model_path, export_name, builds, tmp_path):
    test_gradients.test_gradient(model_path, export_name, _EmulatedBuilds(builds), tmp_path)


MODEL = '''
import agc
import agc.numpy as np

@agc.export
def f(x: agc.f32["N"], y: agc.f32["N"]):
    return np.tanh(x * y + 1.0)
'''

DRIVER = r'''
#include <stdio.h>
#include <stdint.h>
#include "m.h"
int main(void) {
    float xs[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    DLTensor x = {xs, {kDLCUDA, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
    DLTensor *out = NULL;
    int status = m_f(&x, &x, &out);
    printf("%d|%s|%p\n", status, m_last_error(), (void *)out);
    return 0;
}
'''


@pytest.fixture(scope="module")
def cuda_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("cuda")
    (root / "m.py").write_text(MODEL)
    return agc.build(root / "m.py", root / "out", target="cuda")


@pytest.fixture(scope="module")
def emulated_library(tmp_path_factory):
    root = tmp_path_factory.mktemp("cuda-emulated")
    (root / "m.py").write_text(MODEL)
    return agc.build(root / "m.py", root / "out", target="cuda", emulate_device=True)


def test_dlpack_results_pass_back_without_copies(emulated_library):
    """Results as DeviceTensors (DLPack producers on kDLCUDA), fed back as arguments (their
    DLTensor borrowed from the capsule): the values of f(f(x, y), y); every exported tensor is
    released, consumed or not."""
    from agc import _dlpack
    on_device = agc.load(emulated_library, results="dlpack")
    as_numpy = agc.load(emulated_library)
    assert on_device.metadata["target"]["device"] == "cuda-emulated"
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(7).astype(np.float32) for _ in range(2))
    t = on_device.f(x, y)
    assert isinstance(t, _dlpack.DeviceTensor) and t.__dlpack_device__() == (2, 0)
    assert t.shape == (7,) and t.dtype == np.float32
    expected = np.tanh(np.tanh(x * y + 1) * y + 1)
    np.testing.assert_allclose(as_numpy.f(t, y), expected, rtol=1e-5)
    unconsumed = t.__dlpack__()
    assert len(_dlpack._exported) == 1
    del unconsumed
    assert not _dlpack._exported
    released, release = [], on_device._release
    on_device._release = lambda ptr: (released.append(1), release(ptr))
    for _ in range(200):
        as_numpy.f(on_device.f(x, y), y)
    gc.collect()
    assert not _dlpack._exported and len(released) == 200


@pytest.mark.skipif(HAVE_DRIVER, reason="a CUDA driver is installed here")
def test_without_a_driver_a_call_returns_device_unavailable(cuda_library):
    lib = agc.load(cuda_library)
    assert lib.metadata["target"]["device"] == "cuda"
    with pytest.raises(agc.Error) as e:
        lib.f(np.ones(4, np.float32), np.ones(4, np.float32))
    assert e.value.status == 7, e.value
    assert "no CUDA driver" in str(e.value) and "libcuda.so.1" in str(e.value), e.value


@pytest.mark.skipif(HAVE_DRIVER, reason="a CUDA driver is installed here")
def test_without_a_driver_a_c_caller_gets_the_status(cuda_library, tmp_path):
    out = cuda_library.parent
    (tmp_path / "main.c").write_text(DRIVER)
    exe = tmp_path / "main"
    subprocess.run(["cc", str(tmp_path / "main.c"), f"-I{out}", f"-L{out}", "-lm", f"-Wl,-rpath,{out}", "-o", str(exe)],
                   check=True)
    for _ in range(2):  # the outcome of loading the driver is kept: the same answer again
        proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        status, message, out_ptr = proc.stdout.strip().split("|")
        assert status == "7", proc.stdout
        assert message.startswith("f: no CUDA driver"), message
        assert out_ptr in ("(nil)", "0x0", "0"), "the result pointer is untouched (NULL)"


def test_a_cuda_library_links_nothing_more_than_a_cpu_one(cuda_library):
    ldd = subprocess.run(["ldd", str(cuda_library)], capture_output=True, text=True, check=True).stdout
    libs = sorted(re.findall(r"^\s*(\S+\.so[.\d]*)", ldd, flags=re.M))
    assert not [l for l in libs if "cuda" in l], ldd
    assert set(l for l in libs if not l.startswith("linux-vdso")) <= {
        "libc.so.6", "libgcc_s.so.1", "libm.so.6", "/lib64/ld-linux-x86-64.so.2"}, ldd


def test_emit_ptx_needs_cuda(tmp_path, agc_bin):
    (tmp_path / "m.py").write_text(MODEL)
    proc = harness.run_agc(agc_bin, "build", tmp_path / "m.py", "-o", tmp_path / "out", "--emit", "ptx")
    assert proc.returncode == 1 and "--emit ptx needs --target cuda" in proc.stderr, proc.stderr
