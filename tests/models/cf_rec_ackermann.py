"""Ackermann's function for small arguments: a recursive call's result is another call's argument."""
import agc
import agc.numpy as np


def ack(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, n - 1))


@agc.export(name="ack_1_2")
@agc.export(name="ack_2_3")
@agc.export(name="ack_0_5")
def ackermann(m: agc.i64[()], n: agc.i64[()]):
    return ack(m, n)


def agc_test_inputs(export_name, rng, dims):
    _, m, n = export_name.split("_")
    return [np.int64(m), np.int64(n)]
