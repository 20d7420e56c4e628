import agc
import agc.numpy as np


async def helper(x):  # ERROR: async
    return x * 2


@agc.export
def f(x: agc.f32[3]):
    return x + 1
