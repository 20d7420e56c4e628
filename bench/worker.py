#!/usr/bin/env python3
"""Runs one (workload, framework, threads) of the benchmark suite in this process.

Started by `bench/run.py` (one process each, its thread settings already in
the environment and its CPU affinity set). For each case of the workload it
builds the seeded inputs, sets the framework up, computes the result once
and saves it (OUT/<workload>/<framework>-case<i>.npz), compares it with the
reference saved by a peer that ran before it (agc's result must match, or
it is not timed), then times `run()` (median of several repetitions after
warm-up). With --count-mallocs (agc only, with malloc_count.c preloaded) it
counts allocations per export call instead of timing. Prints one line
`RESULT {json}` at the end.
"""

import argparse
import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO / "python"))  # the agc package

from timing import median_time  # noqa: E402
from workloads import FRAMEWORKS, REFERENCE_ORDER  # noqa: E402


def set_threads(framework, threads, info):
    """Thread settings that only an API call makes (the environment did the rest)."""
    if framework.startswith("torch"):
        import torch

        torch.set_num_threads(threads)
        torch.set_num_interop_threads(1)
        info["version"] = torch.__version__
        info["threads"] = torch.get_num_threads()
    elif framework == "tf":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        info["version"] = tf.__version__
    elif framework == "jax":
        import jax

        info["version"] = jax.__version__
    elif framework == "numpy":
        import numpy as np
        from threadpoolctl import threadpool_info

        info["version"] = np.__version__
        info["blas"] = [{k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                        for p in threadpool_info() if p.get("user_api") == "blas"]


def build_agc(workload, build_root, info):
    """Builds the workload's agc model once per run (OUT/build/<workload>); returns the library."""
    import agc

    name = "hostcall" if workload == "host_call" else workload
    out = build_root / workload
    so = out / f"lib{name}.so"
    if not so.exists():
        t0 = time.perf_counter()
        try:
            agc.build(BENCH / "workloads" / workload / "agc_model.py", out, name=name)
        except agc.Error as e:
            raise BuildError(str(e)) from None
        info["build_s"] = round(time.perf_counter() - t0, 2)
    lib = agc.load(so)
    info["honours_threads"] = hasattr(lib._dll, f"{name}_set_num_threads")
    return lib


def last_line(e):
    """The last line of an exception's message (TensorFlow's first line is 'in user code:')."""
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


class BuildError(Exception):
    pass


def compare(got, want):
    """Largest |got - want| over the arrays, relative to the largest |want| (inf on a shape mismatch)."""
    import numpy as np

    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g.shape != w.shape:
            return float("inf")
        if g.size == 0:
            continue
        if not np.all(np.isfinite(g)):
            return float("inf")
        scale = max(float(np.max(np.abs(w))), 1e-6)
        worst = max(worst, float(np.max(np.abs(g - w))) / scale)
    return worst


def check(spec, framework, out_dir, case_index, result):
    """Compares `result` with the first reference saved by another framework; None if there is none."""
    import numpy as np

    for ref in REFERENCE_ORDER:
        path = out_dir / f"{ref}-case{case_index}.npz"
        if ref == framework or not path.exists():
            continue
        with np.load(path) as z:
            want = [z[f"arr_{i}"] for i in range(len(z.files))]
        err = compare(result, want)
        return {"ref": ref, "rel_err": err, "ok": bool(err <= spec.TOL)}
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", required=True)
    ap.add_argument("--framework", required=True, choices=sorted(FRAMEWORKS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--count-mallocs", action="store_true")
    args = ap.parse_args()

    record = {"workload": args.workload, "framework": args.framework, "threads": args.threads,
              "info": {}, "cases": []}
    try:
        run(args, record)
    except BuildError as e:
        record["error"] = "build failed: " + str(e).strip().splitlines()[-1][:200]
        record["traceback"] = str(e)[-3000:]
    except Exception as e:  # a failure is a cell of the table, not the end of the suite
        record["error"] = f"{type(e).__name__}: {last_line(e)}"
        record["traceback"] = traceback.format_exc()[-3000:]
    print("RESULT " + json.dumps(record), flush=True)


def run(args, record):
    import numpy as np

    wdir = BENCH / "workloads" / args.workload
    sys.path.insert(0, str(wdir))
    spec = importlib.import_module("workload")
    module_name, variant = FRAMEWORKS[args.framework]
    info = record["info"]
    info["affinity"] = sorted(os.sched_getaffinity(0))
    set_threads(args.framework, args.threads, info)
    peer = importlib.import_module(module_name)
    lib = build_agc(args.workload, args.out / "build", info) if args.framework == "agc" else None
    out_dir = args.out / args.workload
    out_dir.mkdir(parents=True, exist_ok=True)
    reps, warmup, min_rep = (3, 1, 0.02) if args.quick else (9, 3, 0.2)

    for i, case in enumerate(spec.cases(args.quick)):
        entry = {"label": case["label"], "items": case["items"]}
        record["cases"].append(entry)
        try:
            data = spec.data(case)
            impl = peer.setup(case, data, lib if lib is not None else variant)
            t0 = time.perf_counter()
            result = [np.asarray(a) for a in impl.result()]
            entry["first_call_s"] = time.perf_counter() - t0
            if args.count_mallocs:
                from agc_call import MallocCounter

                counter = MallocCounter()
                if not counter.available:
                    raise RuntimeError("malloc_count.c is not preloaded")
                entry["mallocs"] = counter.per_call(impl.run, impl.calls_per_run, repeat=3 if args.quick else 5)
                continue
            np.savez(out_dir / f"{args.framework}-case{i}.npz", *result)
            entry["check"] = check(spec, args.framework, out_dir, i, result)
            if args.framework == "agc" and entry["check"] and not entry["check"]["ok"]:
                c = entry["check"]
                entry["error"] = f"wrong result (rel err {c['rel_err']:.1e} vs {c['ref']})"
                continue
            timing = median_time(impl.run, reps=reps, warmup=warmup, min_rep=min_rep)
            entry["time"] = timing
            entry["throughput"] = case["items"] / timing["median"]
            entry["cpu_throughput"] = case["items"] / max(timing["cpu_median"], 1e-12)
            if hasattr(impl, "extra"):
                entry["extra"] = impl.extra(args.quick)
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {last_line(e)}"
            entry["traceback"] = traceback.format_exc()[-3000:]


if __name__ == "__main__":
    main()
