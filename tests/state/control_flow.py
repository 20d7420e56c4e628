"""Variables assigned in staged `if`s (also through a helper), `while` loops and `for` loops over run-time ranges."""
import agc
import agc.numpy as np

acc = agc.Variable(np.zeros(3, np.float32))
count = agc.Variable(np.zeros((), np.int64))


def bump(x):
    acc.assign(acc + x)


@agc.export
def step(x: agc.f32[3]):
    if np.sum(x) > 0:
        bump(x)
        count.assign(count + 1)
    else:
        acc.assign(acc * 0.5)
    return acc


@agc.export
def repeat(x: agc.f32[3], n: agc.i64[()]):
    i = 0
    while i < n:
        acc.assign(acc + x)
        i += 1
    for j in range(n):
        count.assign(count + j)
    return acc, count


def agc_test_inputs(export_name, rng, dims):
    if export_name == "repeat":
        return [rng.standard_normal(3).astype(np.float32), np.int64(rng.integers(0, 4))]
    return None
