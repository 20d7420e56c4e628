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
