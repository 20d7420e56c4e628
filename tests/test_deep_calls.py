"""Gradients through a staged loop of a run-time length: the backward pass keeps one continuation
frame per step on the library's dedicated stack (64 GiB of address space by default, mapped lazily).
A loop of 10^7 steps succeeds and matches the implicit-function derivative of the recurrence's fixed
point; with the stack capped (`AGC_STACK_MIB`) a too-deep loop returns RECURSION_TOO_DEEP (status 4)
with a message, and the process goes on working and exits cleanly. The backward pass of a call that
was cut short hands empty continuation cells zeros from the library's allocator (it gave libc's
calloc'd blocks to the library's free, which crashed the host at thread exit). Run in child
processes, whose exit codes are checked; small gradients are compared with the eager model
(autograd)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import agc

MODEL = textwrap.dedent('''
    """A tanh recurrence whose length is a run-time size, differentiated."""
    import agc
    import agc.numpy as np

    def loss(w, x, n):
        h = x
        for i in range(n.shape[0]):
            h = np.tanh(h * w)
        return np.sum(h)

    @agc.export
    def g(w: agc.f32[()], x: agc.f32[4], n: agc.f32["T"]):
        return agc.grad(loss)(w, x, n)
''')

CHILD = textwrap.dedent('''
    import json, sys
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    import agc
    lib = agc.load(sys.argv[1])
    x = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    out = {"small": [float(lib.g(np.float32(0.9), x, np.zeros(t, np.float32))) for t in (1, 3, 50)]}
    try:
        out["deep"] = float(lib.g(np.float32(1.5), x, np.zeros(int(sys.argv[3]), np.float32)))
    except agc.Error as e:
        out["deep"] = [e.status, str(e)]
    out["after"] = float(lib.g(np.float32(0.9), x, np.zeros(3, np.float32)))
    print(json.dumps(out))
''')


def run_child(work, so, steps, env=None):
    """Runs CHILD on the library with a deep loop of `steps`; returns its JSON output."""
    proc = subprocess.run([sys.executable, str(work / "child.py"), str(so), str(agc.__path__[0] + "/.."),
                           str(steps)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, f"the child process died ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def built(agc_bin, tmp_path_factory):
    work = tmp_path_factory.mktemp("deep_calls")
    (work / "deep.py").write_text(MODEL)
    (work / "child.py").write_text(CHILD)
    return work, agc.build(work / "deep.py", work / "out")


@pytest.fixture(scope="module")
def child(built):
    work, so = built
    return run_child(work, so, 10**7), work


def fixed_point_gradient(w):
    """d/dw of sum(h) at the fixed points +-h* of h = tanh(w h) reached from x (three starts
    positive, one negative: sum = 2 h*), by the implicit-function theorem, in float64."""
    h = 1.0
    for _ in range(200):
        h = np.tanh(w * h)
    s = 1.0 - h * h
    return 2.0 * s * h / (1.0 - w * s)


def test_a_ten_million_step_loop_gradient_succeeds(child):
    out, _ = child
    assert not isinstance(out["deep"], list), out["deep"]
    assert out["deep"] == pytest.approx(fixed_point_gradient(1.5), rel=1e-4)
    assert out["after"] == pytest.approx(out["small"][1], rel=1e-6)


def test_a_too_deep_loop_gradient_is_a_status_and_the_process_lives(built):
    work, so = built
    out = run_child(work, so, 10**6, {"AGC_STACK_MIB": "64"})
    assert out["deep"][0] == 4 and "recursion too deep" in out["deep"][1], out["deep"]
    assert "64 MiB" in out["deep"][1], out["deep"]
    assert out["after"] == pytest.approx(out["small"][1], rel=1e-6)


def test_small_loop_gradients_match_autograd(child):
    out, work = child
    import importlib.util
    spec = importlib.util.spec_from_file_location("deep_eager", work / "deep.py")
    eager = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(eager)
    x = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    for t, got in zip((1, 3, 50), out["small"]):
        want = agc.grad(eager.loss)(np.float32(0.9), x, np.zeros(t, np.float32))
        assert got == pytest.approx(float(want), rel=1e-4, abs=1e-6), t
