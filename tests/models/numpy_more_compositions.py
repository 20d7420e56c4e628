"""More of numpy staged as compositions: ufunc methods (add/multiply/maximum/minimum/logical_*
.reduce with their default axis 0, add/multiply/maximum/minimum.accumulate, .outer), reductions with where= and
initial= (mean over the mask's count), itemsize/nbytes, fliplr, flipud, rot90, append, hsplit,
vsplit, dsplit, logspace, meshgrid, tri, copysign, signbit and rint. Against numpy at run-time
sizes."""
import agc
import numpy as np


@agc.export
def ufunc_methods(x: agc.f32["N", "M"], k: agc.i64["M"]):
    return (np.add.reduce(x), np.add.reduce(x, axis=1), np.multiply.reduce(x, axis=None), np.maximum.reduce(x, axis=1),
            np.minimum.reduce(k), np.logical_and.reduce(x > 0, axis=0), np.logical_or.reduce(x > 1),
            np.add.accumulate(x, axis=1), np.multiply.accumulate(k), np.multiply.outer(x[0], k),
            np.subtract.outer(k, k), np.greater.outer(x[:, 0], x[0]), np.maximum.accumulate(x),
            np.minimum.accumulate(x, axis=-1), np.maximum.accumulate(k), np.minimum.accumulate(k * -3),
            np.maximum.accumulate(x > 0.5, axis=1))


@agc.export
def masked(x: agc.f32["N", "M"], k: agc.i32["N", "M"]):
    m = x > 0
    return (np.sum(x, where=m), np.sum(x, axis=0, where=m, initial=1.5), np.max(x, axis=1, where=m, initial=-5.0),
            np.min(x, initial=0.25), np.prod(x, axis=1, where=x > 0.5), np.mean(x, axis=0, where=m),
            np.mean(k, where=k > 0), x.sum(axis=1, where=m), x.max(initial=10.0), np.any(x > 1, where=m),
            np.all(x > 0, axis=1, where=m), np.amax(k, axis=0, initial=3), np.nansum(x, where=m))


@agc.export
def sizes(x: agc.f32["N", "M"], v: agc.f64[3]):
    return x.itemsize * x.nbytes + v.nbytes


@agc.export
def rearranged(x: agc.f32["N", "M"], c: agc.f32[2, 3, 4]):
    return (np.fliplr(x), np.flipud(x), np.rot90(x), np.rot90(x, 2), np.rot90(x, -1), np.rot90(c, 1, axes=(1, 2)),
            np.append(x, x, axis=0), np.append(x[0], 1.0), np.append(x, [[1.0] * 1] * 1) * 0 + 1,
            np.hsplit(c, 3)[1], np.vsplit(c, 2)[0], np.dsplit(c, [1, 3])[2], np.hsplit(x[0], [1])[1])


@agc.export
def grids(x: agc.f32["N", "M"], a: agc.f64["K"]):
    gx, gy = np.meshgrid(x[0], a)
    ix, iy = np.meshgrid(x[0], a, indexing="ij")
    sx, sy = np.meshgrid(x[0], a, sparse=True)
    return (gx, gy, ix, iy, sx, sy, np.logspace(0.0, 2.0, 5), np.logspace(1, 3, 4, base=2.0, endpoint=False),
            np.tri(3), np.tri(3, 5, k=1, dtype=np.int32), np.tri(4, 2, -1), np.tri(2, 3, k=1) @ np.ones((3, 2)),
            np.tri(x.shape[0], k=1) @ x)


@agc.export
def signs(x: agc.f32["N", "M"], y: agc.f64["N", "M"]):
    z = np.where(x > 1.0, -0.0, x)
    return np.copysign(x, y), np.copysign(3.0, z), np.signbit(z), np.signbit(y.astype(np.int64)), np.rint(x * 3.0), np.rint(np.arange(5) - 2)
