"""Shape functions: flip, swapaxes, moveaxis, hstack, vstack, tile, repeat, roll, pad, split and
array_split, with static sizes and run-time sizes (rolling and splitting an axis of run-time length
computes the windows at run time)."""
import agc
import agc.numpy as np


@agc.export
def flips(x: agc.f32["N", 3], b: agc.bool_[2, 3]):
    return np.flip(x), np.flip(x, 0), np.flip(x, axis=-1), np.flip(x, (0, 1)), np.flip(b, 1)


@agc.export
def axes(x: agc.f32["N", 3, 2]):
    return np.swapaxes(x, 0, 2), x.swapaxes(1, -1), np.moveaxis(x, 0, -1), np.moveaxis(x, [0, 1], [-1, 0])


@agc.export
def stacks(x: agc.f32["N", 3], w: agc.f32[3, 3], v: agc.i32[3]):
    return np.hstack([x, x]), np.vstack([x, w]), np.vstack([v, w[0]]), np.hstack((v, v)), np.hstack([w, v[:, None]])


@agc.export
def tiles(x: agc.f32["N", 3], v: agc.i64[3]):
    return (np.tile(x, 2), np.tile(x, (2, 1)), np.tile(v, (2, 2)), np.tile(x, (2, 1, 3)), np.repeat(x, 2),
            np.repeat(x, 3, axis=0), x.repeat(2, axis=1), np.repeat(v, 2, axis=-1))


@agc.export
def rolls(x: agc.f32["N", 3], w: agc.f64[4, 5]):
    return (np.roll(x, 1), np.roll(x, 2, axis=0), np.roll(x, -7, axis=0), np.roll(x, 1, axis=1), np.roll(w, 3),
            np.roll(w, (1, -2), axis=(0, 1)), np.roll(w, 13, axis=-1), np.roll(x, (1, 1), axis=(1, 1)))


@agc.export
def pads(x: agc.f32["N", 3], v: agc.i32[4]):
    return (np.pad(x, 1), np.pad(x, (1, 2)), np.pad(x, ((0, 2), (1, 0)), constant_values=-1.5),
            np.pad(v, 2, mode="constant", constant_values=7), np.pad(v, [(1, 3)], constant_values=(5, 6)))


@agc.export
def splits(x: agc.f32["N", 3], w: agc.f32[6, 4]):
    a, b, c = np.split(w, 3)
    d, e = np.split(w, [1], axis=1)
    f = np.array_split(w, 4, axis=1)
    g, h, i = np.split(x, [1, 3])
    j, k = np.array_split(x, 2)
    return a, b, c, d, e, f[0], f[3], g, h, i, j, k


@agc.export
def even_split(x: agc.f64["M", 2]):
    # numpy raises for an unequal division: an error status at run time.
    p, q = np.split(x, 2)
    return p - q


AGC_TEST_DIMS = {"M": 6}
