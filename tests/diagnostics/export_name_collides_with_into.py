import agc
import agc.numpy as np


@agc.export
def scale(x: agc.f32[3]):
    return x * 2


@agc.export  # ERROR: collides with the '_into' C function agc generates for export 'scale'
def scale_into(x: agc.f32[3]):
    return x * 3
