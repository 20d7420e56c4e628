"""Integer-array indexing (numpy's take): embedding lookups with a run-time number of
ids, 2-D and negative ids, take along an axis or the flattened array, index lists,
and lookups inside a staged loop."""
import agc
import agc.numpy as np


@agc.export
def embed(E: agc.f32["V", 4], ids: agc.i64["T"]):
    return E[ids]


@agc.export
def embed_2d(E: agc.f32["V", 4], ids: agc.i32["B", 3]):
    return E[ids] * 2.0


@agc.export
def embed_negative(E: agc.f64["V", 4], ids: agc.i64["T"]):
    return E[ids, 1:], E[-ids - 1]


@agc.export
def take_axis1(x: agc.f64["N", 5], ids: agc.i64["T"]):
    return np.take(x, ids, axis=1), x[:, ids], np.take(x, ids, axis=-1).sum(axis=0)


@agc.export
def take_flat(x: agc.f32["N", 3], ids: agc.i64[2, 2]):
    return np.take(x, ids), x.take(ids), x.take(ids % 3, axis=1)


@agc.export
def from_list(x: agc.f32["N", 3]):
    picks = [0, -1, 0]
    return x[picks], x[:, [2, 0]], x[np.array([1, 2])], np.take(x, [[0], [2]], axis=1)


@agc.export
def loop_lookup(E: agc.f32["V", 4], ids: agc.i64["T", 2]):
    h = np.zeros(4, dtype=np.float32)
    for t in range(ids.shape[0]):
        h = np.tanh(h + E[ids[t]].sum(axis=0))
    return h


def agc_test_inputs(export_name, rng, dims):
    v, t, n = dims["V"], dims["T"], dims["N"]
    table = rng.standard_normal((v, 4)).astype(np.float32)
    if export_name == "embed":
        return [table, rng.integers(0, v, t).astype(np.int64)]
    if export_name == "embed_2d":
        return [table, rng.integers(-v, v, (dims["B"], 3)).astype(np.int32)]
    if export_name == "embed_negative":
        return [table.astype(np.float64), rng.integers(-v, 0, t).astype(np.int64)]
    if export_name == "take_axis1":
        return [rng.standard_normal((n, 5)), rng.integers(-5, 5, t).astype(np.int64)]
    if export_name == "take_flat":
        return [rng.standard_normal((n, 3)).astype(np.float32), rng.integers(0, 3 * n, (2, 2)).astype(np.int64)]
    if export_name == "from_list":
        return [rng.standard_normal((n, 3)).astype(np.float32)]
    return [table, rng.integers(-v, v, (t, 2)).astype(np.int64)]


AGC_TEST_DIMS = {"V": 6, "T": 5, "B": 3, "N": 4}
