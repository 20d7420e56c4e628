"""np.concatenate/stack/vstack/hstack of sequences holding Python lists (numbers and staged
scalars, made float64/int64 arrays as numpy does) and of one array (its rows, also of run-time
length), np.array literals mixing arrays and Python numbers, and dtype= on joins and on
np.array/np.asarray/np.stack of staged lists."""
import agc
import agc.numpy as np


@agc.export
def with_lists(v: agc.f32[4], i: agc.f32[()], k: agc.i32[()], x: agc.f32[3, 2]):
    return (
        np.concatenate((v, [i, 2.0])),
        np.concatenate([v, [k]]),
        np.concatenate((v, [1, 2])),
        np.concatenate([x, [[1, 2]]], axis=0),
        np.stack([v, [1.0, 2.0, 3.0, 4.0]]),
        np.hstack((v, [i])),
        np.vstack([x, [i, k]]),
        np.concatenate((v, v), dtype=np.float64),
        np.stack([i, 2]),
        np.array([i, 2]),
        np.array([k, True]),
        np.array([[i, 1], [2, k]]),
    )


@agc.export
def rows_of_one_array(x: agc.f32["N", 3], y: agc.f32[2, 3, 4], z: agc.f32["N"]):
    return (
        np.vstack(x),
        np.hstack(x),
        np.vstack(y),
        np.hstack(y),
        np.vstack(z),
        np.hstack(z),
        np.concatenate(y),
        np.concatenate(y, axis=1),
        np.concatenate(y, axis=None),
        np.stack(x),
        np.stack(y, axis=2),
        np.stack(x, axis=-1),
        np.concatenate([x, x], axis=None),
    )


@agc.export
def staged_list_dtypes(x: agc.f32["N", 3]):
    counts = []
    rows = []
    for t in range(x.shape[0]):
        counts.append(t)
        rows.append(x[t] * t)
    return (
        np.array(counts, dtype=np.int32),
        np.asarray(counts, dtype=np.float32),
        np.array(counts),
        np.stack(rows, dtype=np.float64),
        np.stack(rows, axis=1),
        np.concatenate(rows),
        np.vstack(rows),
        np.hstack(rows),
        np.stack([x[0], x[1]], dtype=np.float64),
    )


@agc.export
def list_of_static_lists(x: agc.f32["N", 3]):
    table = []
    for i in range(x.shape[0]):
        row = []
        for j in range(3):
            row.append(x[i, j] * (j + 1))
        table.append(row)
    return np.array(table), np.array(table, dtype=np.float64)[::-1]
