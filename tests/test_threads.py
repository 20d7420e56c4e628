"""The library's thread pool: a large matmul split over 1, 2 or 3 threads gives the same bits
as on one (each element is computed by one task in one order), matches numpy in float64, and
stays right when several host threads call at once while the pool is busy."""

import textwrap
import threading

import numpy as np
import pytest

import agc

MODEL = textwrap.dedent('''
    """Products large enough for the pool (2^22 multiply-adds and more) and a few below."""
    import agc
    import agc.numpy as np

    @agc.export
    def mm(a: agc.f32["M", "K"], b: agc.f32["K", "N"]):
        return a @ b

    @agc.export
    def mm_t(a: agc.f32["K", "M"], b: agc.f32["K", "N"]):
        return a.T @ b
''')

SHAPES = [(32, 256, 1024), (800, 784, 10), (257, 300, 130), (96, 520, 97), (200, 784, 10)]


@pytest.fixture(scope="module")
def lib(agc_bin, tmp_path_factory):
    work = tmp_path_factory.mktemp("threads")
    (work / "threads.py").write_text(MODEL)
    lib = agc.load(agc.build(work / "threads.py", work / "out"))
    yield lib
    lib.set_num_threads(1)


def operands(m, k, n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


@pytest.mark.parametrize("m, k, n", SHAPES)
def test_thread_count_changes_no_bit(lib, m, k, n):
    a, b = operands(m, k, n, m + k + n)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    # A read in place and A read through its transpose may take different
    # kernels (a narrow product sums along the depth or along the rows), so
    # each layout is compared with itself across thread counts.
    results = []
    for threads in (1, 2, 3):
        lib.set_num_threads(threads)
        c, ct = lib.mm(a, b), lib.mm_t(np.ascontiguousarray(a.T), b)
        for r in (c, ct):
            np.testing.assert_allclose(r, exact, rtol=1e-4, atol=1e-4 * np.sqrt(k))
        results.append((c, ct))
    for c, ct in results[1:]:
        np.testing.assert_array_equal(c, results[0][0])
        np.testing.assert_array_equal(ct, results[0][1])


def test_host_threads_share_the_pool(lib):
    lib.set_num_threads(2)
    jobs = [operands(64 + 16 * t, 128, 256, t) for t in range(6)]
    expected = [a.astype(np.float64) @ b for a, b in jobs]
    errors = []

    def work(t):
        try:
            for _ in range(10):
                np.testing.assert_allclose(lib.mm(*jobs[t]), expected[t], rtol=1e-4, atol=1e-3)
        except BaseException as e:  # reported below, from the main thread
            errors.append((t, e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(len(jobs))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
