"""agc's LSTM: one call of lstm_forward with prepared tensors; both results released."""

from agc_call import Raw


def setup(case, data, lib):
    raw = Raw(lib, "lstm_forward")
    args = raw.prepare([data["xs"], data["w"], data["u"], data["b"]])

    class Impl:
        calls_per_run = 1

        def result(self):
            outs = raw.call(args)
            try:
                return raw.numpy(outs)
            finally:
                raw.release(outs)

        def run(self):
            raw.release(raw.call(args))

    return Impl()
