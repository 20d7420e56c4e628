import agc
import agc.numpy as np

MODE = "relu"


@agc.export
def f(x: agc.f32[3]):
    match MODE:  # ERROR: match
        case "relu":
            return np.maximum(x, 0)
        case _:
            return x
