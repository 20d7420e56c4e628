#!/usr/bin/env python3
"""The agc benchmark suite: agc against numpy, PyTorch (eager, torch.compile), JAX and TensorFlow.

Usage: python3 bench/run.py [--quick] [--only W[,W...]] [--frameworks F[,F...]]
                            [--threads 1,2] [--venv DIR] [--no-install] [--out DIR]
       python3 bench/run.py --report OUT/results.json    # print a saved run's report again

Installs the peers into a virtual environment outside the repository
(default ~/.cache/agc-bench/venv; PyPI: torch, jax[cpu], tensorflow-cpu,
numpy, threadpoolctl, each group on its own so that one failing leaves the
others), copies the agc compiler to a private path, then runs every
(workload, framework, threads) in its own process (`bench/worker.py`), the
peers first so that agc's result is checked against theirs before it is
timed, plus one agc process per workload under the LD_PRELOAD allocation
counter (`malloc_count.c`). Prints one table, throughput (higher is
better) with agc / best peer per row, followed by the allocation counts,
the host-call overhead and the notes; writes results.json and table.md into
the output folder. A framework that cannot be installed, or fails on a
workload, gets "n/a" with the reason. Nothing is asserted about time.

Workloads: sgemm, lstm, sgd, tree_lstm, host_call (bench/workloads/*).
Frameworks: agc, numpy, torch, torch.compile, jax, tf.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from timing import run_process, thread_env  # noqa: E402
from workloads import ALL, FRAMEWORKS, REFERENCE_ORDER  # noqa: E402

# pip requirements per group (versions that install on CPython 3.11 here); the
# import that shows the group works; the frameworks that need it.
PEERS = {
    "base": (["numpy==2.4.6", "threadpoolctl==3.8.0"], "numpy, threadpoolctl", ("agc", "numpy")),
    "torch": (["torch==2.15.0"], "torch", ("torch", "torch.compile")),
    "jax": (["jax[cpu]==0.10.2"], "jax", ("jax",)),
    "tf": (["tensorflow-cpu==2.21.0"], "tensorflow", ("tf",)),
}
ORDER = (*REFERENCE_ORDER, "agc")  # peers first: agc is checked against what they computed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short smoke run (small cases, few repetitions)")
    ap.add_argument("--only", default=",".join(ALL), help="workloads, comma-separated")
    ap.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="frameworks, comma-separated")
    ap.add_argument("--threads", default=None, help="thread counts (default 1,2; 1 with --quick)")
    ap.add_argument("--venv", type=Path, default=Path.home() / ".cache" / "agc-bench" / "venv")
    ap.add_argument("--no-install", action="store_true", help="use the virtual environment as it is")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default ~/.cache/agc-bench/runs/DATE)")
    ap.add_argument("--agc-bin", type=Path, default=REPO / "target" / "release" / "agc")
    ap.add_argument("--timeout", type=int, default=None, help="seconds per process")
    ap.add_argument("--report", type=Path, default=None, help="print the report of a saved results.json, run nothing")
    args = ap.parse_args()
    if args.report:
        saved = json.loads(args.report.read_text())
        m = saved["meta"]
        done = list(dict.fromkeys(r["workload"] for r in saved["results"]))
        fws = list(dict.fromkeys(r["framework"] for r in saved["results"]))
        print(render(saved["results"], m, done, m["threads"], fws))
        return

    workloads = [w for w in args.only.split(",") if w]
    frameworks = [f for f in args.frameworks.split(",") if f]
    for name in workloads:
        if name not in ALL:
            ap.error(f"unknown workload {name!r} (known: {', '.join(ALL)})")
    for name in frameworks:
        if name not in FRAMEWORKS:
            ap.error(f"unknown framework {name!r} (known: {', '.join(FRAMEWORKS)})")
    threads = [int(t) for t in (args.threads or ("1" if args.quick else "1,2")).split(",")]
    timeout = args.timeout or (600 if args.quick else 1800)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = (args.out or Path.home() / ".cache" / "agc-bench" / "runs" / stamp).resolve()
    out.mkdir(parents=True, exist_ok=True)

    meta = machine_info()
    meta.update(date=stamp, quick=args.quick, threads=threads, out=str(out))
    agc_bin = out / "agc"
    try:
        shutil.copy2(args.agc_bin, agc_bin)
    except OSError as e:
        sys.exit(f"cannot copy the compiler {args.agc_bin}: {e} (build it with cargo build --release)")
    st = agc_bin.stat()
    meta["agc_bin"] = {"from": str(args.agc_bin), "built": datetime.datetime.fromtimestamp(st.st_mtime).isoformat(
        timespec="seconds"), "sha256": hashlib.sha256(agc_bin.read_bytes()).hexdigest()[:16]}
    meta["commit"] = git("rev-parse", "HEAD")
    meta["dirty"] = bool(git("status", "--porcelain", "--untracked-files=no"))
    counter = build_counter(out)
    meta["malloc_counter"] = counter or "n/a (cc failed)"
    log(f"output in {out}; agc at commit {meta['commit'][:12]}{' (dirty)' if meta['dirty'] else ''}")

    pythons, unavailable, versions = prepare_venv(args.venv, frameworks, not args.no_install)
    meta["venv"] = str(args.venv)
    meta["install"] = {k: v for k, v in unavailable.items()}
    meta["versions"] = versions

    base_env = dict(os.environ)
    base_env.update(AGC_BIN=str(agc_bin), JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1")
    base_env.pop("LD_PRELOAD", None)
    results = []
    meta["load_before"] = os.getloadavg()
    for workload in workloads:
        spec_frameworks = workload_frameworks(workload)
        for t in threads:
            for fw in ORDER:
                if fw not in frameworks:
                    continue
                if fw not in spec_frameworks:
                    continue
                if fw in unavailable:
                    results.append({"workload": workload, "framework": fw, "threads": t,
                                    "error": unavailable[fw], "cases": []})
                    continue
                results.append(run_one(pythons[fw], workload, fw, t, out, args.quick, base_env, timeout))
        if "agc" in frameworks and "agc" not in unavailable and counter:
            env = dict(base_env, LD_PRELOAD=counter)
            r = run_one(pythons["agc"], workload, "agc", 1, out, args.quick, env, timeout, count=True)
            r["count_mallocs"] = True
            results.append(r)
    meta["load_after"] = os.getloadavg()

    report = render(results, meta, workloads, threads, frameworks)
    print(report)
    (out / "table.md").write_text(report + "\n")
    (out / "results.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    log(f"wrote {out / 'table.md'} and {out / 'results.json'}")


def log(msg):
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def git(*args):
    try:
        return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def machine_info():
    info = {"python": platform.python_version(), "cpus": os.cpu_count()}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in lscpu.splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Model name":
                info["cpu"] = value.strip()
            if key.strip() == "Flags":
                flags = value.split()
                info["avx512f"] = "avx512f" in flags
                info["avx2"] = "avx2" in flags
    except OSError:
        pass
    return info


def build_counter(out):
    """Compiles malloc_count.c; its path, or None."""
    so = out / "libmalloc_count.so"
    p = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(so), str(BENCH / "malloc_count.c")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        log("cannot compile malloc_count.c: " + p.stderr[-300:])
        return None
    return str(so)


def prepare_venv(venv, frameworks, install):
    """Creates and fills the virtual environment; returns (python per framework, {framework: reason}, versions)."""
    python = venv / "bin" / "python"
    unavailable, versions = {}, {}
    if not python.exists():
        log(f"creating the virtual environment {venv}")
        p = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
        if p.returncode != 0:
            log("venv failed: " + p.stderr[-300:])
    pythons = {}
    for group, (reqs, modules, fws) in PEERS.items():
        wanted = [f for f in fws if f in frameworks]
        if not wanted and group != "base":  # numpy is needed by every worker
            continue
        ok, detail = importable(python, modules)
        if not ok and install and python.exists():
            log(f"installing {' '.join(reqs)} (this can take minutes: torch from PyPI brings CUDA libraries)")
            p = subprocess.run([str(python), "-m", "pip", "install", "-q", *reqs], capture_output=True, text=True)
            if p.returncode != 0:
                detail = "pip: " + (p.stderr.strip().splitlines() or ["failed"])[-1][:160]
            else:
                ok, detail = importable(python, modules)
        if ok:
            versions[group] = detail
            for f in wanted:
                pythons[f] = str(python)
        elif group == "base":
            # agc and numpy run with this Python when the environment has no numpy
            ok2, detail2 = importable(Path(sys.executable), "numpy")
            for f in wanted:
                if f == "agc" and ok2:
                    pythons[f] = sys.executable
                elif f == "numpy" and importable(Path(sys.executable), "numpy, threadpoolctl")[0]:
                    pythons[f] = sys.executable
                else:
                    unavailable[f] = f"not installed ({detail})"
        else:
            for f in wanted:
                unavailable[f] = f"not installed ({detail})"
    return pythons, unavailable, versions


def importable(python, modules):
    """(True, versions) if `python` imports `modules` (comma-separated), else (False, why)."""
    if not Path(python).exists():
        return False, "no virtual environment"
    names = [m.strip() for m in modules.split(",")]
    code = "import " + ", ".join(names) + "; print(' '.join(f'{m.__name__} {getattr(m, \"__version__\", \"\")}'" \
           " for m in (" + ", ".join(names) + ",)))"
    try:
        p = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", JAX_PLATFORMS="cpu"))
    except subprocess.TimeoutExpired:
        return False, "import timed out"
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["import failed"])[-1]
        return False, last[:160]
    return True, p.stdout.strip()


def workload_frameworks(workload):
    text = (BENCH / "workloads" / workload / "workload.py").read_text()
    ns = {}
    for line in text.splitlines():
        if line.startswith("FRAMEWORKS"):
            exec(line, ns)  # our own one-line tuple literal
    return ns.get("FRAMEWORKS", tuple(FRAMEWORKS))


def run_one(python, workload, fw, threads, out, quick, base_env, timeout, count=False):
    cmd = [python, str(BENCH / "worker.py"), "--workload", workload, "--framework", fw,
           "--threads", str(threads), "--out", str(out)]
    if quick:
        cmd.append("--quick")
    if count:
        cmd.append("--count-mallocs")
    what = f"{workload} / {fw} / {threads} thread{'s' if threads > 1 else ''}" + (" (mallocs)" if count else "")
    log(f"running {what}")
    t0 = time.perf_counter()
    result, tail = run_process(cmd, thread_env(base_env, fw, threads), timeout, threads)
    if result is None:
        result = {"workload": workload, "framework": fw, "threads": threads, "cases": [],
                  "error": "process failed: " + tail.strip().splitlines()[-1][:160] if tail.strip() else "process failed",
                  "output": tail}
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    status = result.get("error") or "; ".join(
        f"{c['label']}: " + (f"{c['throughput']:.4g}" if "throughput" in c else c.get("error", "counted"))
        for c in result["cases"])
    log(f"  {status} ({result['wall_s']} s)")
    return result


# ---------------------------------------------------------------------------
# The report


def fmt(x):
    if x >= 1e6:
        return f"{x / 1e6:.3g}M"
    if x >= 1e3:
        return f"{x / 1e3:.3g}k"
    return f"{x:.3g}"


def render(results, meta, workloads, threads, frameworks):
    import importlib

    cols = [f for f in FRAMEWORKS if f in frameworks]
    notes, note_ids = [], {}

    def note(text):
        if text not in note_ids:
            notes.append(text)
            note_ids[text] = len(notes)
        return f"[{note_ids[text]}]"

    timed = [r for r in results if not r.get("count_mallocs")]

    def table(key, thread_counts):
        lines = ["| workload | unit | threads | " + " | ".join(cols) + " | best peer | agc ÷ best |",
                 "|---|---|---|" + "---|" * len(cols) + "---|---|"]
        for workload in workloads:
            sys.path.insert(0, str(BENCH / "workloads" / workload))
            sys.modules.pop("workload", None)
            spec = importlib.import_module("workload")
            sys.path.pop(0)
            for t in thread_counts:
                rows = {r["framework"]: r for r in timed if r["workload"] == workload and r["threads"] == t}
                if not rows:
                    continue
                labels = list(dict.fromkeys(c["label"] for r in rows.values() for c in r["cases"]))
                for label in labels or [spec.TITLE]:
                    lines.append(row(spec, label, t, rows, key))
        return "\n".join(lines)

    def row(spec, label, t, rows, key):
        cells, values = [], {}
        for fw in cols:
            r = rows.get(fw)
            if r is None:
                cells.append("–")
                continue
            case = next((c for c in r["cases"] if c["label"] == label), None)
            err = r.get("error") or (case or {}).get("error")
            if case is None and not err:
                err = "no result"
            if err:
                ref = note(f"{fw}, {label}, {t} thread(s): {err}")
                short = err if len(err) <= 60 else err[:57] + "..."
                cells.append(f"agc: error {short} {ref}" if fw == "agc" else f"n/a {ref}")
                continue
            if case.get(key) is None:
                cells.append("–")
                continue
            values[fw] = case[key]
            cell = fmt(case[key])
            chk = case.get("check")
            if chk and not chk["ok"]:
                cell += " " + note(f"{fw}, {label}: result differs from {chk['ref']}'s "
                                   f"(rel err {chk['rel_err']:.1e})")
            elif fw == "agc" and not chk:
                cell += " " + note("agc's result not checked: no peer result to compare with")
            cells.append(cell)
        peers = {f: v for f, v in values.items() if f != "agc"}
        best = max(peers, key=peers.get) if peers else None
        ratio = f"{values['agc'] / peers[best]:.2f}" if best and "agc" in values else "–"
        return f"| {label} | {spec.UNIT} | {t} | " + " | ".join(cells) + f" | {best or '–'} | {ratio} |"

    sections = ["Throughput by wall time (median of the timed repetitions; higher is better):\n\n"
                + table("throughput", threads)]
    if 1 in threads:
        sections.append("The 1-thread rows again, by the CPU time of the process (all its threads) instead of "
                        "wall time: less sensitive to other programs on a busy machine:\n\n"
                        + table("cpu_throughput", [1]))

    alloc = [r for r in results if r.get("count_mallocs")]
    if alloc:
        rows = ["| workload | export calls counted | mallocs per call | bytes per call | frees per call "
                "| reallocs per call |", "|---|---|---|---|---|---|"]
        for r in alloc:
            for c in r["cases"] or [{"label": r["workload"], "error": r.get("error", "no result")}]:
                m = c.get("mallocs")
                if m:
                    rows.append(f"| {c['label']} | {m['calls']} | {m['mallocs']:.1f} | {fmt(m['bytes'])} | "
                                f"{m['frees']:.1f} | {m.get('reallocs', 0):.1f} |")
                else:
                    rows.append(f"| {c['label']} | – | n/a: {r.get('error') or c.get('error')} | | | |")
        sections.append("Allocations of agc per export call (LD_PRELOAD counter, after warm-up; a malloc "
                        "count includes reallocs, which free their old block without a free):\n\n"
                        + "\n".join(rows))

    host = [(r["threads"], c) for r in timed if r["workload"] == "host_call" and r["framework"] == "agc"
            for c in r["cases"] if "extra" in c]
    for t, c in host:
        e = c["extra"]
        parts = [f"from Python through prepared ctypes tensors {1e9 / c['throughput']:.0f} ns/call",
                 f"through agc.load's wrapper {e['python_agc_load_ns']:.0f} ns/call"]
        if "c_ns_per_call" in e:
            parts.insert(0, f"from C {e['c_ns_per_call']:.0f} ns/call ({int(e['c_calls'])} calls, each "
                            f"releasing its result" + (f"; {e['c_mallocs_per_call']:.1f} mallocs, "
                                                        f"{e['c_bytes_per_call']:.0f} bytes per call)"
                                                        if "c_mallocs_per_call" in e else ")"))
        if "c_into_ns_per_call" in e:
            parts.insert(1, f"_into from C {e['c_into_ns_per_call']:.0f} ns/call")
        if "c_error" in e:
            parts.append(f"C driver failed: {e['c_error']}")
        sections.append(f"Host overhead of agc (4-element add), {t} thread(s): " + "; ".join(parts) + ".")

    facts = []
    for r in timed:
        if r["framework"] == "numpy" and r.get("info", {}).get("blas"):
            b = r["info"]["blas"][0]
            facts.append(f"numpy {r['info'].get('version')} ({r['threads']} thread(s)): threadpoolctl shows "
                         f"{b.get('internal_api')} {b.get('version')}, kernel {b.get('architecture')}, "
                         f"{b.get('num_threads')} thread(s) (OPENBLAS_CORETYPE/L2_SIZE unset in that process)")
        if r["framework"] == "agc" and "honours_threads" in r.get("info", {}):
            facts.append("agc libraries " + ("export" if r["info"]["honours_threads"] else "do not export")
                         + " <NAME>_set_num_threads at this commit"
                         + ("" if r["info"]["honours_threads"] else
                            ": AGC_NUM_THREADS is set but agc runs on one thread in every row"))
    checks = {}
    for r in timed:
        for c in r["cases"]:
            chk = c.get("check")
            if chk:
                errs = checks.setdefault((c["label"], chk["ref"]), {})
                errs[r["framework"]] = max(errs.get(r["framework"], 0.0), chk["rel_err"])
    agc_ref = {label: ref for (label, ref), errs in checks.items() if "agc" in errs}
    for (label, ref), errs in checks.items():
        if agc_ref.get(label, ref) != ref:
            continue
        facts.append(f"{label}: results checked against {ref}'s before timing, largest relative difference "
                     + ", ".join(f"{fw} {e:.1e}" for fw, e in errs.items()))
    facts = list(dict.fromkeys(facts))
    head = (f"Machine: {meta.get('cpu')} ({meta.get('cpus')} CPUs, avx512f: {meta.get('avx512f')}, "
            f"avx2: {meta.get('avx2')}); agc commit {meta.get('commit', '')[:12]}"
            f"{' (dirty)' if meta.get('dirty') else ''}, compiler binary built {meta['agc_bin']['built']}; "
            f"{meta['date']}; load average before "
            f"{meta['load_before'][0]:.2f}, after {meta['load_after'][0]:.2f}"
            f"{'; --quick' if meta.get('quick') else ''}.\nVersions: "
            + "; ".join(meta.get("versions", {}).values()) + ".")
    sections.insert(0, head)
    if facts:
        sections.append("Notes:\n" + "\n".join(f"- {f}" for f in facts))
    if notes:
        sections.append("\n".join(f"[{i + 1}] {n}" for i, n in enumerate(notes)))
    return "\n\n".join(sections)


if __name__ == "__main__":
    main()
