# fuzz_frontend: a recursion on a run-time depth whose compile-time argument structure grows at
# every level (here it doubles) made a new specialisation per level, exponentially large: the
# compiler ran out of memory and aborted. Now an error at the call naming agc's limits.
import agc
import agc.numpy as np


def walk(x, n):
    if n <= 0:
        return x
    return walk((x, x), n - 1)


@agc.export
def run(x: agc.f64[3], n: agc.i64[()]):
    return walk(x, n)
