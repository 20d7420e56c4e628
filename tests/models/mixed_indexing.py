"""Advanced indexing mixed with basic items, by numpy's rules: integer scalars beside index
arrays are indices too, index arrays broadcast together, their dims replace the indexed axes
where those are adjacent in the subscript and go first where a slice/None/... separates them;
run-time indices, run-time sized axes, negative indices, and an index out of range (numpy's
IndexError: an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # one export's inputs make numpy raise: the library must return an error status


@agc.export
def mixed(x: agc.f32[5, 4, 6], i: agc.i64[2], j: agc.i64[()]):
    return (
        x[3, 2:, [1, 3]],
        x[:, [0, 2], [1, 3]],
        x[[0, 1], :, [2, 3]],
        x[[0, -1], [1, 2]],
        x[1:4, i],
        x[i, j],
        x[..., i],
        x[j, :, i],
        x[None, [0, 1], 1],
        x[[[0], [1]], [1, 2], ::2],
        x[i, None, 1:3, j],
        x[:, [[0, 1], [2, 3]], [1]],
        x[[1, 2]],
        x[[0, 1], ..., 2],
    )


@agc.export
def runtime_sized(x: agc.f32["N", 4, 3], i: agc.i64[3]):
    return x[i, 1:, [0, 1, 2]], x[:, i, -1], x[1:, [0, 3]]


@agc.export
def out_of_range(x: agc.f32[5, 4, 6], i: agc.i64[2]):
    return x[i, :, [0, 1]]


def agc_test_inputs(name, rng, dims):
    if name == "mixed":
        return [rng.standard_normal((5, 4, 6)).astype(np.float32), np.array([1, -2]), np.int64(-1)]
    if name == "runtime_sized":
        return [rng.standard_normal((dims["N"], 4, 3)).astype(np.float32), rng.integers(-2, 2, 3)]
    return [rng.standard_normal((5, 4, 6)).astype(np.float32), np.array([1, 5])]
