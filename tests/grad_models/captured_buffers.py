"""Values a continuation captures stay intact until it has run: a differentiated function that
keeps a tensor for the rest of the program (the continuation of a staged `if`, loop or recursive
call) and then computes new values in the branch or loop that receives the continuation, values
that could be written into the kept tensor's buffer once nothing else reads it (elementwise
results, fills, `np.where`, scalars, slices, reductions), in float32 and float64, static and
run-time shapes, nested `if`s, loops and recursion."""
import agc
import agc.numpy as np


def rebinding_loop(b, v):
    # k is kept for the second `if`; the first `if`'s product could reuse its buffer
    h = np.sin(b)
    k = h * 2.0
    for j in range(2):
        if np.sum(v) > 0.0:
            h = k[j] * h
    return np.mean(h)


@agc.export
def rebinding_loop_grad(b: agc.f32[3], v: agc.f32[2]):
    return agc.value_and_grad(rebinding_loop, argnums=(0, 1))(b, v)


def strided_view(x, v):
    # the kept slice v[::2] and the branch's `h + 1.0` have the same type
    h = v[::2]
    if np.min(x) < 0:
        h = h + 1.0
    return np.sum(h * v[::2])


@agc.export
def strided_view_grad(x: agc.f32[3], v: agc.f32[3]):
    return agc.grad(strided_view, argnums=1)(x, v)


def mean_divisor(x, v):
    # the run-time N of the first mean is kept for the second; the branch's scalar could overwrite it
    a = np.mean(x, axis=0)
    s = v[0]
    if np.sum(v) > 0.0:
        s = s * 2.0
    return np.sum(np.mean(x, axis=0, keepdims=True) * s) + np.sum(a * a)


@agc.export
def mean_divisor_grad(x: agc.f32["B", 3], v: agc.f32[2]):
    return agc.value_and_grad(mean_divisor, argnums=1)(x, v)


def fills_and_where(x, c):
    # float64, 2-D: a fill, an np.where and a product, each of the kept tensors' type
    e = np.exp(x * 0.5)
    w = e * 3.0
    if c > 0.0:
        e = np.zeros_like(e) + c * x
    else:
        e = np.where(x > 0.0, x * c, 0.5 * x)
    return np.sum(e * w) + np.sum(w * w) * 0.1


@agc.export
def fills_and_where_grad(x: agc.f64["N", 4], c: agc.f64[()]):
    return agc.grad(fills_and_where, argnums=(0, 1))(x, c)


def nested_ifs(x, v):
    # both continuations keep k; either inner branch computes over it
    h = np.exp(x)
    k = h * 3.0
    if np.sum(v) > 0.0:
        if np.max(v) > 1.0:
            h = k[0] * h
        else:
            h = k[1] * v[0] + h
    return np.sum(h * k)


@agc.export
def nested_ifs_grad(x: agc.f32[4], v: agc.f32[2]):
    return agc.value_and_grad(nested_ifs, argnums=(0, 1))(x, v)


def loop_body_if(x, n):
    # a staged `if` inside a staged loop: the rest of the iteration keeps k
    h = np.tanh(x)
    i = 0
    while i < n:
        k = h * 0.5 + x
        if np.sum(h) > 0.0:
            h = k[0] * h
        h = np.sin(h * k)
        i = i + 1
    return np.sum(h * x)


@agc.export
def loop_body_if_grad(x: agc.f64[3], n: agc.i64[()]):
    return agc.grad(loop_body_if)(x, n)


def depth_scale(x, d):
    # the base case computes over s, which the rest keeps after the recursive call's branch
    s = np.sin(x) * 1.5
    if d <= 0:
        y = s * 0.5
    else:
        y = depth_scale(s, d - 1)
    return y * s + x


def recursion(x, d):
    return np.sum(depth_scale(x, d) * np.cos(x))


@agc.export
def recursion_grad(x: agc.f32[3], d: agc.i64[()]):
    return agc.grad(recursion)(x, d)


AGC_GRAD_CHECKS = {
    "rebinding_loop_grad": ("rebinding_loop", (0, 1), {"value": True}),
    "strided_view_grad": ("strided_view", 1),
    "mean_divisor_grad": ("mean_divisor", 1, {"value": True}),
    "fills_and_where_grad": ("fills_and_where", (0, 1)),
    "nested_ifs_grad": ("nested_ifs", (0, 1), {"value": True}),
    "loop_body_if_grad": ("loop_body_if", 0),
    "recursion_grad": ("recursion", 0),
}


def agc_grad_inputs(name, rng):
    f32 = lambda a: np.asarray(a, np.float32)
    if name == "rebinding_loop_grad":
        b = f32([0.5, 1.0, 1.5])
        return [[b, f32([1.0, 1.0])], [b, f32([-1.0, -1.0])]]
    if name == "strided_view_grad":
        v = f32([1.0, 2.0, 3.0])
        return [[f32([-1.0, 2.0, 3.0]), v], [f32([1.0, 2.0, 3.0]), v]]
    if name == "mean_divisor_grad":
        x = f32(rng.standard_normal((5, 3)))
        return [[x, f32([1.0, 2.0])], [x, f32([-1.0, -2.0])]]
    if name == "fills_and_where_grad":
        x = rng.standard_normal((3, 4))
        return [[x, np.float64(0.7)], [x, np.float64(-0.7)]]
    if name == "nested_ifs_grad":
        x = f32(rng.standard_normal(4) * 0.5)
        return [[x, f32([2.0, 0.5])], [x, f32([0.5, 0.2])], [x, f32([-0.5, -0.2])]]
    if name == "loop_body_if_grad":
        x = rng.standard_normal(3) * 0.5
        return [[x, np.int64(n)] for n in (0, 1, 3)] + [[-np.abs(x), np.int64(2)]]
    x = f32(rng.standard_normal(3))
    return [[x, np.int64(d)] for d in (0, 1, 3)]
