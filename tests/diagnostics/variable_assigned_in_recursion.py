import agc
import agc.numpy as np

W = agc.Variable(np.zeros(3, np.float32))


def walk(x, n):
    if n <= 0:
        return x
    W.assign(x)  # ERROR: staged recursive function
    return walk(x * 2.0, n - 1)


@agc.export
def f(x: agc.f32[3], n: agc.i64[()]):
    return walk(x, n)
