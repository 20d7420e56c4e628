"""The egg optimiser on long chains: how long `simplify` takes, and what it did.

Generates three models and builds each with `agc build -v` (the compiler under test:
`$AGC_BIN` or target/release/agc), reading the `simplify` pass's row and notes:

- a chain of 40 matmuls of random static shapes (sizes 1-64, seeded), written left to right,
  with the FLOPs of the order written and of the cheapest order (the matrix-chain programme);
- 200 chained `np.where`;
- 200 chained additions and subtractions.

Prints one row per model: the pass's milliseconds, e-nodes, rounds, stop reason and the rule
hits. Nothing is asserted (the optimum itself is checked by `opt/tests/matmul_chains.rs`).
Usage: python3 bench/opt_chains.py [--seed S]
"""

import argparse
import os
import random
import re
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HEADER = "import agc\nimport agc.numpy as np\n\n\n@agc.export\n"


def matmul_chain(dims):
    params = ", ".join(f"m{i}: agc.f32[{dims[i]}, {dims[i + 1]}]" for i in range(len(dims) - 1))
    product = " @ ".join(f"m{i}" for i in range(len(dims) - 1))
    return HEADER + f"def f({params}):\n    return {product}\n"


def where_chain(n):
    body = "".join(f"    z = np.where(z > {i % 7}.0, z, y)\n" for i in range(n))
    return HEADER + "def f(x: agc.f32['N'], y: agc.f32['N']):\n    z = x\n" + body + "    return z\n"


def add_sub_chain(n):
    body = "".join(f"    z = z {'+' if i % 2 else '-'} y\n" for i in range(n))
    return HEADER + "def f(x: agc.f32['N'], y: agc.f32['N']):\n    z = x\n" + body + "    return z\n"


def chain_flops(dims):
    """FLOPs of the chain multiplied left to right, and of its cheapest order."""
    n = len(dims) - 1
    written = sum(2 * dims[0] * dims[i] * dims[i + 1] for i in range(1, n))
    best = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            best[i][j] = min(best[i][k] + best[k + 1][j] + 2 * dims[i] * dims[k + 1] * dims[j + 1]
                             for k in range(i, j))
    return written, best[0][n - 1]


def simplify_report(agc_bin, source, tmp):
    path = tmp / "model.py"
    path.write_text(source)
    out = subprocess.run([agc_bin, "build", str(path), "-o", str(tmp / "out"), "-v"],
                         capture_output=True, text=True, check=True)
    text = out.stdout + out.stderr
    row = re.search(r"^simplify\s+\d+\s+\d+\s+([\d.]+)", text, re.M)
    stats = re.search(r"pure ops (\d+) -> (\d+), \d+ regions, (\d+) e-nodes, (\d+) iterations, ([^,]+)", text)
    hits = re.search(r"rule hits: (.*)", text)
    return float(row.group(1)), stats.groups(), hits.group(1) if hits else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    opts = ap.parse_args()
    agc_bin = os.environ.get("AGC_BIN", str(REPO / "target" / "release" / "agc"))
    rng = random.Random(opts.seed)
    dims = [rng.randint(1, 64) for _ in range(41)]
    written, optimum = chain_flops(dims)
    cases = [
        (f"40 matmuls (FLOPs written {written:,}, optimum {optimum:,})", matmul_chain(dims)),
        ("200 chained np.where", where_chain(200)),
        ("200 chained + and -", add_sub_chain(200)),
    ]
    print("| model | simplify ms | pure ops before -> after | e-nodes | rounds | stop | rule hits |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="agc-opt-chains-") as d:
        for label, source in cases:
            ms, (before, after, enodes, rounds, stop), hits = simplify_report(agc_bin, source, Path(d))
            print(f"| {label} | {ms:.2f} | {before} -> {after} | {enodes} | {rounds} | {stop} | {hits} |")


if __name__ == "__main__":
    main()
