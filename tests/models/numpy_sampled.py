"""np.geomspace (positive and negative ends, endpoint, num 0/1/2/7, dtype, array ends) and
np.gradient (1-d and 2-d, every axis or one, scalar spacings, coordinate arrays, edge_order 1
and 2, float32 and integer samples, a run-time length)."""
import agc
import agc.numpy as np


@agc.export
def geometric(a: agc.f64[3]):
    return (np.geomspace(1, 1000, 4), np.geomspace(-2.0, -64.0, 6), np.geomspace(2, 3, 7, endpoint=False),
            np.geomspace(5.0, 7.0, 1), np.geomspace(5.0, 7.0, 2), np.geomspace(1, 8, 0),
            np.geomspace(1, 256, 9, dtype=np.float32), np.geomspace(np.abs(a) + 0.5, 10.0, 5))


@agc.export
def gradients_1d(f: agc.f64["N"], x: agc.f64[7], g: agc.f32[7], k: agc.i64[7]):
    coords = np.cumsum(np.abs(x) + 0.25)
    return (np.gradient(f), np.gradient(f, 0.5), np.gradient(g, 2.0), np.gradient(k),
            np.gradient(x, coords), np.gradient(x * x, edge_order=2), np.gradient(g, 0.25, edge_order=2))


@agc.export
def gradients_2d(f: agc.f32[4, 5], h: agc.f64[4, "M"], y: agc.f64[4]):
    dy, dx = np.gradient(f)
    ey, ex = np.gradient(h, 2.0, 0.5)
    cy = np.cumsum(np.abs(y) + 0.1)
    return (dy, dx, np.gradient(f, axis=1), np.gradient(h, axis=0, edge_order=2), ey, ex,
            np.gradient(h, cy, axis=0), np.gradient(h, axis=-1))
