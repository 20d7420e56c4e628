"""Lists of lists appended in staged loops, then made arrays: inner lists of a compile-time
length (Python lists of staged scalars), inner lists built by an inner staged loop of a run-time
length (stacked rows, or the staged inner list itself), in `for` and `while` loops and under a

@agc.export
def shape_tuple_ops(x: agc.f32["B", 6]):
    b, f = x.shape
    return np.reshape(x, (b, f // 2, 2)).sum(axis=-1)

staged `if`; rows of different lengths are numpy's ValueError (an error status)."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # one export's inputs make numpy raise: the library must return an error status


@agc.export
def static_rows(x: agc.f32["N", 3]):
    table = []
    for i in range(x.shape[0]):
        row = []
        for j in range(3):
            row.append(x[i, j] * (j + 1))
        table.append(row)
    return np.array(table)


@agc.export
def runtime_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    stacked = []
    lists = []
    for i in range(x.shape[0]):
        row = []
        for j in range(m):
            row.append(x[i, j % 3] * j)
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        stacked.append(np.stack(row))
        lists.append(row)
    return np.stack(stacked), np.array(lists, dtype=np.float64)


@agc.export
def pairwise(x: agc.f32["N", 3]):
    rows = []
    for i in range(x.shape[0]):
        row = []
        for j in range(x.shape[0]):
            row.append(np.sum(x[i] * x[j]))
        rows.append(row)
    return np.array(rows)


@agc.export
def while_rows(x: agc.f32["N", 3], m: agc.i64[()]):
    rows = []
    i = 0
    while i < x.shape[0]:
        row = []
        j = 0
        while j < m:
            row.append(x[i] * j)
            j += 1
        rows.append(np.stack(row, axis=1))
        i += 1
    return np.stack(rows)


@agc.export
def rows_under_if(x: agc.f32["N", 3], m: agc.i64[()]):
    rows = []
    for i in range(x.shape[0]):
        if np.sum(x[i]) > 0:
            rows.append(np.zeros(m) + i)
    return np.sum(np.array(rows)), len(rows)


@agc.export
def ragged(x: agc.f32["N", 3]):
    rows = []
    for i in range(x.shape[0]):
        row = []
        for j in range(i + 1):
            row.append(x[i, j % 3])
        rows.append(row)
    return np.array(rows)


def agc_test_inputs(name, rng, dims):
    if name in ("runtime_rows", "while_rows", "rows_under_if"):
        return [rng.standard_normal((dims["N"], 3)).astype(np.float32), np.int64(4)]
    return None
