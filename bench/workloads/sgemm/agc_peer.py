"""agc's sgemm: the static-shape export of the size, called with prepared tensors; the result is released."""

from agc_call import Raw


def setup(case, data, lib):
    return Impl(lib, case, data)


class Impl:
    def __init__(self, lib, case, data):
        self.raw = Raw(lib, f"mm{case['n']}")
        self.args = self.raw.prepare([data["a"], data["b"]])
        self.calls_per_run = 1

    def result(self):
        outs = self.raw.call(self.args)
        try:
            return self.raw.numpy(outs)
        finally:
            self.raw.release(outs)

    def run(self):
        self.raw.release(self.raw.call(self.args))
