"""Timing shared by the benchmarks."""

import time


def best_time(f, min_batch=0.2, batches=5):
    """Best time per call over `batches` batches of about `min_batch` seconds."""
    f()
    t0 = time.perf_counter()
    f()
    once = max(time.perf_counter() - t0, 1e-7)
    reps = max(1, int(min_batch / once))
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps):
            f()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def median_time(f, reps=7, warmup=2, min_rep=0.05):
    """Seconds per call of `f`: the median of `reps` timed repetitions after `warmup` calls.

    A repetition is a batch of calls lasting at least about `min_rep` seconds
    (one call when a call is longer). Returns a dict with the median, the
    fastest and slowest repetition and the per-call times of all of them, and
    the median CPU time of the process per call (all its threads: less
    sensitive than wall time to other programs on a busy machine).
    """
    for _ in range(max(1, warmup)):
        f()
    t0 = time.perf_counter()
    f()
    once = max(time.perf_counter() - t0, 1e-7)
    batch = max(1, int(min_rep / once))
    times, cpu = [], []
    for _ in range(reps):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(batch):
            f()
        times.append((time.perf_counter() - t0) / batch)
        cpu.append((time.process_time() - c0) / batch)
    return {"median": _median(times), "min": min(times), "max": max(times), "batch": batch, "times": times,
            "cpu_median": _median(cpu)}


def _median(xs):
    ordered = sorted(xs)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else 0.5 * (ordered[mid - 1] + ordered[mid])


# ---------------------------------------------------------------------------
# Processes: one (workload, framework, threads) per process, with the thread
# settings of every framework made consistent through the environment and the
# CPU affinity (like `taskset`), set before the process imports anything.

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
               "AGC_NUM_THREADS", "TF_NUM_INTRAOP_THREADS", "NUMEXPR_NUM_THREADS")


def thread_env(base, framework, threads):
    """The environment of a worker process running `framework` on `threads` threads."""
    env = dict(base)
    for var in THREAD_VARS:
        env[var] = str(threads)
    env["TF_NUM_INTEROP_THREADS"] = "1"
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    if threads == 1:
        env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    else:
        env.pop("XLA_FLAGS", None)
    if framework == "numpy":
        # Set on some machines for old OpenBLAS builds; they slow a current numpy.
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
    return env


def pin_cpus(threads):
    """A `preexec_fn` restricting the child to the first `threads` CPUs it may use."""
    import os

    def pin():
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) > threads:
            os.sched_setaffinity(0, cpus[:threads])

    return pin


def run_process(cmd, env, timeout, threads, marker="RESULT "):
    """Runs a worker; returns (its result dict or None, the last lines of its output)."""
    import json
    import subprocess

    try:
        p = subprocess.run(cmd, env=env, timeout=timeout, capture_output=True, text=True,
                           preexec_fn=pin_cpus(threads))
    except subprocess.TimeoutExpired as e:
        tail = (e.stdout or "")[-2000:] if isinstance(e.stdout, str) else ""
        return None, f"timed out after {timeout} s " + tail
    out = p.stdout + p.stderr
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(marker):
            return json.loads(line[len(marker):]), out[-4000:]
    return None, f"exit status {p.returncode}: " + out[-4000:]
