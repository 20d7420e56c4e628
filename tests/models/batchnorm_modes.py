"""Batch norm with `training` as a compile-time specialisation: batch statistics vs running statistics."""
import agc
import agc.numpy as np


@agc.export(name="batchnorm_train", training=True)
@agc.export(name="batchnorm_eval", training=False)
def batchnorm(x: agc.f32["B", 8], gamma: agc.f32[8], beta: agc.f32[8],
              running_mean: agc.f32[8], running_var: agc.f32[8], training=False):
    eps = 1e-5
    if training:
        mean = np.mean(x, axis=0)
        var = np.mean((x - mean) ** 2, axis=0)
    else:
        mean, var = running_mean, running_var
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def agc_test_inputs(export_name, rng, dims):
    b = dims["B"]
    return [rng.standard_normal((b, 8)).astype(np.float32), rng.standard_normal(8).astype(np.float32),
            rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32),
            rng.uniform(0.5, 2.0, size=8).astype(np.float32)]


AGC_TEST_DIMS = {"B": 6}
