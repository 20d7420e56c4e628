"""A/B of two agc compilers on the benchmark workloads, in one process.

    python3 bench/ab.py OLD_AGC NEW_AGC [--only lstm,tree_lstm,sgd] [--batches 9] [--case n=2048]

Builds each workload's `agc_model.py` with both compiler binaries, loads both
libraries into this process, checks that they give the same results (within
the workload's tolerance), then times them in alternating batches of about
0.4 s each, so that a change in the machine's load hits both alike. Prints,
per workload, the best and median batch throughput of each and the ratio
new ÷ old. Threads follow `AGC_NUM_THREADS`; pin with `taskset`.
"""

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "python"))


def build(agc_bin, workload, out):
    """Builds the workload's model with `agc_bin` into `out`; returns the library."""
    import agc

    name = "hostcall" if workload == "host_call" else workload
    subprocess.run([agc_bin, "build", str(BENCH / "workloads" / workload / "agc_model.py"),
                    "-o", str(out), "--name", name], check=True)
    return agc.load(out / f"lib{name}.so")


def batch(impl, seconds):
    """Runs `impl` for about `seconds`; returns calls per second."""
    n, t0 = 0, time.perf_counter()
    while True:
        impl.run()
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def compare(workload, old_bin, new_bin, batches, tmp, case_label=None):
    wdir = BENCH / "workloads" / workload
    sys.path.insert(0, str(wdir))
    for m in ("workload", "agc_peer"):
        sys.modules.pop(m, None)
    spec = importlib.import_module("workload")
    peer = importlib.import_module("agc_peer")
    if case_label:
        # A case of the full set by its label (`--case "n=2048"` for sgemm).
        case = next(c for c in spec.cases(False) if case_label in c["label"])
    else:
        case = spec.cases(True)[0]
    data = spec.data(case)
    impls = {}
    for tag, binary in (("old", old_bin), ("new", new_bin)):
        impls[tag] = peer.setup(case, data, build(binary, workload, tmp / tag / workload))
    got = {tag: [np.asarray(a) for a in impl.result()] for tag, impl in impls.items()}
    for a, b in zip(got["old"], got["new"]):
        np.testing.assert_allclose(b, a, rtol=getattr(spec, "TOL", 1e-4), atol=1e-5)
    rates = {"old": [], "new": []}
    for tag in impls:  # warm-up
        batch(impls[tag], 0.2)
    for _ in range(batches):
        for tag in ("old", "new"):
            rates[tag].append(batch(impls[tag], 0.4) * case["items"])
    sys.path.remove(str(wdir))
    return case["label"], spec.UNIT, rates


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--only", default="lstm,tree_lstm,sgd")
    p.add_argument("--batches", type=int, default=9)
    p.add_argument("--case", default=None,
                   help="a case of the full set whose label contains this (default: the first quick case)")
    args = p.parse_args()
    threads = os.environ.get("AGC_NUM_THREADS", "default")
    with tempfile.TemporaryDirectory() as tmp:
        for w in args.only.split(","):
            label, unit, r = compare(w, args.old, args.new, args.batches, Path(tmp), args.case)
            best = {t: max(v) for t, v in r.items()}
            med = {t: float(np.median(v)) for t, v in r.items()}
            print(f"{label} ({unit}, threads {threads}): old best {best['old']:.4g} median {med['old']:.4g}; "
                  f"new best {best['new']:.4g} median {med['new']:.4g}; "
                  f"new/old best {best['new'] / best['old']:.3f} median {med['new'] / med['old']:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
