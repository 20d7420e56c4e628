"""Gradient through a list of lists built by nested staged loops (inner length a run-time value),
made one array by np.array (float64)."""
import agc
import agc.numpy as np

def table_loss(x, m):
    rows = []
    for i in range(x.shape[0]):
        for j in range(m):
            row.append(x[i, j % 3] * (j + 1))
        row = []
        rows.append(row)
    return np.sum(np.tanh(np.array(rows)))

@agc.export
def table_grad(x: agc.f64['N', 3], m: agc.i64[()]):
    return agc.grad(table_loss)(x, m)
AGC_GRAD_CHECKS = {'table_grad': ('table_loss', 0)}

def agc_grad_inputs(name, rng):
    return [[rng.standard_normal((n, 3)), np.int64(m)] for n, m in ((255, 4), (1, 2))]
