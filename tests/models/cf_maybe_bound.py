"""Variables bound on some run-time paths only, as Python scopes them: assigned in one branch of
a staged `if`, after an early `return` in a nested staged `if`, or only inside a staged loop. A
read on a path that bound the variable gives its value; a read on a path that did not is an error
status (CPython raises UnboundLocalError). Each `_unbound` export runs inputs that take such a path."""
import agc
import agc.numpy as np

AGC_TEST_NUMPY_RAISES = True  # the `_unbound` exports raise UnboundLocalError under CPython


@agc.export
def return_in_nested_if(x: agc.f32[3]):
    if np.sum(x) > 0:
        if x[0] > 0:
            return x
        c = x * 2.0
    else:
        c = x * 3.0
    return c + 1.0


@agc.export(name="one_branch_unbound")
@agc.export
def one_branch(x: agc.f32[3]):
    if x[0] > 0:
        c = x * 2.0
    return c + 1.0


@agc.export(name="loop_local_unbound")
@agc.export
def loop_local(x: agc.f32["N"], n: agc.i32[()]):
    for i in range(n):
        last = x[i] * 2.0
    return last


@agc.export
def previous_iteration(x: agc.f32["N"]):
    acc = x[0] * 0.0
    for i in range(x.shape[0]):
        if i > 0:
            acc = acc + prev * x[i]
        prev = x[i]
    return acc, prev


@agc.export(name="break_before_assign_unbound")
@agc.export
def break_before_assign(x: agc.f32["N"]):
    total = x[0] * 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        found = x[i]
        total = total + found
    return total + found


@agc.export(name="compile_time_value_unbound")
@agc.export
def compile_time_value(x: agc.f32[3]):
    if x[0] > 0:
        act = np.tanh
        scale = 2.0
    else:
        scale = 3.0
    return act(x) * scale


def agc_test_inputs(export_name, rng, dims):
    n = dims.get("N", 4)
    positive = np.abs(rng.standard_normal(n)).astype(np.float32) + 0.1
    three = np.abs(rng.standard_normal(3)).astype(np.float32) + 0.1
    if export_name == "return_in_nested_if":
        return [np.array([-0.5, 2.0, 1.0], np.float32)]      # the sum is positive, x[0] is not
    if export_name in ("one_branch", "compile_time_value"):
        return [three]
    if export_name in ("one_branch_unbound", "compile_time_value_unbound"):
        return [-three]
    if export_name == "loop_local":
        return [positive, np.int32(n)]
    if export_name == "loop_local_unbound":
        return [positive, np.int32(0)]
    if export_name == "break_before_assign":
        positive[-1] = -1.0
        return [positive]
    if export_name == "break_before_assign_unbound":
        positive[0] = -1.0
        return [positive]
    return [rng.standard_normal(n).astype(np.float32)]
