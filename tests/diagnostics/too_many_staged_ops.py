import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[4]):
    # Each compile-time loop stages 60,000 ops, under the limit of a loop; all of them together
    # pass the limit of a function (250,000), in the fifth.
    for i in range(30000):
        x = x * 0.5 + 1.0
    for i in range(30000):
        x = x * 0.5 + 1.0
    for i in range(30000):
        x = x * 0.5 + 1.0
    for i in range(30000):
        x = x * 0.5 + 1.0
    for i in range(30000):
        x = x * 0.5 + 1.0  # ERROR: this function stages over 250000 operations by here, too many to compile
    return x
