"""Matrix products whose operands are transposes (as gradients write them: g @ W.T, x.T @ g),
read through the transpose without a copy, in every shape class: one row, a few rows, many rows,
depth 1 (an outer product), run-time sizes, and a vector times a transpose."""
import agc
import agc.numpy as np


@agc.export
def row_times_transpose(g: agc.f32[1, 750], u: agc.f32[300, 750]):
    return g @ u.T


@agc.export
def outer_product(x: agc.f32[1, 300], g: agc.f32[1, 75]):
    return x.T @ g


@agc.export
def runtime_rows(a: agc.f32["M", 64], b: agc.f32[96, 64], c: agc.f32[64, "M"]):
    return a @ b.T, c.T @ b.T, c.T @ a.T


@agc.export
def vector_times_transpose(v: agc.f32[75], u: agc.f32[30, 75]):
    return v @ u.T, u.T @ u[:, 0]


@agc.export
def float64_transposes(a: agc.f64["M", 5], b: agc.f64[7, 5]):
    return a @ b.T, b @ a.T


def agc_test_inputs(export_name, rng, dims):
    m = dims["M"]
    shapes = {
        "row_times_transpose": [(1, 750), (300, 750)],
        "outer_product": [(1, 300), (1, 75)],
        "runtime_rows": [(m, 64), (96, 64), (64, m)],
        "vector_times_transpose": [(75,), (30, 75)],
        "float64_transposes": [(m, 5), (7, 5)],
    }[export_name]
    dtype = np.float64 if export_name == "float64_transposes" else np.float32
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


AGC_TEST_DIMS = {"M": 9}
