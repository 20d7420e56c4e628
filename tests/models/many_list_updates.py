"""Staged loop bodies with many run-time-indexed updates (more than the backend writes with
loops, so each is a slice): a staged loop appending to lists 12 to 24 times per iteration (scalars, rows of
a run-time length, rows under a staged `if`), element and row assignments into a matrix, and an
assignment whose index may be out of range (numpy's IndexError: an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # `assign_rows` gets an index out of range for its second inputs


@agc.export
def scalar_appends(x: agc.f32["N", 3]):
    vals = []
    for i in range(x.shape[0]):
        for j in range(24):
            vals.append(x[i, j % 3] * (j + 1))
    return np.array(vals)


@agc.export
def runtime_row_appends(x: agc.f32["N", 3], m: agc.i64[()]):
    stacked = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m):
            row.append(x[i, j % 3] * j)
        for k in range(16):
            stacked.append(np.stack(row) * (k - 7.5))
    return np.array(stacked)


@agc.export
def conditional_row_appends(x: agc.f64["N", 4]):
    kept, dropped = [], []
    for i in range(x.shape[0]):
        for k in range(12):
            row = x[i] + k
            if row[k % 4] > 6.5:
                kept.append(row)
            else:
                dropped.append(row * -1.0)
    return np.array(kept), np.array(dropped), len(kept)


@agc.export
def assign_elements_and_rows(x: agc.f32["N", 5]):
    out = np.zeros((x.shape[0], 5), dtype=np.float32)
    for i in range(x.shape[0]):
        k = (i * 7 + 3) % x.shape[0]
        for j in range(5):
            out[k, j] = x[i, j] * (j - 2)
        out[i] = out[i] + x[k]
        for j in range(5):
            out[i, (j + 2) % 5] = out[i, j] - 1.0
    return out


@agc.export
def assign_rows(x: agc.f32["N", 3], idx: agc.i64["M"]):
    out = np.zeros((x.shape[0], 3), dtype=np.float32)
    for t in range(idx.shape[0]):
        for k in range(10):
            out[idx[t]] = x[(t + k) % x.shape[0]] * k
    return out


def agc_test_inputs(name, rng, dims):
    """`assign_rows`: indices in range (negative ones too), the last one past the end where M > N
    (the second dims); `runtime_row_appends`: a row length of 4."""
    n = dims["N"]
    if name == "assign_rows":
        x = rng.standard_normal((n, 3)).astype(np.float32)
        idx = rng.integers(-n, n, size=dims["M"])
        if dims["M"] > n:
            idx[-1] = n
        return [x, idx]
    if name == "runtime_row_appends":
        return [rng.standard_normal((n, 3)).astype(np.float32), np.int64(4)]
    return None
