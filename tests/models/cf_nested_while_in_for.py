"""A staged `while` inside a staged `for`, and a staged `for` inside a staged `while`."""
import agc
import agc.numpy as np


@agc.export
def halvings_per_element(x: agc.f32["N"]):
    counts = []
    for i in range(x.shape[0]):
        v = np.abs(x[i])
        c = np.zeros((), dtype=np.int32)
        while v > 1:
            v = v / 2
            c = c + 1
        counts.append(c)
    return np.stack(counts)


@agc.export
def sweeps_until_sorted(x: agc.i64["N"]):
    """Bubble sort's number of sweeps, counting swaps (the array itself is not changed)."""
    swaps = np.zeros((), dtype=np.int64)
    sweeps = np.zeros((), dtype=np.int64)
    changed = np.ones((), dtype=np.bool_)
    while changed:
        changed = np.zeros((), dtype=np.bool_)
        for i in range(x.shape[0] - 1):
            if x[i] > x[i + 1] and sweeps < 1:
                swaps = swaps + 1
                changed = np.ones((), dtype=np.bool_)
        sweeps = sweeps + 1
    return swaps, sweeps


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "halvings_per_element":
        return [(rng.standard_normal(n) * 40).astype(np.float32)]
    return None


AGC_TEST_DIMS = {"N": 8}
