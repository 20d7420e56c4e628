"""PyTorch TreeLSTM training. Eagerly: the recursion in Python over the tree, loss.backward()
and an in-place SGD update. With torch.compile: the leaf, inner-node and loss functions are
compiled (the recursion over each tree's shape stays in Python, as it would recompile per tree)."""

import torch

from workload import C, H, LR, PARAMS


def leaf(x, wx, bx):
    i, o, u = (x @ wx + bx).split(H)
    c = torch.sigmoid(i) * torch.tanh(u)
    return torch.sigmoid(o) * torch.tanh(c), c


def inner(hl, cl, hr, cr, u, bu):
    i, fl, fr, o, g = (torch.cat([hl, hr]) @ u + bu).split(H)
    c = torch.sigmoid(i) * torch.tanh(g) + torch.sigmoid(fl) * cl + torch.sigmoid(fr) * cr
    return torch.sigmoid(o) * torch.tanh(c), c


def head(h, ws, bs, label):
    return -torch.log_softmax(h @ ws + bs, dim=0)[label]


def setup(case, data, variant):
    emb = torch.from_numpy(data["emb"])
    initial = [torch.from_numpy(data["params"][k]) for k in PARAMS]
    params = [p.clone().requires_grad_() for p in initial]
    trees = [(t["left"].tolist(), t["right"].tolist(), t["word"].tolist(), torch.tensor(int(t["label"])))
             for t in data["trees"]]
    f_leaf, f_inner, f_head = leaf, inner, head
    if variant == "compile":
        f_leaf, f_inner, f_head = torch.compile(leaf), torch.compile(inner), torch.compile(head)

    def step(tree):
        left, right, word, label = tree
        wx, bx, u, bu, ws, bs = params

        def node(k):
            if left[k] < 0:
                return f_leaf(emb[word[k]], wx, bx)
            hl, cl = node(left[k])
            hr, cr = node(right[k])
            return f_inner(hl, cl, hr, cr, u, bu)

        loss = f_head(node(0)[0], ws, bs, label)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return loss.detach()

    class Impl:
        def result(self):
            with torch.no_grad():
                for p, p0 in zip(params, initial):
                    p.copy_(p0)
            losses = [float(step(t)) for t in trees]
            return [torch.tensor(losses).numpy(), *[p.detach().numpy().copy() for p in params]]

        def run(self):
            for t in trees:
                step(t)

    assert C == initial[4].shape[1]
    return Impl()
