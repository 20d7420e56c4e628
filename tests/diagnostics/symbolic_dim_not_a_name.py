import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["B */\n#define INJECTED 42\n/*"]):  # ERROR: symbolic dim must be a name.*'B \*/\\n#define
    return x + 1.0
