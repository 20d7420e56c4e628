"""TreeLSTM training step: a recursive function over the tree's index arrays, differentiated
with agc.value_and_grad, and the SGD update; the updated weights are the results."""
import agc
import agc.numpy as np

E, H, C, LR = 300, 150, 5, 0.05


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def node_state(wx, bx, u, bu, emb, left, right, word, node):
    if left[node] < 0:
        z = emb[word[node]] @ wx + bx
        i = sigmoid(z[0:H])
        o = sigmoid(z[H:2 * H])
        g = np.tanh(z[2 * H:3 * H])
        c = i * g
        return o * np.tanh(c), c
    hl, cl = node_state(wx, bx, u, bu, emb, left, right, word, left[node])
    hr, cr = node_state(wx, bx, u, bu, emb, left, right, word, right[node])
    z = np.concatenate([hl, hr]) @ u + bu
    i = sigmoid(z[0:H])
    fl = sigmoid(z[H:2 * H])
    fr = sigmoid(z[2 * H:3 * H])
    o = sigmoid(z[3 * H:4 * H])
    g = np.tanh(z[4 * H:5 * H])
    c = i * g + fl * cl + fr * cr
    return o * np.tanh(c), c


def loss_fn(wx, bx, u, bu, ws, bs, emb, left, right, word, label):
    h, _ = node_state(wx, bx, u, bu, emb, left, right, word, 0)
    z = h @ ws + bs
    s = z - np.max(z)
    logp = s - np.log(np.sum(np.exp(s)))
    onehot = (np.arange(C) == label).astype(np.float32)
    return -np.sum(onehot * logp)


@agc.export
def train_step(wx: agc.f32[E, 3 * H], bx: agc.f32[3 * H], u: agc.f32[2 * H, 5 * H], bu: agc.f32[5 * H],
               ws: agc.f32[H, C], bs: agc.f32[C], emb: agc.f32["V", E],
               left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"], label: agc.i64[()]):
    loss, (gwx, gbx, gu, gbu, gws, gbs) = agc.value_and_grad(loss_fn, argnums=(0, 1, 2, 3, 4, 5))(
        wx, bx, u, bu, ws, bs, emb, left, right, word, label)
    return (loss, wx - LR * gwx, bx - LR * gbx, u - LR * gu, bu - LR * gbu,
            ws - LR * gws, bs - LR * gbs)
