"""F24, a seed-27 mutant: `@agc.export(name='')`. The empty name passed the front end's check of
export names and failed in the back end, whose error has no location."""
import agc
import agc.numpy as np


@agc.export(name='')
def f(x: agc.f32[3]):
    return np.sum(x)
