"""Collatz steps: a `while` on a run-time integer with a staged `if` in the body (trip count varies with the input)."""
import agc
import agc.numpy as np


@agc.export(name="collatz_steps_b")
@agc.export
def collatz_steps(n: agc.i64[()]):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return np.asarray(steps), n


@agc.export
def collatz_many(ns: agc.i64["K"]):
    out = []
    for k in range(ns.shape[0]):
        n = ns[k]
        steps = np.zeros((), dtype=np.int64)
        while n > 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps = steps + 1
        out.append(steps)
    return np.stack(out)


def agc_test_inputs(export_name, rng, dims):
    if export_name == "collatz_steps":
        return [np.int64(27)]          # 111 steps
    if export_name == "collatz_steps_b":
        return [np.int64(1)]           # zero steps
    return [rng.integers(1, 100, size=dims["K"]).astype(np.int64)]
