"""A binary TreeLSTM (embedding 300, hidden 150, 5 classes, vocabulary 50): recursive forward and backward over a tree
given as index arrays (leaves: left = right = -1 and a word id; node 0 is the root), cross-entropy of the root, and
one SGD step (float32)."""
import agc
import agc.numpy as np

VOCAB, EMB, HID, CLASSES = 50, 300, 150, 5
LR = 0.05


def sigmoid(z):
    return 0.5 * (np.tanh(0.5 * z) + 1.0)


def node_state(params, left, right, word, i):
    """(h, c) of node i."""
    E, Wx, bx, U, bu, Wo, bo = params
    if left[i] < 0:
        z = E[word[i]] @ Wx + bx                               # [3H]: input, output, update
        ig, og, u = sigmoid(z[:HID]), sigmoid(z[HID:2 * HID]), np.tanh(z[2 * HID:])
        c = ig * u
        return og * np.tanh(c), c
    hl, cl = node_state(params, left, right, word, left[i])
    hr, cr = node_state(params, left, right, word, right[i])
    z = np.concatenate([hl, hr]) @ U + bu                      # [5H]: input, forget l, forget r, output, update
    ig, fl, fr = sigmoid(z[:HID]), sigmoid(z[HID:2 * HID]), sigmoid(z[2 * HID:3 * HID])
    og, u = sigmoid(z[3 * HID:4 * HID]), np.tanh(z[4 * HID:])
    c = ig * u + fl * cl + fr * cr
    return og * np.tanh(c), c


def loss(params, left, right, word, label):
    h, _ = node_state(params, left, right, word, 0)
    logits = h @ params[5] + params[6]
    z = logits - np.max(logits)
    logp = z - np.log(np.sum(np.exp(z)))
    return -np.sum(np.where(np.arange(CLASSES) == label, logp, 0.0))


@agc.export
def train_step(E: agc.f32[VOCAB, EMB], Wx: agc.f32[EMB, 3 * HID], bx: agc.f32[3 * HID], U: agc.f32[2 * HID, 5 * HID],
               bu: agc.f32[5 * HID], Wo: agc.f32[HID, CLASSES], bo: agc.f32[CLASSES],
               left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"], label: agc.i64[()]):
    params = (E, Wx, bx, U, bu, Wo, bo)
    value, grads = agc.value_and_grad(loss)(params, left, right, word, label)
    return (value,) + tuple(p - LR * g for p, g in zip(params, grads))


@agc.export
def loss_grad(E: agc.f32[VOCAB, EMB], Wx: agc.f32[EMB, 3 * HID], bx: agc.f32[3 * HID], U: agc.f32[2 * HID, 5 * HID],
              bu: agc.f32[5 * HID], Wo: agc.f32[HID, CLASSES], bo: agc.f32[CLASSES],
              left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"], label: agc.i64[()]):
    return agc.grad(loss)((E, Wx, bx, U, bu, Wo, bo), left, right, word, label)


def loss_args(*inputs):
    return (tuple(inputs[:7]),) + tuple(inputs[7:])


def train_step_view(inputs, results):
    """[loss] + the gradients recovered from the update p_new = p - LR * g."""
    return [results[0]] + [((p.astype(np.float64) - q) / LR).astype(p.dtype) for p, q in zip(inputs[:7], results[1:])]


AGC_GRAD_CHECKS = {"loss_grad": ("loss", 0, {"args": "loss_args"})}
AGC_GRAD_CHECKS_TRAIN_STEP = ("loss", 0, {"value": True, "args": "loss_args", "view": "train_step_view"})
AGC_GRAD_DEDICATED = ("train_step",)


def init_params(rng):
    def u(*shape, scale):
        return rng.uniform(-scale, scale, shape).astype(np.float32)
    return [u(VOCAB, EMB, scale=0.5), u(EMB, 3 * HID, scale=0.1), u(3 * HID, scale=0.1),
            u(2 * HID, 5 * HID, scale=0.1), u(5 * HID, scale=0.1), u(HID, CLASSES, scale=0.3), u(CLASSES, scale=0.1)]


def random_tree(rng, leaves=None):
    """(left, right, word, label) of a random binary tree with `leaves` leaves (random if None); node 0 is the root."""
    leaves = int(rng.integers(1, 17)) if leaves is None else leaves
    left, right = [-1], [-1]
    frontier = [0]
    while (len(left) + 1) // 2 < leaves:
        node = frontier.pop(int(rng.integers(len(frontier))))
        left[node], right[node] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        frontier += [len(left) - 2, len(left) - 1]
    left, right = np.array(left, np.int64), np.array(right, np.int64)
    word = np.where(left < 0, rng.integers(0, VOCAB, len(left)), -1).astype(np.int64)
    return left, right, word, np.int64(rng.integers(0, CLASSES))


def agc_grad_inputs(name, rng):
    params = init_params(rng)
    return [[*params, *random_tree(rng, leaves)] for leaves in (1, 4)]
