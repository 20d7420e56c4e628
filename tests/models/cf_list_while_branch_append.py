"""A staged `while` that appends only on some iterations (a staged `if` in the body), then indexes the list."""
import agc
import agc.numpy as np


@agc.export
def collatz_evens(n: agc.i64[()]):
    seen = []
    steps = 0
    while n != 1 and steps < 200:
        if n % 2 == 0:
            seen.append(n)
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    seen.append(n)
    return np.stack(seen), seen[0], len(seen)


def agc_test_inputs(export_name, rng, dims):
    return [np.int64(27)]
