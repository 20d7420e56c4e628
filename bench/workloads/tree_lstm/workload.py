"""TreeLSTM training: binary TreeLSTM (Tai et al. 2015, N-ary with N = 2) over parse trees.

Word vectors of size 300 (a fixed table of V = 1000 words: an input, not
trained), hidden size 150, a 5-class softmax on the root's hidden state,
batch 1: one plain SGD step (learning rate 0.05) on each tree's
cross-entropy in turn. A leaf is  i, o, u = split(x @ Wx + bx);
c = s(i) * tanh(u); h = s(o) * tanh(c); an inner node, from its children's
(hl, cl) and (hr, cr),  i, fl, fr, o, u = split([hl, hr] @ U + bu);
c = s(i) * tanh(u) + s(fl) * cl + s(fr) * cr; h = s(o) * tanh(c).

A tree is index arrays: `left[k]`, `right[k]` (-1 at a leaf), `word[k]` (-1 at
an inner node), root 0, and every child numbered after its parent (so
k = n-1 .. 0 is a bottom-up order, which the loop-based peers use). Trees
have 10 to 30 leaves (uniform), random shapes, seeded. One call is one pass
over the data set (training on each tree once); trees/s = trees / seconds.
The check compares each tree's loss and the weights after the first pass.
"""

import numpy as np

TITLE = "TreeLSTM training"
UNIT = "trees/s"
FRAMEWORKS = ("agc", "torch", "torch.compile", "jax", "tf")
TOL = 1e-3
E, H, C, V, LR = 300, 150, 5, 1000, 0.05
PARAMS = ("wx", "bx", "u", "bu", "ws", "bs")


def cases(quick):
    trees = 5 if quick else 20
    return [{"label": f"TreeLSTM e{E} h{H} x{trees} trees", "trees": trees, "items": float(trees)}]


def random_tree(rng, leaves):
    """Index arrays of a random binary tree with `leaves` leaves; children numbered after parents."""
    n = 2 * leaves - 1
    left = -np.ones(n, np.int64)
    right = -np.ones(n, np.int64)
    frontier, nxt = [0], 1
    while nxt < n:
        node = frontier.pop(int(rng.integers(len(frontier))))
        left[node], right[node] = nxt, nxt + 1
        frontier += [nxt, nxt + 1]
        nxt += 2
    word = np.where(left < 0, rng.integers(0, V, size=n), -1).astype(np.int64)
    return left, right, word


def data(case):
    rng = np.random.default_rng(0)
    trees = []
    for _ in range(case["trees"]):
        left, right, word = random_tree(rng, int(rng.integers(10, 31)))
        trees.append({"left": left, "right": right, "word": word, "label": np.int64(rng.integers(0, C))})
    k = 1.0 / np.sqrt(H)
    u = lambda *s: rng.uniform(-k, k, size=s).astype(np.float32)  # noqa: E731
    params = {"wx": u(E, 3 * H), "bx": u(3 * H), "u": u(2 * H, 5 * H), "bu": u(5 * H),
              "ws": u(H, C), "bs": u(C)}
    emb = (0.3 * rng.standard_normal((V, E))).astype(np.float32)
    return {"params": params, "emb": emb, "trees": trees}
