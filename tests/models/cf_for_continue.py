"""`continue` in a staged `for` over a run-time range."""
import agc
import agc.numpy as np


@agc.export
def sum_even_index_positive(x: agc.f32["N"]):
    total = np.zeros((), dtype=np.float32)
    skipped = 0
    for i in range(x.shape[0]):
        if i % 2 == 1:
            continue
        if x[i] < 0:
            skipped += 1
            continue
        total = total + x[i]
    return total, np.asarray(skipped)


@agc.export
def rows_with_positive_mean(x: agc.f64["N", 4]):
    acc = np.zeros(4, dtype=np.float64)
    for i in range(x.shape[0]):
        row = x[i]
        if np.mean(row) <= 0:
            continue
        acc = acc + row
    return acc


AGC_TEST_DIMS = {"N": 10}
