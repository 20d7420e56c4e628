#!/usr/bin/env python3
"""Times the gradient of a recursive tree network: agc against autograd (and PyTorch eager).

Usage: python3 bench/recursion_grad.py [--hidden 32] [--leaves 64,512,4096] [--agc-bin PATH]

The model (a recursive neural network over a binary tree given as index
arrays: a leaf is tanh of its vector, an inner node tanh([h_left; h_right] @ W + b),
the loss the sum of squares of the root) is compiled once with `agc`; its
exported `value_and_grad` is timed on a balanced tree and on a left chain
(depth = number of leaves) of each size, next to the same recursion run
eagerly by autograd and, when it is installed, PyTorch (`loss.backward()`).
Each reference also gives gradients agc's are checked against (largest\ndifference at most 1e-3 of the largest entry).
Prints microseconds per call, agc's microseconds per node, the ratios (above 1: agc
is faster) and, per tree shape, the spread of agc's time per node across the sizes
(largest ÷ smallest; a gradient whose cost is linear in the work has it near 1).
`--agc-bin` builds with another compiler binary (to compare versions).
Every system runs on one thread (the thread variables of `timing.THREAD_VARS`, unless set).
Nothing is asserted about time: it varies with the machine and its load.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

from timing import THREAD_VARS, best_time  # bench/ is the script's directory

# One thread for every system (the conditions), set before numpy starts
# its BLAS threads: an idle BLAS thread spinning on the second core slowed the
# others' timings.
for _var in THREAD_VARS:
    os.environ.setdefault(_var, "1")

import numpy as onp  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

MODEL = '''
import agc
import agc.numpy as np


def encode(W, b, leaves, left, right, node):
    if left[node] < 0:
        return np.tanh(leaves[node])
    hl = encode(W, b, leaves, left, right, left[node])
    hr = encode(W, b, leaves, left, right, right[node])
    return np.tanh(np.concatenate([hl, hr]) @ W + b)


def loss(W, b, leaves, left, right):
    return np.sum(encode(W, b, leaves, left, right, 0) ** 2)


@agc.export
def tree_grad(W: agc.f32[2 * {H}, {H}], b: agc.f32[{H}], leaves: agc.f32["N", {H}], left: agc.i64["N"], right: agc.i64["N"]):
    return agc.value_and_grad(loss, argnums=(0, 1, 2))(W, b, leaves, left, right)
'''


def balanced(n_leaves):
    """Index arrays of a balanced binary tree with `n_leaves` leaves, root 0."""
    left, right = [], []

    def node(lo, hi):
        i = len(left)
        left.append(-1)
        right.append(-1)
        if hi - lo > 1:
            mid = (lo + hi) // 2
            left[i] = node(lo, mid)
            right[i] = node(mid, hi)
        return i

    node(0, n_leaves)
    return onp.array(left, onp.int64), onp.array(right, onp.int64)


def chain(n_leaves):
    """A left chain: every inner node has an inner left child and a leaf right child."""
    n = 2 * n_leaves - 1
    left = onp.full(n, -1, onp.int64)
    right = onp.full(n, -1, onp.int64)
    for k in range(n_leaves - 1):
        inner, nxt, leaf = 2 * k, 2 * k + 2, 2 * k + 1
        left[inner] = nxt if k < n_leaves - 2 else n - 1
        right[inner] = leaf
    return left, right


def torch_grad(args):
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    W, b, leaves = (torch.tensor(a, requires_grad=True) for a in args[:3])
    left, right = args[3].tolist(), args[4].tolist()

    def encode(node):
        if left[node] < 0:
            return torch.tanh(leaves[node])
        h = torch.cat([encode(left[node]), encode(right[node])])
        return torch.tanh(h @ W + b)

    def run():
        for t in (W, b, leaves):
            t.grad = None
        loss = torch.sum(encode(0) ** 2)
        loss.backward()
        return [t.grad.numpy() for t in (W, b, leaves)]

    return run


def autograd_grad(args):
    import autograd
    import autograd.numpy as anp

    left, right = args[3].tolist(), args[4].tolist()

    def loss(W, b, leaves):
        def encode(node):
            if left[node] < 0:
                return anp.tanh(leaves[node])
            h = anp.concatenate([encode(left[node]), encode(right[node])])
            return anp.tanh(h @ W + b)

        return anp.sum(encode(0) ** 2)

    g = autograd.grad(loss, argnum=(0, 1, 2))
    return lambda: [onp.asarray(x) for x in g(*args[:3])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--leaves", default="64,512,4096")
    ap.add_argument("--agc-bin", default=None)
    opts = ap.parse_args()
    if opts.agc_bin:
        os.environ["AGC_BIN"] = opts.agc_bin
    sys.path.insert(0, str(REPO / "python"))
    import agc

    sys.setrecursionlimit(100_000)  # the eager references recurse in Python
    h = opts.hidden
    tmp = Path(tempfile.mkdtemp(prefix="agc-bench-rec-"))
    (tmp / "treegrad.py").write_text(MODEL.replace("{H}", str(h)))
    agc.build(str(tmp / "treegrad.py"), str(tmp / "out"))
    lib = agc.load(str(tmp / "out" / "libtreegrad.so"))
    rng = onp.random.default_rng(0)
    try:
        import torch  # noqa: F401

        peers = {"autograd": autograd_grad, "torch": torch_grad}
    except ImportError:
        peers = {"autograd": autograd_grad}
        print("(PyTorch is not installed: pip install torch adds its column)")
    print(f"recursive tree net, hidden {h}, float32, {os.environ['OMP_NUM_THREADS']} thread(s); "
          "microseconds per value_and_grad call (best of 5 batches)")
    print(f"{'tree':>14} {'agc':>10} {'agc/node':>9}" + "".join(f" {p:>10} {p + '/agc':>13}" for p in peers))
    per_node = {"balanced": [], "chain": []}
    for n in [int(s) for s in opts.leaves.split(",")]:
        for shape, (left, right) in (("balanced", balanced(n)), ("chain", chain(n))):
            args = [
                (0.3 * rng.standard_normal((2 * h, h))).astype(onp.float32),
                (0.1 * rng.standard_normal(h)).astype(onp.float32),
                rng.standard_normal((len(left), h)).astype(onp.float32),
                left,
                right,
            ]
            ours = lambda: lib.tree_grad(*args)
            line = f"{shape + ' ' + str(n):>14}"
            t_agc = best_time(ours)
            per_node[shape].append(t_agc / len(left))
            line += f" {t_agc * 1e6:10.1f} {t_agc * 1e6 / len(left):9.2f}"
            for name, make in peers.items():
                theirs = make(args)
                for g, r in zip(ours()[1:], theirs()):
                    err = onp.max(onp.abs(g - r)) / max(onp.max(onp.abs(r)), 1e-30)
                    assert err < 1e-3, f"{shape} {n}: agc's gradient differs from {name}'s by {err:.2e}"
                t = best_time(theirs)
                line += f" {t * 1e6:10.1f} {t / t_agc:13.2f}"
            print(line, flush=True)
    for shape, times in per_node.items():
        print(f"agc time per node, {shape}, largest / smallest across sizes: {max(times) / min(times):.2f}")


if __name__ == "__main__":
    main()
