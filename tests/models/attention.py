"""Single- and multi-head scaled dot-product attention (q/k/v projections, softmax over scores), conv-free."""
import agc
import agc.numpy as np

D_MODEL, HEADS = 16, 2
D_HEAD = D_MODEL // HEADS


def softmax(z):
    e = np.exp(z - np.max(z, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def attend(q, k, v):
    scores = q @ np.transpose(k) / np.sqrt(np.float32(q.shape[-1]))
    return softmax(scores) @ v


@agc.export
def self_attention(x: agc.f32["T", D_MODEL], wq: agc.f32[D_MODEL, D_MODEL],
                   wk: agc.f32[D_MODEL, D_MODEL], wv: agc.f32[D_MODEL, D_MODEL]):
    return attend(x @ wq, x @ wk, x @ wv)


@agc.export
def multi_head(x: agc.f32["T", D_MODEL], wq: agc.f32[D_MODEL, D_MODEL], wk: agc.f32[D_MODEL, D_MODEL],
               wv: agc.f32[D_MODEL, D_MODEL], wo: agc.f32[D_MODEL, D_MODEL]):
    q, k, v = x @ wq, x @ wk, x @ wv
    heads = []
    for h in range(HEADS):
        lo, hi = h * D_HEAD, (h + 1) * D_HEAD
        heads.append(attend(q[:, lo:hi], k[:, lo:hi], v[:, lo:hi]))
    return np.concatenate(heads, axis=-1) @ wo


@agc.export
def causal_attention(q: agc.f32[6, D_HEAD], k: agc.f32[6, D_HEAD], v: agc.f32[6, D_HEAD]):
    scores = q @ k.T / np.sqrt(np.float32(D_HEAD))
    t = np.arange(6)
    mask = t[:, None] >= t[None, :]
    scores = np.where(mask, scores, -1e9)
    return softmax(scores) @ v


def agc_test_inputs(export_name, rng, dims):
    def w(*shape):
        return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
    if export_name == "causal_attention":
        return [w(6, D_HEAD), w(6, D_HEAD), w(6, D_HEAD)]
    x = rng.standard_normal((dims["T"], D_MODEL)).astype(np.float32)
    n = 4 if export_name == "multi_head" else 3
    return [x] + [w(D_MODEL, D_MODEL) for _ in range(n)]
