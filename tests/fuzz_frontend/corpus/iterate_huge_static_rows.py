# fuzz_frontend: a for loop over the rows of an array with a huge static first dim (2**31, from
# a mutated annotation) unrolled into one slice per row until the compiler ran out of memory and
# aborted; also unpacking (a, b = x) and list(x). Now an error naming agc's limit.
import agc
import agc.numpy as np


@agc.export
def sum_rows(x: agc.f32[2 ** 31, 3]):
    acc = np.ones(3, dtype=np.float32)
    for row in x:
        acc = acc + row
    return acc
