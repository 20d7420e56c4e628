"""`and` / `or` of staged booleans in `if` conditions (AutoGraph's logical operators)."""
import agc
import agc.numpy as np


@agc.export
def quadrant(a: agc.f32[()], b: agc.f32[()]):
    if a > 0 and b > 0:
        q = 1
    elif a <= 0 and b > 0:
        q = 2
    elif a <= 0 or b > 0:
        q = 3
    else:
        q = 4
    return np.asarray(q, dtype=np.int32)


@agc.export
def any_large(x: agc.f32[4], t: agc.f32[()]):
    if x[0] > t or x[1] > t or x[2] > t or x[3] > t:
        return x - t
    return x + t


@agc.export
def all_pos_loop(x: agc.f32["N", 2]):
    count = np.zeros((), dtype=np.int64)
    for i in range(x.shape[0]):
        if x[i, 0] > 0 and x[i, 1] > 0:
            count = count + 1
        if x[i, 0] < 0 or x[i, 1] < 0:
            count = count + 10
    return count


def agc_test_inputs(export_name, rng, dims):
    if export_name == "quadrant":
        return [np.float32(rng.choice([-1.0, 1.0])), np.float32(rng.choice([-1.0, 1.0]))]
    if export_name == "any_large":
        x = rng.standard_normal(4).astype(np.float32)
        return [x, np.float32(rng.choice([0.0, 10.0]))]
    return None


@agc.export(name="quadrant_pp")
@agc.export(name="quadrant_np")
@agc.export(name="quadrant_nn")
@agc.export(name="quadrant_pn")
def quadrant_cases(a: agc.f32[()], b: agc.f32[()]):
    return quadrant(a, b)


@agc.export(name="any_large_yes")
@agc.export(name="any_large_no")
def any_large_cases(x: agc.f32[4], t: agc.f32[()]):
    return any_large(x, t)


_AB = {"quadrant_pp": (1.0, 2.0), "quadrant_np": (-1.0, 2.0), "quadrant_nn": (-1.0, -2.0), "quadrant_pn": (1.0, -2.0)}
_hook = agc_test_inputs


def agc_test_inputs(export_name, rng, dims):  # noqa: F811
    if export_name in _AB:
        return [np.float32(v) for v in _AB[export_name]]
    if export_name.startswith("any_large_"):
        x = np.array([0.1, -0.2, 0.3, 0.05], dtype=np.float32)
        if export_name == "any_large_yes":
            x[3] = 2.0          # only the last operand is true
        return [x, np.float32(1.0)]
    return _hook(export_name, rng, dims)
