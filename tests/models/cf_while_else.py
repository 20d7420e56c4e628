"""`while ... else` on a staged condition: the `else` block runs only when no `break` happened."""
import agc
import agc.numpy as np


def search(x, t):
    i = 0
    result = np.asarray(-1.0, dtype=np.float32)
    while i < x.shape[0]:
        if x[i] > t:
            result = x[i]
            break
        i += 1
    else:
        result = np.asarray(1000.0, dtype=np.float32)
    return result, np.asarray(i)


@agc.export(name="while_else_found")
@agc.export(name="while_else_missing")
def found_or_not(x: agc.f32["N"], t: agc.f32[()]):
    return search(x, t)


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal(dims["N"]).astype(np.float32)
    return [x, np.float32(0.0 if export_name == "while_else_found" else 50.0)]


AGC_TEST_DIMS = {"N": 6}
