"""agc's TreeLSTM training: one train_step call per tree. The weights a call returns are passed
as the next call's arguments as they are (library-owned DLTensors, no copy), as a C caller would."""

from agc_call import Raw
from workload import PARAMS


def setup(case, data, lib):
    return Impl(lib, data)


class Impl:
    def __init__(self, lib, data):
        self.raw = Raw(lib, "train_step")
        self.initial = self.raw.prepare([data["params"][k] for k in PARAMS])
        self.trees = [self.raw.prepare([*self.initial, data["emb"], t["left"], t["right"], t["word"], t["label"]])
                      for t in data["trees"]]
        self.params = list(self.initial)
        self.owned = False  # whether self.params are results to release
        self.calls_per_run = len(self.trees)

    def step(self, tree, keep_loss=False):
        outs = self.raw.call([*self.params, *tree[len(PARAMS):]])
        loss = self.raw.numpy(outs[:1])[0] if keep_loss else None
        self.raw.release(outs[:1])
        if self.owned:
            self.raw.release(self.params)
        self.params, self.owned = outs[1:], True
        return loss

    def result(self):
        if self.owned:
            self.raw.release(self.params)
        self.params, self.owned = list(self.initial), False
        losses = [self.step(t, keep_loss=True) for t in self.trees]
        import numpy as np

        return [np.array(losses, np.float32), *self.raw.numpy(self.params)]

    def run(self):
        for t in self.trees:
            self.step(t)
