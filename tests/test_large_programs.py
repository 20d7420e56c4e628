"""Programs large in their control flow, built through the CLI (generated here, not seeds of the
front-end fuzzer, whose mutants would each take as long to build)."""

import subprocess

import numpy as np

import agc


def nested_loops(depth):
    lines = ["import agc", "import numpy as np", "", "", "@agc.export",
             'def nested(x: agc.f32["N"], n: agc.i64[()]):', "    t = x"]
    indent = "    "
    for i in range(depth):
        lines.append(f"{indent}for i{i} in range(n):")
        indent += "    "
    lines.append(f"{indent}t = t * 0.5 + 1.0")
    lines.append("    return t")
    return "\n".join(lines) + "\n"


def test_nineteen_nested_staged_loops_build_and_run(agc_bin, tmp_path):
    # Issue 16's case. Each staged loop is traced twice (a probe for the types of its state,
    # then the loop): the innermost body 2^19 times. The probes' ops are dropped and must not
    # count against a function's limit of 250,000 staged ops (the live program is small).
    src = tmp_path / "nested.py"
    src.write_text(nested_loops(19))
    proc = subprocess.run([str(agc_bin), "build", str(src), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lib = agc.load(tmp_path / "out" / "libnested.so")
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    for n in (0, 1, 2):
        expected = x.copy()
        for _ in range(n ** 19):
            expected = expected * np.float32(0.5) + np.float32(1.0)
        np.testing.assert_allclose(lib.nested(x, np.int64(n)), expected, rtol=1e-6)
