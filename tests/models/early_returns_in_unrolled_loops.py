"""Early returns inside unrolled loops (fuzz seed 1702, program 343): every staged `return`
inside `for i3 in range(4)` / `for i6 in range(4)` nests the rest of the function in an `if`,
and the `if`s yield each other's results. The backend's check of which result slots may share a
buffer (`result_alias`) walked those nested `if`s once per path, exponentially many: the build
did not finish in 5 minutes. Memoised, it takes under a second."""
import agc
import numpy as np


@agc.export
def early_returns(x0: agc.f32[4, 3], n: agc.i32[()]):
    j1 = 0
    while j1 < n // 2 + 1:
        j1 = j1 + 1
        v2 = (((x0) * 4.0).astype(np.int32) % 3).astype(np.float32)
    for i3 in range(x0.shape[0]):
        acc4 = np.ones((), dtype=np.float32)
        acc4 *= np.maximum(np.sqrt(np.abs(acc4) + 1.0), 0.0)
        buf5 = np.zeros((4, 3), dtype=np.float32)
        for i6 in range(4):
            if np.min(x0) < -1.25:
                return x0.T, np.mean(np.where(((acc4 + np.zeros((3, 3), dtype=np.float32)) < np.sum(x0)), np.expand_dims(x0, 2), (acc4 + np.zeros((4, 3, 3), dtype=np.float32))), axis=-2)
            buf5[i6] = ((((x0[2]) * 4.0).astype(np.int32) % 2).astype(np.float32) if np.min(x0) > 1.5 else np.square(np.sum(buf5, axis=0)))
        if i3 % 2 == 1:
            if np.mean(buf5) < 1.5:
                return buf5.T, (x0 / (np.abs(np.sqrt(np.abs(x0) + 1.0)) + 1.5))
            continue
    v7 = np.cumsum(x0, axis=0)
    if n > 2:
        return (x0.T - v7.T), ((v7 * j1) * np.maximum(v7, 0.0))
    for i8 in range(4):
        v7 = np.tanh(v7 * 1.0 + (v7 / (abs(0.9) + 0.25)))
        x0 = x0 * 0.75 + ((((v7 + np.zeros((3, 4, 3), dtype=np.float32))[-3]) * 4.0).astype(np.int64) // 2).astype(np.float32)
    v9 = (x0 - 0.9)
    return v9.T + 0.25 * (j1 + np.mean(x0) + np.max(v7)), np.sin(v7) + 0.5 * (v9 + j1)
