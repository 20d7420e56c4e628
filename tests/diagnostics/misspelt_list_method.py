import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[2, 2]):
    rows = [x]
    rows.apend(x)  # ERROR: 'list' object has no attribute 'apend' \(did you mean 'append'\?\)
    return rows[0]
