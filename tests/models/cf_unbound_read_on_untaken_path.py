"""A read of a variable that this path of a staged `if` has not assigned (CPython raises
UnboundLocalError only when the path is taken): the library builds and returns an error status on
that path; the other path computes; fuzzer finding F9 (a closure's new local shadowing the
enclosing function's)."""
import agc
import agc.numpy as np


@agc.export
def read_before_assign(x: agc.f32[3], n: agc.i32[()]):
    if n == 0:
        v = v + 1.0
        x = x + v
    return x


@agc.export
def closure_local_shadows(x: agc.f32["B"], n: agc.i32[()]):
    v = x * 2.0

    def g(u, c=1.0):
        if np.sum(u) > 100.0 * n:
            v = v * c
            u = u + v
        return u * c
    return g(x) + v


def agc_test_inputs(export_name, rng, dims):
    taken = dims["B"] % 2 == 1          # the first dims set takes the raising path, the second not
    if export_name == "read_before_assign":
        return [rng.standard_normal(3).astype(np.float32), np.int32(0 if taken else 1)]
    x = np.abs(rng.standard_normal(dims["B"])).astype(np.float32) + 1.0
    return [x, np.int32(0 if taken else 1)]
