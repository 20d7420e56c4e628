"""`break`/`continue` in an inner staged loop leave only the inner loop; the outer loop goes on."""
import agc
import agc.numpy as np


@agc.export
def first_negative_per_row(x: agc.f32["N", "M"]):
    cols = []
    for i in range(x.shape[0]):
        found = np.asarray(-1)
        for j in range(x.shape[1]):
            if x[i, j] < 0:
                found = np.asarray(j)
                break
        cols.append(found)
    return np.stack(cols)


@agc.export
def outer_break(x: agc.f32["N", "M"], t: agc.f32[()]):
    total = np.zeros((), dtype=np.float32)
    rows = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] < 0:
                continue
            total = total + x[i, j]
        rows += 1
        if total > t:
            break
    return total, np.asarray(rows)


def agc_test_inputs(export_name, rng, dims):
    x = rng.standard_normal((dims["N"], dims["M"])).astype(np.float32)
    if export_name == "outer_break":
        return [x, np.float32(1.0 if dims["N"] > 4 else 1000.0)]
    return [x]


AGC_TEST_DIMS = {"N": 6, "M": 5}
