"""A gradient through a staged loop of 10^7 steps keeps one continuation per step on the library's
1 GiB stack and exhausts it: the call returns RECURSION_TOO_DEEP (status 4) with a message, and
the process goes on working and exits cleanly. The backward pass of a call that was cut short
hands empty continuation cells zeros from the library's allocator (it gave libc's calloc'd blocks
to the library's free, which crashed the host at thread exit). Run in a child process, whose exit
code is checked; small gradients of the same library are compared with the eager model
(autograd)."""

import json
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
        lib.g(np.float32(0.9), x, np.zeros(10**7, np.float32))
        out["deep"] = "ok"
    except agc.Error as e:
        out["deep"] = [e.status, str(e)]
    out["after"] = float(lib.g(np.float32(0.9), x, np.zeros(3, np.float32)))
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def child(agc_bin, tmp_path_factory):
    work = tmp_path_factory.mktemp("deep_calls")
    (work / "deep.py").write_text(MODEL)
    (work / "child.py").write_text(CHILD)
    so = agc.build(work / "deep.py", work / "out")
    proc = subprocess.run([sys.executable, str(work / "child.py"), str(so), str(agc.__path__[0] + "/..")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"the child process died ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1]), work


def test_a_too_deep_loop_gradient_is_a_status_and_the_process_lives(child):
    out, _ = child
    assert out["deep"][0] == 4 and "recursion too deep" in out["deep"][1], out["deep"]
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
