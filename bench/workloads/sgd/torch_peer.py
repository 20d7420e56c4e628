"""PyTorch SGD loop: eagerly, autograd's backward() and an in-place update per step in a Python
loop; with torch.compile, the step (torch.func.grad_and_value and the update) is compiled and
the loop stays in Python."""

import torch
import torch.nn.functional as F

from workload import LR


def loss_fn(w, b, x, y):
    return F.cross_entropy(x @ w + b, y)


def setup(case, data, variant):
    xs = torch.from_numpy(data["xs"])
    ys = torch.from_numpy(data["ys"]).long()
    w0, b0 = torch.from_numpy(data["w"]), torch.from_numpy(data["b"])
    steps, nb = int(data["steps"]), xs.shape[0]

    if variant == "eager":
        def train():
            w = w0.clone().requires_grad_()
            b = b0.clone().requires_grad_()
            for s in range(steps):
                k = s % nb
                loss = loss_fn(w, b, xs[k], ys[k])
                loss.backward()
                with torch.no_grad():
                    w -= LR * w.grad
                    b -= LR * b.grad
                w.grad = None
                b.grad = None
            return w.detach(), b.detach(), loss.detach()
    else:
        grad_and_value = torch.func.grad_and_value(loss_fn, argnums=(0, 1))

        @torch.compile
        def step(w, b, x, y):
            (gw, gb), loss = grad_and_value(w, b, x, y)
            return w - LR * gw, b - LR * gb, loss

        def train():
            w, b, loss = w0, b0, None
            for s in range(steps):
                k = s % nb
                w, b, loss = step(w, b, xs[k], ys[k])
            return w, b, loss

    class Impl:
        def result(self):
            return [t.numpy() for t in train()]

        def run(self):
            train()

    return Impl()
