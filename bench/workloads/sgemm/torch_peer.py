"""PyTorch sgemm: `a @ b` eagerly, or through torch.compile."""

import torch


def setup(case, data, variant):
    a = torch.from_numpy(data["a"])
    b = torch.from_numpy(data["b"])
    mm = (lambda x, y: x @ y)
    if variant == "compile":
        mm = torch.compile(mm)

    class Impl:
        def result(self):
            with torch.no_grad():
                return [mm(a, b).numpy()]

        def run(self):
            with torch.no_grad():
                mm(a, b)

    return Impl()
