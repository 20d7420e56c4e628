"""Calls that need more memory than there is return OUT_OF_MEMORY (status 2) with a message and
leave the process and the library working: a size product that wraps 64 bits (an outer product
of three long vectors' sizes), allocations the system refuses (np.ones of 2^20 x 2^20, np.arange of
2^40), a failure deep inside a recursion whose levels hold tensors (their blocks are freed), and a
negative size (numpy's ValueError, INVALID_ARGUMENT). Each runs in a child process whose address
space is limited to 4 GiB, so that no request can succeed by overcommit; the same library then
computes ordinary calls right (numpy as the oracle), and a failing call repeated 300 times does
not grow the process (nothing of an abandoned call leaks)."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import agc
import harness

MODEL = textwrap.dedent('''
    """Exports whose memory use the caller's sizes decide."""
    import agc
    import agc.numpy as np

    @agc.export
    def outer3(a: agc.f32["A"], b: agc.f32["B"], c: agc.f32["C"]):
        # One (A, B, C) tensor: `a[:, None, None] * b[None, :, None] * c[None, None, :]` would
        # first make its (A, B, 1) factor, an allocation refused before any size wraps.
        return np.zeros((a.shape[0], b.shape[0], c.shape[0]), np.float32) + a[:, None, None]

    @agc.export
    def grid(x: agc.f32["N"], y: agc.f32["M"]):
        return np.ones((x.shape[0], y.shape[0]), np.float32) + x[:, None]

    @agc.export
    def ramp(n: agc.i64[()]):
        return np.arange(n) * 2

''')

CHILD = textwrap.dedent('''
    import json, resource, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import agc
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    lib = agc.load(sys.argv[1])
    cabi = agc.load(sys.argv[3])  # tests/c/cabi.py: its chain recursion ends in an N^3 tensor
    f32 = lambda n: np.ones(n, np.float32)

    def attempt(f, *args):
        try:
            r = f(*args)
            return {"ok": np.asarray(r).tolist()}
        except agc.Error as e:
            return {"status": e.status, "message": str(e)}

    def rss_kib():
        with open("/proc/self/status") as s:
            return next(int(l.split()[1]) for l in s if l.startswith("VmRSS"))

    out = {
        "outer3": attempt(lib.outer3, f32(2**21), f32(2**21), f32(2**20)),
        "grid": attempt(lib.grid, f32(2**20), f32(2**20)),
        "ramp": attempt(lib.ramp, np.int64(2**40)),
        "chain": attempt(cabi.chain, f32(2**14), np.int64(40)),
        "grid_small": attempt(lib.grid, np.arange(3, dtype=np.float32), f32(2)),
        "ramp_small": attempt(lib.ramp, np.int64(5)),
        "ramp_negative": attempt(lib.ramp, np.int64(-5)),
        "chain_small": attempt(cabi.chain, np.arange(4, dtype=np.float32), np.int64(3)),
    }
    for _ in range(20):
        attempt(cabi.chain, f32(2**14), np.int64(40))
    before = rss_kib()
    for _ in range(300):
        attempt(cabi.chain, f32(2**14), np.int64(40))
    out["rss_growth_kib"] = rss_kib() - before
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def results(agc_bin, builds, tmp_path_factory):
    work = tmp_path_factory.mktemp("oom")
    (work / "oom.py").write_text(MODEL)
    so = agc.build(work / "oom.py", work / "out")
    cabi = builds.get(harness.TESTS / "c" / "cabi.py")
    (work / "child.py").write_text(CHILD)
    proc = subprocess.run([sys.executable, str(work / "child.py"), str(so), str(agc.__path__[0] + "/.."), str(cabi)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the child process died ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


OUT_OF_MEMORY, INVALID_ARGUMENT = 2, 1


def test_a_wrapped_size_product_is_out_of_memory(results):
    r = results["outer3"]
    assert r.get("status") == OUT_OF_MEMORY, r
    assert "outer3" in r["message"] and "(2097152, 2097152, 1048576)" in r["message"], r


@pytest.mark.parametrize("name", ["grid", "ramp"])
def test_a_refused_allocation_is_out_of_memory(results, name):
    r = results[name]
    assert r.get("status") == OUT_OF_MEMORY, r
    assert "out of memory" in r["message"], r


def test_a_failure_inside_a_recursion_is_out_of_memory(results):
    r = results["chain"]
    assert r.get("status") == OUT_OF_MEMORY, r


def test_abandoned_calls_leak_nothing(results):
    # 300 abandoned recursions of 40 levels, each level holding a 64 KiB tensor (750 MiB in all
    # if they leaked).
    assert results["rss_growth_kib"] < 16 * 1024, results["rss_growth_kib"]


def test_the_library_works_after_failures(results):
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(results["grid_small"]["ok"], np.ones((3, 2), np.float32) + x[:, None])
    np.testing.assert_array_equal(results["ramp_small"]["ok"], np.arange(5) * 2)
    np.testing.assert_array_equal(results["ramp_negative"]["ok"], np.arange(-5) * 2)
    x = np.arange(4, dtype=np.float32)
    expect = np.float32(np.sum(np.ones((4, 4, 4), np.float32)))
    for k in range(3):
        level = x * np.float32(2.0 ** (2 - k))
        expect = np.tanh(expect + np.sum(level))
    np.testing.assert_allclose(results["chain_small"]["ok"], expect, rtol=1e-6)
