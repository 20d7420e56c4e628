"""numpy scalar constructors np.float32(...)/np.float64/np.int32/np.int64 mixed with tensors (not weak)."""
import agc
import agc.numpy as np

GAIN = np.float32(1.5)


@agc.export
def typed_scalars(x: agc.f32[4], n: agc.i32[4]):
    return (x * np.float32(2.5) + GAIN, x * np.float64(0.5), n + np.int32(3),
            n * np.int64(2), n + np.float32(0.25))


@agc.export
def scalar_from_python(x: agc.f32[3]):
    eps = np.float32(1e-5)
    two = np.float32(1) + np.float32(1)
    return x / (two + eps)
