"""More gradient models: training loops, second order, attention, float32."""
import agc
import agc.numpy as np


def mse(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


@agc.export
def train(w: agc.f64[3, 2], x: agc.f64["N", 3], y: agc.f64["N", 2], steps: agc.i64[()]):
    for _ in range(steps):
        w = w - 0.5 * agc.grad(mse)(w, x, y)
    return w, mse(w, x, y)


def f(x):
    return np.sum(np.sin(x) * x)


def gnorm(x):
    g = agc.grad(f)(x)
    return np.sum(g * g)


@agc.export
def second_order(x: agc.f64[4]):
    return agc.grad(gnorm)(x)


def attention(q, k, v, wq):
    qq = q @ wq
    s = qq @ np.transpose(k) / np.sqrt(3.0)
    s = s - np.max(s, axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / np.sum(p, axis=-1, keepdims=True)
    o = p @ v
    return np.sum(o.reshape(-1) ** 2)


@agc.export
def attention_grad(q: agc.f64["L", 3], k: agc.f64["S", 3], v: agc.f64["S", 2], wq: agc.f64[3, 3]):
    return agc.grad(attention, argnums=(0, 1, 2, 3))(q, k, v, wq)


def gru_loss(W, xs):
    h = np.zeros(3)
    t = 0
    while t < xs.shape[0]:
        z = 1.0 / (1.0 + np.exp(-(xs[t] @ W[:2] + h @ W[2:])))
        if np.sum(z) > 1.5:
            h = z * h + (1.0 - z) * np.tanh(xs[t] @ W[:2])
        else:
            h = h - 0.1 * z
        t = t + 1
    return np.sum(h)


@agc.export
def gru_grad(W: agc.f64[5, 3], xs: agc.f64["T", 2]):
    return agc.value_and_grad(gru_loss)(W, xs)


def f32loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


@agc.export
def f32_grad(w: agc.f32[3, 2], x: agc.f32["N", 3]):
    return agc.grad(f32loss)(w, x)
