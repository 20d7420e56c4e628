"""A staged loop inside a staged loop (both over run-time sizes): a matrix product and a pairwise count."""
import agc
import agc.numpy as np


@agc.export
def loop_matvec(a: agc.f64["M", "K"], v: agc.f64["K"]):
    out = []
    for i in range(a.shape[0]):
        s = np.zeros((), dtype=np.float64)
        for k in range(a.shape[1]):
            s = s + a[i, k] * v[k]
        out.append(s)
    return np.stack(out)


@agc.export
def count_inversions(x: agc.i32["N"]):
    count = np.zeros((), dtype=np.int64)
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            if x[i] > x[j]:
                count = count + 1
    return count


AGC_TEST_DIMS = {"M": 4, "K": 3, "N": 9}
