import agc
import agc.numpy as np

WEIGHTS = [0.5, 1.0, 2.0]


@agc.export
def f(x: agc.f32["N", 3]):
    ws = iter(WEIGHTS)
    acc = np.zeros(3, np.float32)
    for row in x:  # a staged loop: how many weights it takes is only known at run time
        acc = acc + row * next(ws)  # ERROR: next\(\) of an iterator made outside this staged
    return acc
