"""PyTorch: x + y on 4 floats, eagerly or as a torch.compile'd function."""

import torch


def setup(case, data, variant):
    x, y = torch.from_numpy(data["x"]), torch.from_numpy(data["y"])
    add = (lambda a, b: a + b)
    if variant == "compile":
        add = torch.compile(add)

    class Impl:
        def result(self):
            return [add(x, y).numpy()]

        def run(self):
            add(x, y)

    return Impl()
