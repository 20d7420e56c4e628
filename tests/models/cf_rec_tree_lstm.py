"""A binary TreeLSTM cell applied recursively over a parse tree given as index arrays (small sizes)."""
import agc
import agc.numpy as np

H = 4
E = 3


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def node_state(left, right, word, emb, wx, uh, b, node):
    if left[node] < 0:
        z = emb[word[node]] @ wx + b[0]
        i = sigmoid(z[0:H])
        o = sigmoid(z[H:2 * H])
        u = np.tanh(z[2 * H:3 * H])
        c = i * u
        return o * np.tanh(c), c
    hl, cl = node_state(left, right, word, emb, wx, uh, b, left[node])
    hr, cr = node_state(left, right, word, emb, wx, uh, b, right[node])
    z = np.concatenate([hl, hr]) @ uh + b[1]
    i = sigmoid(z[0:H])
    fl = sigmoid(z[H:2 * H])
    fr = sigmoid(z[2 * H:3 * H])
    o = sigmoid(z[3 * H:4 * H])
    u = np.tanh(z[4 * H:5 * H])
    c = i * u + fl * cl + fr * cr
    return o * np.tanh(c), c


@agc.export
def tree_lstm(left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"], emb: agc.f32["V", 3],
              wx: agc.f32[3, 20], uh: agc.f32[8, 20], b: agc.f32[2, 20]):
    h, c = node_state(left, right, word, emb, wx, uh, b, 0)
    return h, c


def agc_test_inputs(export_name, rng, dims):
    leaves = dims["N"] + 1
    n = 2 * leaves - 1
    left = -np.ones(n, dtype=np.int64)
    right = -np.ones(n, dtype=np.int64)
    frontier, nxt = [0], 1
    while nxt < n:
        node = frontier.pop(rng.integers(len(frontier)))
        left[node], right[node] = nxt, nxt + 1
        frontier += [nxt, nxt + 1]
        nxt += 2
    v = dims["V"]
    word = np.where(left < 0, rng.integers(0, v, size=n), -1).astype(np.int64)
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)  # noqa: E731
    return [left, right, word, f(v, E), f(E, 5 * H), f(2 * H, 5 * H), f(2, 5 * H)]


AGC_TEST_DIMS = {"N": 6, "V": 7}
