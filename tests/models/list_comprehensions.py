"""List comprehensions over compile-time iterables, fed to np.stack / np.concatenate / sum."""
import agc
import agc.numpy as np

POWERS = [1, 2, 3]


@agc.export
def powers_stacked(x: agc.f32[4]):
    return np.stack([x ** p for p in POWERS], axis=0)


@agc.export
def filtered_concat(x: agc.f32[2, 3]):
    parts = [x * k for k in range(5) if k % 2 == 1]
    return np.concatenate(parts, axis=1)


@agc.export
def nested_comprehension(x: agc.f32[3]):
    grid = [[x * i + j for j in range(2)] for i in range(3)]
    flat = [t for row in grid for t in row]
    total = flat[0]
    for t in flat[1:]:
        total = total + t
    return total


@agc.export
def rows_of(x: agc.f32[4, 3]):
    rows = [x[i] * (i + 1) for i in range(x.shape[0])]
    return np.stack(rows[::-1])
