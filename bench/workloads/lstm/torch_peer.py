"""PyTorch LSTM: eagerly torch.nn.LSTM (its fused CPU kernel) with the same weights;
torch.compile compiles the step loop written out (T is static, so it unrolls)."""

import torch


def setup(case, data, variant):
    xs = torch.from_numpy(data["xs"])
    w, u, b = (torch.from_numpy(data[k]) for k in ("w", "u", "b"))
    hidden = u.shape[0]
    if variant == "eager":
        lstm = torch.nn.LSTM(w.shape[0], hidden)
        with torch.no_grad():
            lstm.weight_ih_l0.copy_(w.T)
            lstm.weight_hh_l0.copy_(u.T)
            lstm.bias_ih_l0.copy_(b)
            lstm.bias_hh_l0.zero_()
        lstm.eval()

        def forward(xs):
            out, (_, c) = lstm(xs)
            return out, c[0]
    else:
        def loop(xs, w, u, b):
            h = xs.new_zeros(xs.shape[1], hidden)
            c = xs.new_zeros(xs.shape[1], hidden)
            outs = []
            for t in range(xs.shape[0]):
                g = xs[t] @ w + h @ u + b
                i, f, cand, o = g.chunk(4, dim=1)
                c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(cand)
                h = torch.sigmoid(o) * torch.tanh(c)
                outs.append(h)
            return torch.stack(outs), c

        compiled = torch.compile(loop)

        def forward(xs):
            return compiled(xs, w, u, b)

    class Impl:
        def result(self):
            with torch.no_grad():
                return [t.numpy() for t in forward(xs)]

        def run(self):
            with torch.no_grad():
                forward(xs)

    return Impl()
