#!/usr/bin/env python3
"""Run the agc differential fuzzer: generate, build, call, compare, classify, shrink.

    python3 tests/fuzz/run.py --count 10000 --seed 7 [--jobs 2] [--agc-bin PATH]
    python3 tests/fuzz/run.py --seed 7 --only 17,42        # just these program indices
    python3 tests/fuzz/run.py --show 7-17                   # print program 17 of seed 7
    python3 tests/fuzz/run.py --replay tests/fuzz/out/seed7/repros/mismatch-7-17/shrunk.py

The compiler binary is copied to a private path first, so rebuilds of
target/release/agc by others do not swap it mid-run. See tests/fuzz/README.md.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
sys.path.insert(0, str(FUZZ))

from agcfuzz import REPO, campaign, oracle, report  # noqa: E402


def private_binary(path):
    """A copy of the compiler that nobody else rebuilds while we run."""
    src = Path(path or os.environ.get("AGC_BIN") or REPO / "target" / "release" / "agc")
    if not src.is_file():
        sys.exit(f"no agc binary at {src}: build it with `cargo build --release` or pass --agc-bin")
    d = Path(tempfile.gettempdir()) / "agc-fuzz"
    d.mkdir(exist_ok=True)
    dst = d / f"agc-{os.getpid()}"
    shutil.copy2(src, dst)
    return dst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=200, help="programs to run (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="campaign seed (default 0)")
    ap.add_argument("--start", type=int, default=0, help="first program index (default 0)")
    ap.add_argument("--only", help="comma-separated program indices to run instead of a range")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--agc-bin", help="the compiler (default $AGC_BIN, else target/release/agc)")
    ap.add_argument("--out", help="output folder (default tests/fuzz/out/seed<SEED>)")
    ap.add_argument("--batch", type=int, default=12, help="programs per built module (default 12)")
    ap.add_argument("--no-shrink", action="store_true", help="save reproducers without shrinking them")
    ap.add_argument("--shrink-budget", type=float, default=120.0, help="seconds of shrinking per failure")
    ap.add_argument("--max-shrinks", type=int, help="shrink at most this many failures (the rest unshrunk)")
    ap.add_argument("-O", dest="opt_level", type=int, choices=[0, 1, 2, 3], help="build at this -O level")
    ap.add_argument("--keep-builds", action="store_true", help="keep the built modules (in the work folder)")
    ap.add_argument("--mix", default="default", choices=["default", "quick"],
                    help="program mix (the pytest uses quick: shorter programs)")
    ap.add_argument("--show", metavar="SEED-INDEX", help="print one generated program and exit")
    ap.add_argument("--replay", metavar="PATH", nargs="+",
                    help="rebuild and re-check saved reproducers (files or folders; e.g. tests/fuzz/findings/*.py)")
    args = ap.parse_args(argv)

    if args.show:
        return show(args.show, args.mix)
    binary = private_binary(args.agc_bin)
    try:
        if args.replay:
            return max(replay(binary, p) for p in args.replay)
        out = Path(args.out) if args.out else FUZZ / "out" / f"seed{args.seed}"
        out.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="agc-fuzz-work-"))
        cfg = campaign.Config(agc_bin=str(binary), out_dir=str(out), work_dir=str(work), seed=args.seed,
                              batch_size=args.batch, shrink=not args.no_shrink, shrink_budget_s=args.shrink_budget,
                              max_shrinks=args.max_shrinks,
                              opt_level=args.opt_level, keep_builds=args.keep_builds, mix=args.mix)
        only = [int(x) for x in args.only.split(",")] if args.only else None
        t0 = time.perf_counter()
        last = [0.0]

        def progress(done, total):
            now = time.perf_counter()
            if now - last[0] > 10 or len(done) == total:
                last[0] = now
                bad = sum(o.status in campaign.FAILURES for o in done)
                print(f"  {len(done)}/{total} programs, {bad} failing, {now - t0:.0f} s", flush=True)

        print(f"agc fuzz: seed {args.seed}, {len(only) if only else args.count} programs, {args.jobs} jobs, "
              f"binary {binary} (copy of {args.agc_bin or os.environ.get('AGC_BIN') or 'target/release/agc'})",
              flush=True)
        outcomes = campaign.run(cfg, args.count, jobs=args.jobs, start=args.start, progress=progress, only=only)
        elapsed = time.perf_counter() - t0
        text = report.table(outcomes, elapsed, out)
        print()
        print(text)
        (out / "summary.txt").write_text(text + "\n")
        report.write_json(out / "outcomes.json", outcomes, {"seed": args.seed, "count": args.count,
                                                            "elapsed_s": elapsed, "binary": str(binary)})
        print(f"\nsummary: {out / 'summary.txt'}; every outcome: {out / 'outcomes.json'}")
        if not args.keep_builds:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"builds kept in {work}")
        return 1 if any(o.status in ("mismatch", "crash", "timeout") for o in outcomes) else 0
    finally:
        binary.unlink(missing_ok=True)


def show(spec, mix):
    from agcfuzz.gen_program import generate

    parts = [int(x) for x in spec.split("-")]
    seed, index, attempt = parts[0], parts[1], (parts[2] if len(parts) > 2 else 0)
    p = generate(seed, index, attempt, mix)
    print(p.module_source())
    return 0


def replay(binary, path):
    """Rebuild a reproducer (a shrunk.py/original.py, or its folder) and compare with the eager run."""
    from agcfuzz import compare
    from agcfuzz.campaign import Config, Prepared, Runner
    from agcfuzz.repro import program_from_file

    path = Path(path)
    if path.is_dir():
        path = path / "shrunk.py" if (path / "shrunk.py").exists() else path / "original.py"
    prog, module, sets = program_from_file(path)
    work = Path(tempfile.mkdtemp(prefix="agc-fuzz-replay-"))
    runner = Runner(Config(agc_bin=str(binary), out_dir=str(work), work_dir=str(work), shrink=False))
    try:
        expected = oracle.expected_for(module, prog, sets)
    except oracle.Invalid as e:
        print(f"the eager run is not a usable test: {e}")
        return 2
    prep = Prepared(prog, path, module, sets, expected)
    o = runner.check_alone(prep, source=path.read_text())
    print(f"{path}: {o.status}" + (f" ({o.kind})" if o.kind else ""))
    if o.message:
        print(o.message)
    if o.expected:
        print(f"expected (eager): {o.expected}\nactual (agc):     {o.actual}")
    if o.status == "pass":
        for (name, k), (res, _) in expected.items():
            print(f"{name}: " + " | ".join(compare.summary(r) for r in res))
    runner.caller.close()
    shutil.rmtree(work, ignore_errors=True)
    return 0 if o.status == "pass" else 1


if __name__ == "__main__":
    sys.exit(main())
