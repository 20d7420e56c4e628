"""`break` and `continue` together in one staged `while`, both on run-time data."""
import agc
import agc.numpy as np


@agc.export
def scan(x: agc.i32["N"], stop: agc.i32[()]):
    i = 0
    acc = np.zeros((), dtype=np.int32)
    skipped = np.zeros((), dtype=np.int32)
    while i < x.shape[0]:
        v = x[i]
        i += 1
        if v % 3 == 0:
            skipped = skipped + 1
            continue
        if v == stop:
            break
        acc = acc + v
    return acc, skipped, np.asarray(i)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    x = rng.integers(-10, 11, size=n).astype(np.int32)
    x[x == 7] = 8
    if n % 2:
        x[n // 2] = 7           # the first call stops there; the second never meets `stop`
    stop = np.int32(7)
    return [x, stop]


AGC_TEST_DIMS = {"N": 11}
