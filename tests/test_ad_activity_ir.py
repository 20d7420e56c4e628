"""Activity in the gradient programs (`agc build --emit ir`): no adjoint is built for a value no
requested gradient depends on.

- a TreeLSTM-style recursion receives its embedding table as an argument but the gradient is not
  taken with respect to it: no function AD generates for the recursion makes a value of the table's
  type or returns one, and the gradients still agree with autograd;
- the same model differentiated with respect to the table does build its adjoint (so the check
  above means something), as one buffer: the functions of the recursion never fill a tensor of
  the table's type with zeros nor add two of them; each leaf adds its row in place
  (`dyn_update_add`) into the adjoint the continuation hands it;
- zero adjoints are symbolic: the gradient of straight-line code makes no zero tensor of the
  weights' type.
"""

import re

import numpy as np

from test_ad_ir import generated, ops_of
from test_control_flow_ir import build_ir, functions

VOCAB, EMB, HID = 37, 11, 5
TABLE = f"f32[{VOCAB},{EMB}]"

TREE_LSTM = f'''
import agc
import agc.numpy as np

VOCAB, EMB, HID = {VOCAB}, {EMB}, {HID}


def sigmoid(z):
    return 0.5 * (np.tanh(0.5 * z) + 1.0)


def node(W, E, left, right, word, i):
    Wx, U = W
    if left[i] < 0:
        z = E[word[i]] @ Wx
        c = sigmoid(z[:HID]) * np.tanh(z[HID:])
        return np.tanh(c), c
    hl, cl = node(W, E, left, right, word, left[i])
    hr, cr = node(W, E, left, right, word, right[i])
    z = np.concatenate([hl, hr]) @ U
    c = sigmoid(z[:HID]) * cl + sigmoid(z[HID:2 * HID]) * cr + np.tanh(z[2 * HID:])
    return np.tanh(c), c


def loss(W, E, left, right, word):
    h, _ = node(W, E, left, right, word, 0)
    return np.sum(h ** 2)


@agc.export
def frozen(Wx: agc.f32[EMB, 2 * HID], U: agc.f32[2 * HID, 3 * HID], E: agc.f32[VOCAB, EMB],
           left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"]):
    return agc.value_and_grad(loss)((Wx, U), E, left, right, word)


@agc.export
def trained(Wx: agc.f32[EMB, 2 * HID], U: agc.f32[2 * HID, 3 * HID], E: agc.f32[VOCAB, EMB],
            left: agc.i64["N"], right: agc.i64["N"], word: agc.i64["N"]):
    return agc.value_and_grad(loss, argnums=(0, 1))((Wx, U), E, left, right, word)
'''

HEADER_RESULTS = re.compile(r"\)\s*->\s*\((.*)\)\s*\{\s*$")


def table_values(text):
    """Lines of a function that make a value of the table's type or return one."""
    lines = text.splitlines()
    found = []
    m = HEADER_RESULTS.search(lines[0])
    if m and TABLE in m.group(1):
        found.append(lines[0])
    for name, rest in ops_of(text):
        if ":" in rest and TABLE in rest.rsplit(":", 1)[1]:
            found.append(f"{name} {rest}")
    return found


def recursion_functions(ir, export):
    """The functions AD generated for the recursion `node` in the gradient of `export`: those
    named after `node` that the export's gradient reaches."""
    funcs = functions(ir)
    callee = re.compile(r"\{(?:callee|func)=@f(\d+)\}")
    order = list(funcs)
    seen, todo = set(), [export]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [order[int(i)] for i in callee.findall(funcs[name])]
    return {n: t for n, t in generated(funcs).items() if n in seen and n.startswith("node")}


def test_an_undifferentiated_table_passed_down_a_recursion_gets_no_adjoint(agc_bin, tmp_path):
    import agc

    ir = build_ir(agc_bin, tmp_path, "tree_lstm_activity", TREE_LSTM)
    frozen = recursion_functions(ir, "frozen")
    assert any(n.endswith(".cps") or ".cps." in n for n in frozen), sorted(frozen)
    for name, text in frozen.items():
        assert not table_values(text), f"{name} builds an adjoint of the table:\n" + "\n".join(table_values(text))
    trained = recursion_functions(ir, "trained")
    assert any(table_values(text) for text in trained.values()), "the trained table has no adjoint"
    made = [line.split()[0] for text in trained.values() for line in table_values(text)
            if not line.startswith("func")]
    assert "dyn_update_add" in made, made
    assert "fill" not in made and "add" not in made, made

    lib = agc.load(str(tmp_path / "out" / "libtree_lstm_activity.so"))
    module = __import__("harness").import_model(tmp_path / "tree_lstm_activity.py")
    rng = np.random.default_rng(5)
    left = np.array([1, 3, -1, -1, 5, -1, -1], np.int64)
    right = np.array([2, 4, -1, -1, 6, -1, -1], np.int64)
    word = np.where(left < 0, rng.integers(0, VOCAB, len(left)), -1).astype(np.int64)
    args = [(0.4 * rng.standard_normal(s)).astype(np.float32)
            for s in ((EMB, 2 * HID), (2 * HID, 3 * HID), (VOCAB, EMB))] + [left, right, word]
    for export in ("frozen", "trained"):
        got = getattr(lib, export)(*args)
        value, grads = getattr(module, export)(*args)
        want = [value] + [g for t in grads for g in (t if isinstance(t, tuple) else (t,))]
        assert len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(b).max()), err_msg=export)


def test_a_straight_line_gradient_fills_no_zero_tensor_of_the_weights(agc_bin, tmp_path):
    """Zero adjoints are symbolic: no accumulation of the weights' gradient starts from zeros."""
    ir = build_ir(agc_bin, tmp_path, "zeros_straight", """
        import agc
        import agc.numpy as np

        def loss(w, v, x):
            return np.sum(np.tanh(x @ w) @ v)

        @agc.export
        def g(w: agc.f32[7, 6], v: agc.f32[6, 5], x: agc.f32["B", 7]):
            return agc.grad(loss, argnums=(0, 1))(w, v, x)
    """)
    for name, text in generated(functions(ir)).items():
        for op, rest in ops_of(text):
            if op == "fill":
                assert "f32[7,6]" not in rest and "f32[6,5]" not in rest, f"{name}: fill {rest}"
