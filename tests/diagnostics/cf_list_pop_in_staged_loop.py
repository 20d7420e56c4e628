import agc
import agc.numpy as np


@agc.export
def f(n: agc.i32[()], x: agc.f32[3]):
    pending = [1.0, 2.0, 3.0, 4.0]
    s = x
    i = 0
    while i < n:  # ERROR: removes items from the compile-time list 'pending'.*once per iteration
        s = s + pending.pop()
        i = i + 1
    return s
