"""Live IR ops before and after the IR pipeline, per model, from `agc build -v`.

    python3 bench/ir_stats.py [--out docs/ir-pipeline-stats.md]

Builds every gradient model of tests/grad_models and the benchmark workloads' agc models,
parses the pass table that `-v` prints, and writes a markdown table: ops after staging, after
each pass, the reduction, and the optimiser's milliseconds.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PASSES = ("dead-functions", "cse", "simplify", "dce")


def pass_table(agc, model):
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([agc, "build", str(model), "-o", out, "-v"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    rows = {}
    for line in proc.stderr.splitlines():
        cols = line.split()
        if cols[:1] and cols[0] in PASSES and len(cols) == 4:
            rows[cols[0]] = (int(cols[1]), int(cols[2]), float(cols[3]))
    return rows if set(rows) == set(PASSES) else None


def models():
    yield from sorted((REPO / "tests" / "grad_models").glob("*.py"))
    yield from sorted((REPO / "bench" / "workloads").glob("*/agc_model.py"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--agc", default=os.environ.get("AGC_BIN", str(REPO / "target" / "release" / "agc")))
    args = ap.parse_args()
    lines = ["| model | staged | " + " | ".join(f"after {p}" for p in PASSES) + " | fewer | ms |",
             "|---|---:|" + "---:|" * len(PASSES) + "---:|---:|"]
    total_before = total_after = 0
    for model in models():
        rows = pass_table(args.agc, model)
        if rows is None:
            continue
        before = rows[PASSES[0]][0]
        after = [rows[p][1] for p in PASSES]
        ms = sum(r[2] for r in rows.values())
        total_before += before
        total_after += after[-1]
        name = model.relative_to(REPO)
        cells = " | ".join(str(a) for a in after)
        lines.append(f"| {name} | {before} | {cells} | {100 * (1 - after[-1] / before):.0f}% | {ms:.1f} |")
    lines.append(f"| **total** | {total_before} | | | | {total_after} | {100 * (1 - total_after / total_before):.1f}% | |")
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
