"""Integer indices after slices, `None` or `...` (compile-time or run-time) into axes of run-time
size: `x[:, 0]`, `x[..., -1]`, `x[1:, j, ::2]`, `x[None, 1]`; each is bounds-checked when the library
runs (an out-of-range index is an IndexError status, as numpy raises)."""
import agc
import agc.numpy as np


@agc.export
def first_and_last_column(x: agc.f32[3, "B"]):
    return x[:, 0] + x[:, -1]


@agc.export
def ellipsis_and_newaxis(x: agc.f32["B"]):
    return x[..., -1] + x[None, 1]


@agc.export
def runtime_index_between_slices(x: agc.f32[2, "B", 4], j: agc.i64[()]):
    return x[1:, j, ::2] * x[..., 2, :][:, None, 0]


@agc.export
def two_runtime_axes(x: agc.f32[2, "B", "C"]):
    return x[:, -1, 1:] + x[0, :, 0][-1]


@agc.export
def column_out_of_range(x: agc.f32[3, "B"]):
    return x[:, 3]


def agc_test_inputs(export_name, rng, dims):
    b, c = dims["B"], dims["C"]
    shapes = {
        "first_and_last_column": (3, b),
        "ellipsis_and_newaxis": (b,),
        "runtime_index_between_slices": (2, b, 4),
        "two_runtime_axes": (2, b, c),
        "column_out_of_range": (3, b),      # B = 5: in range; B = 2: numpy raises IndexError
    }
    x = rng.standard_normal(shapes[export_name]).astype(np.float32)
    if export_name == "runtime_index_between_slices":
        return [x, np.int64(-b if b % 2 else b - 1)]
    return [x]
