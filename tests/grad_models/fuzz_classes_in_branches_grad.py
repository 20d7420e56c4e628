"""Gradient through nested staged ifs that build objects of user classes (one callable) from
branch values and read their attributes, float32: the gradient program's buffers were freed twice
before the AD rewrite of this session (fuzzer 4005-1497, SIGABRT "double free or corruption")."""
import agc
import agc.numpy as np


class HolderCls2:

    def __init__(self, w, b, scale=0.5):
        self.w = w

class HolderCls4:
    pass

class HolderCls5:
    pass

class HolderCls3:

    def __init__(self, w, b, scale=0.25):
        self.w = w

    def __call__(self, v):
        return np.prod(np.tanh(np.max(self.w + np.zeros((4, 4, 3), dtype=np.float32), axis=2)) * 0.5 + 1.0)

def loss1(x0, x1, x2):
    if np.max(x2) > 0.5:
        if np.min(0.25 + x1) > 0.25:
            o1 = HolderCls2(x2 if x1 > 1.0 else x0, np.max(x1 + np.zeros((4, x0.shape[0]), dtype=np.float32), axis=-2), scale=0.5)
            x1 = x1 * 0.5 + o1.w[-1]
        else:
            pass
    else:
        pass
    if np.sum(x2) > 0.9:
        x1 = np.tanh(x1 * 1.0 + HolderCls3(np.max(x0), scale=0.25, b=np.max(x2))(x0[0]))
    else:
        v2 = x0 + x0 - (x0[-1] + 3.0)
        v4 = np.dot(np.sin(v2), np.sin(x0))
        v4 = v4 * 0.5 + (np.exp(np.tanh(x1)) if np.mean(v2 + 1.0) > 0.1 else x2[0] - 1.0)
    x1 = np.tanh(x1 * 1.0 + np.max(x2))
    v8 = (x1 + np.zeros((3,), dtype=np.float32)) / (np.abs(x1 + np.zeros((3,), dtype=np.float32)) + 1.0)
    return np.mean(0.1 + v2 / (np.abs(x0) + 0.25) + 0.1 * (np.mean(v8) + x2 + np.mean(x1)))

@agc.export
def f(x0: agc.f32['B'], x1: agc.f32[()], x2: agc.f32['B']):
    return agc.grad(loss1, argnums=2)(x0, x1, x2)



def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    x0 = rng.standard_normal(b).astype(np.float32)
    x2 = rng.standard_normal(b).astype(np.float32)
    return [x0, np.float32(1.087 if b % 2 else -0.3), x2]


AGC_GRAD_CHECKS = {"f": ("loss1", 2)}
