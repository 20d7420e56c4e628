"""bool parameters and masks: & | ^ ~, masks multiplied into floats, counts, any-style reductions via sum."""
import agc
import agc.numpy as np


@agc.export
def logic(a: agc.bool_[6], b: agc.bool_[6]):
    return a & b, a | b, a ^ b, ~a


@agc.export
def masked_values(x: agc.f32[3, 4], m: agc.bool_[3, 4]):
    kept = x * m
    count = np.sum(m.astype(np.int32), axis=1)
    return kept, count, np.where(m, x, -x)


@agc.export
def mask_from_compare(x: agc.f32[8]):
    pos = x > 0
    big = np.abs(x) > 1.0
    both = pos & ~big
    return both, x * both.astype(np.float32), np.sum(both)
