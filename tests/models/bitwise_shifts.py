"""Bitwise ufuncs on integer and bool tensors: `<<`, `>>` (numpy's rules for shifts outside
[0, bits): 0, or -1 for a negative value shifted right), `np.left_shift`/`right_shift` and their
`bitwise_` aliases, `np.bitwise_and`/`or`/`xor`, `np.invert`/`bitwise_not` on ints and bools."""
import agc
import agc.numpy as np


@agc.export
def shifts32(a: agc.i32["N"], s: agc.i32["N"]):
    return a << s, a >> s, np.left_shift(a, 3), np.right_shift(a, 2), a << 1, 1 << (s & 7)


@agc.export
def shifts64(a: agc.i64["N"], s: agc.i64["N"]):
    return np.bitwise_left_shift(a, s), np.bitwise_right_shift(a, s), (a >> 1) << 1


@agc.export
def bitwise(a: agc.i32["N"], b: agc.i32["N"], m: agc.bool_["N"], k: agc.bool_["N"]):
    return (np.bitwise_and(a, b), np.bitwise_or(a, 6), np.bitwise_xor(a, b), np.invert(a),
            np.bitwise_not(m), np.bitwise_and(m, k), np.bitwise_xor(m, True), ~a, m << 2)


def agc_test_inputs(export_name, rng, dims):
    n = dims["N"]
    if export_name == "bitwise":
        return [rng.integers(-100, 100, n).astype(np.int32), rng.integers(-100, 100, n).astype(np.int32),
                rng.random(n) < 0.5, rng.random(n) < 0.5]
    dt, bits = (np.int32, 32) if export_name == "shifts32" else (np.int64, 64)
    a = rng.integers(-1000, 1000, n).astype(dt)
    s = rng.integers(-3, bits + 3, n).astype(dt)  # some shifts outside [0, bits)
    return [a, s]
