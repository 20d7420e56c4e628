"""`return` from inside a staged `while` (and from an `if` nested in it)."""
import agc
import agc.numpy as np


@agc.export
def find_index(x: agc.i64["N"], target: agc.i64[()]):
    i = 0
    while i < x.shape[0]:
        if x[i] == target:
            return np.asarray(i)
        i += 1
    return np.asarray(-1)


@agc.export(name="newton_converges")
@agc.export(name="newton_gives_up")
def newton_or_give_up(a: agc.f64[()], max_iter: agc.i64[()]):
    x = a
    k = 0
    while k < max_iter:
        nxt = 0.5 * (x + a / x)
        if np.abs(nxt - x) < 1e-12:
            return nxt, np.asarray(k)
        x = nxt
        k += 1
    return -x, np.asarray(k)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "find_index":
        n = dims["N"]
        x = rng.permutation(n * 3)[:n].astype(np.int64)
        target = x[n // 2] if n % 2 else np.int64(-5)
        return [x, np.int64(target)]
    return [np.float64(rng.uniform(2.0, 100.0)), np.int64(2 if export_name == "newton_gives_up" else 100)]
