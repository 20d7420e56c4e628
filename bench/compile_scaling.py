"""Compile time of large and deeply nested models: `agc build` wall time and peak memory.

Generates the models of issue 16's scaling cases into a temporary directory and builds each
with the compiler under test (`$AGC_BIN` or target/release/agc), one at a time:

- straight-line code: N lines of elementwise updates of one tensor (3 ops a line);
- the same with a matmul every tenth line;
- N chained `.T`;
- an N-term sum `x + x + ... + x`;
- N nested staged `if`s.

Prints one table row per case: seconds, peak RSS (from getrusage of the child) and the exit code.
Usage: python3 bench/compile_scaling.py [--quick] [--timeout S]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEADER = "import agc\nimport agc.numpy as np\n\n\n@agc.export\ndef f(x: agc.f32['N', 'N'], y: agc.f32['N', 'N']):\n"


def straight_line(n):
    lines = ["    a = x"]
    for i in range(n):
        lines.append(["    a = a * 0.5 + y", "    a = np.tanh(a) - x", f"    a = a + {i}.0 * y"][i % 3])
    return HEADER + "\n".join(lines) + "\n    return a\n"


def matmul_lines(n):
    lines = ["    a = x"]
    for i in range(n):
        lines.append("    a = a @ y" if i % 10 == 0 else "    a = a * 0.5 + y")
    return HEADER + "\n".join(lines) + "\n    return a\n"


def chained_transposes(n):
    return HEADER + "    return x" + ".T" * n + "\n"


def long_sum(n):
    return HEADER + "    return " + " + ".join(["x"] * n) + "\n"


def nested_ifs(n):
    lines = ["    s = np.sum(x)", "    a = x"]
    for i in range(n):
        lines.append("    " * (i + 1) + f"if s > {i}.0:")
        lines.append("    " * (i + 2) + f"a = a + {i}.0")
    return HEADER + "\n".join(lines) + "\n    return a\n"


CASES = {
    "straight-line lines": (straight_line, [500, 2000], [500, 1000, 2000, 5000]),
    "lines with a matmul every tenth": (matmul_lines, [1000, 2000], [1000, 2000, 20000]),
    "chained .T": (chained_transposes, [2000, 20000], [2000, 20000]),
    "terms of a sum": (long_sum, [1000, 10000], [1000, 10000]),
    "nested staged ifs": (nested_ifs, [25, 100], [25, 50, 100, 200]),
}


def build(agc, source, work, timeout):
    """Builds `source`; (seconds, peak RSS in MB, exit code or 'timeout') of that build alone."""
    model = work / "model.py"
    model.write_text(source)
    start = time.perf_counter()
    child = subprocess.Popen([agc, "build", str(model), "-o", str(work / "out")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            code = os.waitstatus_to_exitcode(status)
            break
        if time.perf_counter() - start > timeout:
            child.kill()
            _, _, usage = os.wait4(child.pid, 0)
            code = "timeout"
            break
        time.sleep(0.02)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, code


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two sizes per case")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    agc = os.environ.get("AGC_BIN") or str(REPO / "target" / "release" / "agc")
    print(f"compiler: {agc}")
    print("| case | size | seconds | peak RSS (MB) | exit |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="agc-compile-scaling-") as tmp:
        for name, (make, quick, full) in CASES.items():
            for n in quick if args.quick else full:
                seconds, mb, code = build(agc, make(n), Path(tmp), args.timeout)
                print(f"| {name} | {n} | {seconds:.2f} | {mb:.0f} | {code} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
