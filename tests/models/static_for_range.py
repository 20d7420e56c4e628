"""`for` over range(...) with compile-time bounds, unrolled; accumulation and step/negative ranges."""
import agc
import agc.numpy as np

STEPS = 4


@agc.export
def repeated_update(x: agc.f32[6], w: agc.f32[6]):
    h = x
    for i in range(STEPS):
        h = np.tanh(h * w + i)
    return h


@agc.export
def strided_ranges(x: agc.f32[8]):
    total = np.zeros_like(x)
    for i in range(0, 8, 3):
        total = total + x * i
    for j in range(5, 0, -2):
        total = total - j
    return total


@agc.export
def nested_loops(x: agc.f32[3, 4]):
    acc = x
    for i in range(2):
        for j in range(i + 1):
            acc = acc + (i * 10 + j)
    return acc
