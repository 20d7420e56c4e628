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


def build_nested(agc_bin, tmp_path, depth):
    src = tmp_path / "nested.py"
    src.write_text(nested_loops(depth))
    proc = subprocess.run([str(agc_bin), "build", str(src), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return agc.load(tmp_path / "out" / "libnested.so")


def test_nineteen_nested_staged_loops_build_and_run(agc_bin, tmp_path):
    # Issue 16's case. Each staged loop is traced twice (a probe for the types of its state,
    # then the loop); loops inside a probe are traced for their state's types only, so the
    # innermost body is traced about 19^2 / 2 times, not 2^19. The probes' ops are dropped and
    # do not count against a function's limit of 250,000 staged ops.
    lib = build_nested(agc_bin, tmp_path, 19)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    for n in (0, 1, 2):
        expected = x.copy()
        for _ in range(n ** 19):
            expected = expected * np.float32(0.5) + np.float32(1.0)
        np.testing.assert_allclose(lib.nested(x, np.int64(n)), expected, rtol=1e-6)


def test_sixty_nested_staged_loops_build_and_run(agc_bin, tmp_path):
    # Staging is quadratic in the depth, and MLIR's bufferization (exponential in the depth of a
    # loop nest) sees at most 8 nested loops per function: deeper loops are outlined.
    lib = build_nested(agc_bin, tmp_path, 60)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    np.testing.assert_array_equal(lib.nested(x, np.int64(0)), x)
    np.testing.assert_allclose(lib.nested(x, np.int64(1)), x * np.float32(0.5) + np.float32(1.0),
                               rtol=1e-6)
