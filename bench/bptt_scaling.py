#!/usr/bin/env python3
"""Times the BPTT gradient of an LSTM over T steps: is agc's time per step the same at every T?

Usage: python3 bench/bptt_scaling.py [--steps 64,256,1024,4096] [--batch 8] [--hidden 64] [--agc-bin PATH]

The model (one LSTM layer over xs[T, B, I], the loss the sum of h·h over all steps,
the gradient with respect to the weights and to xs) is compiled once with `agc`, T a
run-time size; its exported `value_and_grad` is timed at each T next to the same
loop run by PyTorch eager (`loss.backward()`) when it is installed, whose gradients
agc's are checked against (largest difference at most 1e-3 of the largest entry).
Prints microseconds per step and, for agc, the spread of the per-step time across
the sizes (largest ÷ smallest; a gradient whose cost is linear in T has it near 1).
Nothing is asserted about time.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

from timing import best_time  # bench/ is the script's directory

import numpy as onp

REPO = Path(__file__).resolve().parents[1]

MODEL = '''
import agc
import agc.numpy as np

I, H = {I}, {H}


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def loss(w, u, b, xs):
    h = np.zeros((xs.shape[1], H), dtype=np.float32)
    c = np.zeros((xs.shape[1], H), dtype=np.float32)
    total = np.float32(0.0)
    for t in range(xs.shape[0]):
        g = xs[t] @ w + h @ u + b
        i = sigmoid(g[:, :H])
        f = sigmoid(g[:, H:2 * H])
        cand = np.tanh(g[:, 2 * H:3 * H])
        o = sigmoid(g[:, 3 * H:])
        c = f * c + i * cand
        h = o * np.tanh(c)
        total = total + np.sum(h * h)
    return total


@agc.export
def bptt(w: agc.f32[I, 4 * H], u: agc.f32[H, 4 * H], b: agc.f32[4 * H], xs: agc.f32["T", "B", I]):
    return agc.value_and_grad(loss, argnums=(0, 1, 2, 3))(w, u, b, xs)
'''


def torch_grad(args, hidden):
    import torch

    w, u, b, xs = (torch.tensor(a, requires_grad=True) for a in args)

    def run():
        for t in (w, u, b, xs):
            t.grad = None
        h = torch.zeros(xs.shape[1], hidden)
        c = torch.zeros(xs.shape[1], hidden)
        total = torch.zeros(())
        for t in range(xs.shape[0]):
            g = xs[t] @ w + h @ u + b
            i, f, cand, o = g.split(hidden, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(cand)
            h = torch.sigmoid(o) * torch.tanh(c)
            total = total + torch.sum(h * h)
        total.backward()
        return [t.grad.numpy() for t in (w, u, b, xs)]

    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="64,256,1024,4096")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--inputs", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--agc-bin", default=None)
    opts = ap.parse_args()
    if opts.agc_bin:
        os.environ["AGC_BIN"] = opts.agc_bin
    sys.path.insert(0, str(REPO / "python"))
    import agc

    n_in, h = opts.inputs, opts.hidden
    tmp = Path(tempfile.mkdtemp(prefix="agc-bench-bptt-"))
    (tmp / "bptt.py").write_text(MODEL.replace("{I}", str(n_in)).replace("{H}", str(h)))
    agc.build(str(tmp / "bptt.py"), str(tmp / "out"))
    lib = agc.load(str(tmp / "out" / "libbptt.so"))
    try:
        import torch

        torch.set_num_threads(1)
        have_torch = True
    except ImportError:
        have_torch = False
        print("(PyTorch is not installed: pip install torch adds its column)")
    rng = onp.random.default_rng(0)
    weights = [
        (0.3 * rng.standard_normal((n_in, 4 * h))).astype(onp.float32),
        (0.3 * rng.standard_normal((h, 4 * h))).astype(onp.float32),
        (0.1 * rng.standard_normal(4 * h)).astype(onp.float32),
    ]
    print(f"LSTM BPTT gradient, batch {opts.batch}, inputs {n_in}, hidden {h}, float32; "
          "microseconds per step (best of 5 batches)")
    print(f"{'T':>6} {'agc':>10}" + (f" {'torch':>10} {'torch/agc':>10}" if have_torch else ""))
    per_step = []
    for steps in [int(s) for s in opts.steps.split(",")]:
        args = [*weights, rng.standard_normal((steps, opts.batch, n_in)).astype(onp.float32)]
        ours = lambda: lib.bptt(*args)
        t_agc = best_time(ours) / steps
        per_step.append(t_agc)
        line = f"{steps:>6} {t_agc * 1e6:10.2f}"
        if have_torch:
            theirs = torch_grad(args, h)
            for g, r in zip(ours()[1:], theirs()):
                err = onp.max(onp.abs(g - r)) / max(onp.max(onp.abs(r)), 1e-30)
                assert err < 1e-3, f"T={steps}: agc's gradient differs from torch's by {err:.2e}"
            t = best_time(theirs) / steps
            line += f" {t * 1e6:10.2f} {t / t_agc:10.2f}"
        print(line, flush=True)
    print(f"agc time per step, largest / smallest across T: {max(per_step) / min(per_step):.2f}")


if __name__ == "__main__":
    main()
