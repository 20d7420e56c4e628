"""agc fuzz reproducer 4001-508 (attempt 0) shrunk: rejected (build).

    'recursive result' object is not iterable
"""
import agc
import agc.numpy as np


def p508_rec3(x, k):
    for i1 in range(x.shape[0]):
        pass
    v3 = np.sum(np.zeros((3, 2)), axis=1)
    return v3 @ (x + np.zeros((3, 3), dtype=np.float64))

def p508_tree2(i, left, right, emb):
    if left[i] < 0:
        return np.sin(emb[i]) * 0.5
    a = p508_tree2(left[i], left, right, emb)
    b = p508_tree2(right[i], left, right, emb)
    return np.tanh(p508_rec3(b - a, i // 2 + 1) * 0.5 + a * 0.25 + b * 0.25)

def p508_loss1(x0, x1, emb, left, right):
    v4 = p508_tree2(0, left, right, emb)
    return np.mean(np.square(emb + 0.1 * (np.sum(x0) + np.max(x1))))

@agc.export
def p508_f(x0: agc.f64[2, 2], x1: agc.f64[()], x2: agc.f64[3], emb: agc.f64['N', 3], left: agc.i64['N'], right: agc.i64['N'], n: agc.i32[()]):
    return agc.grad(lambda w: p508_loss1(w, x1, emb, left, right))(x0)


# The inputs of the failing call (input set 0), as tests/harness.py's hook wants them.
AGC_FUZZ_INPUTS = {
    'p508_f': [
        np.array([[1.7418842658468947, 1.290295423808313], [-0.5832516319047093, -0.609747142367324]], dtype=np.float64),
        np.array(-0.19661123920516402, dtype=np.float64),
        np.array([-0.560272824025133, -0.8710413525611272, -1.2100353230623226], dtype=np.float64),
        np.array([[0.9726830517806437, 2.1515437125651973, -0.127998349750185], [0.31430561992246286, -0.8196771846110802, -0.15151029771704447], [-0.694440844269511, 0.09809071012634134, -0.3512501868467426]], dtype=np.float64),
        np.array([1, -1, -1], dtype=np.int64),
        np.array([2, -1, -1], dtype=np.int64),
        np.array(4, dtype=np.int32),
    ],
}


def agc_test_inputs(export_name, rng, dims):
    return AGC_FUZZ_INPUTS.get(export_name)
