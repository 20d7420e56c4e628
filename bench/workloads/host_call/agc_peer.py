"""agc's host call from Python (prepared tensors through ctypes, result released), plus the same
through `agc.load`'s wrapper and from C (`driver.c`, compiled here with cc)."""

import os
import re
import subprocess
from pathlib import Path

from agc_call import Raw
from timing import median_time

HERE = Path(__file__).resolve().parent


def setup(case, data, lib):
    raw = Raw(lib, "add4")
    args = raw.prepare([data["x"], data["y"]])

    class Impl:
        calls_per_run = 1

        def result(self):
            outs = raw.call(args)
            try:
                return raw.numpy(outs)
            finally:
                raw.release(outs)

        def run(self):
            raw.release(raw.call(args))

        def extra(self, quick):
            x, y = data["x"], data["y"]
            wrapper = median_time(lambda: lib.add4(x, y), reps=3 if quick else 7, min_rep=0.05)
            return {"python_agc_load_ns": 1e9 * wrapper["median"], **c_driver(lib, case["c_calls"])}

    return Impl()


def c_driver(lib, calls):
    """Compiles driver.c against the library and runs it; its key=value output as a dict."""
    out = lib.path.parent
    header = (out / "hostcall.h").read_text()

    def symbol(*names):
        return next((n for n in names if re.search(rf"\b{n}\s*\(", header)), None)

    add4 = symbol("hostcall_add4", "add4")
    into = symbol("hostcall_add4_into", "add4_into")
    release = symbol("hostcall_release")
    exe = out / "driver"
    cmd = ["cc", "-O2", str(HERE / "driver.c"), "-I", str(out), "-L", str(out), "-lhostcall",
           f"-Wl,-rpath,{out}", f"-DADD4={add4}", f"-DRELEASE={release}", "-ldl", "-o", str(exe)]
    if into and "DLTensor* out0)" in header.split(into, 1)[1].split(";", 1)[0]:
        cmd.append(f"-DADD4_INTO={into}")
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    p = subprocess.run([str(exe), str(calls)], capture_output=True, text=True, env=os.environ.copy())
    if p.returncode != 0:
        return {"c_error": (p.stdout + p.stderr).strip()[-300:]}
    result = {"c_calls": calls}
    for item in p.stdout.split():
        key, value = item.split("=")
        result["c_" + key] = float(value)
    return result
