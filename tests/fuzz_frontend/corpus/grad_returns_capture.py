# fuzz_frontend: agc.grad of a function that returns a tensor of the enclosing function
# unchanged (lambda v: y, or lambda v: np.sum(y) of a 0-d y) staged a call with one operand too
# few: the capture was made when the result was returned, after the captures were collected
# (exit 2: "call types differ from @<lambda>.grad0.value_and_grad's signature").
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
    y = np.sum(x)
    return agc.grad(lambda v: y)(y)
