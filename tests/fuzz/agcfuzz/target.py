"""The system under test: `agc build` on a module, and calls through `agc.load` in a child process.

Calls run in a long-lived child (`caller_main.py`) that loads libraries and
answers one request per line, so a segfault or a hang in a compiled function
costs one child, never the fuzzer: the child is restarted and the call is
classified as a crash (signal or exit) or a timeout.
"""

import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CALLER = Path(__file__).resolve().parent / "caller_main.py"
DIAG = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


@dataclass
class BuildResult:
    status: str  # "ok" | "rejected" | "crash" | "timeout"
    so: Path = None
    line: int = None  # the diagnostic's line (rejected)
    message: str = ""  # the diagnostic (rejected) or what went wrong (crash)
    stderr: str = ""
    seconds: float = 0.0


def build(agc_bin, model, out_dir, name, timeout=120, opt_level=None, check_only=False):
    """`agc build model -o out_dir --name name` (or `agc check model`), classified."""
    args = [str(agc_bin), "build", str(model), "-o", str(out_dir), "--name", name]
    if check_only:
        args = [str(agc_bin), "check", str(model)]
    elif opt_level is not None:
        args.append(f"-O{opt_level}")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        return BuildResult("timeout", message=f"agc build ran over {timeout} s", stderr=err,
                           seconds=time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    err = proc.stderr
    so = Path(out_dir or ".") / f"lib{name}.so"
    if "panicked" in err or "RUST_BACKTRACE" in err:
        return BuildResult("crash", message="agc build: Rust panic: " + _panic_line(err), stderr=err, seconds=dt)
    if proc.returncode == 0:
        if check_only:
            return BuildResult("ok", stderr=err, seconds=dt)
        if not so.is_file():
            return BuildResult("crash", message="agc build: exit 0 but no library written", stderr=err, seconds=dt)
        return BuildResult("ok", so=so, stderr=err, seconds=dt)
    if proc.returncode == 1:
        m = DIAG.search(err)
        if m and Path(m["file"]).name == Path(model).name:
            return BuildResult("rejected", line=int(m["line"]), message=m["msg"].strip(), stderr=err, seconds=dt)
        return BuildResult("crash", message="agc build: exit 1 without a file:line:col diagnostic: "
                           + _first_line(err), stderr=err, seconds=dt)
    if proc.returncode == 2:
        return BuildResult("crash", message="agc build: internal error (exit 2): " + _first_line(err),
                           stderr=err, seconds=dt)
    if proc.returncode < 0:
        return BuildResult("crash", message=f"agc build: killed by signal {signal.Signals(-proc.returncode).name}",
                           stderr=err, seconds=dt)
    return BuildResult("crash", message=f"agc build: exit code {proc.returncode}: " + _first_line(err),
                       stderr=err, seconds=dt)


def _first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return "(no output)"


def _panic_line(text):
    for line in text.splitlines():
        if "panicked" in line:
            return line.strip()[:300]
    return _first_line(text)


@dataclass
class CallResult:
    status: str  # "ok" | "error" (agc.Error: a non-zero status) | "crash" | "timeout"
    results: tuple = None
    message: str = ""


class Caller:
    """A child process that calls compiled functions; restarted after a crash, a hang, or many libraries."""

    MAX_LIBS = 40

    def __init__(self, workdir, env=None):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.env = env
        self.proc = None
        self.libs = set()
        self.buf = b""
        self.errfile = None

    def _start(self):
        self.close()
        self.errfile = tempfile.TemporaryFile(dir=self.workdir)
        env = dict(os.environ, **(self.env or {}))
        self.proc = subprocess.Popen([sys.executable, str(CALLER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.errfile, env=env)
        self.libs, self.buf = set(), b""

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self.errfile is not None:
            self.errfile.close()
            self.errfile = None

    def _stderr_tail(self):
        if self.errfile is None:
            return ""
        self.errfile.seek(0)
        return self.errfile.read().decode(errors="replace")[-2000:]

    def _readline(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return b""
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def call(self, so, fn, inputs, timeout=60):
        so = str(so)
        if self.proc is None or self.proc.poll() is not None or (so not in self.libs and len(self.libs) >= self.MAX_LIBS):
            self._start()
        self.libs.add(so)
        req_in = self.workdir / "call_inputs.npz"
        req_out = self.workdir / "call_results.npz"
        np.savez(req_in, **{f"a{i}": a for i, a in enumerate(inputs)})
        if req_out.exists():
            req_out.unlink()
        msg = json.dumps({"so": so, "fn": fn, "inputs": str(req_in), "out": str(req_out)}) + "\n"
        try:
            self.proc.stdin.write(msg.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        line = self._readline(timeout)
        if line is None:
            self.proc.kill()
            self.proc.wait()
            tail = self._stderr_tail()
            self.proc = None
            return CallResult("timeout", message=f"call of {fn} ran over {timeout} s" + _tail(tail))
        if not line:
            rc = self.proc.wait()
            tail = self._stderr_tail()
            self.proc = None
            what = f"signal {signal.Signals(-rc).name}" if rc < 0 else f"exit code {rc}"
            return CallResult("crash", message=f"call of {fn} killed the process: {what}" + _tail(tail))
        reply = json.loads(line)
        if reply["status"] == "ok":
            with np.load(req_out) as f:
                results = tuple(f[f"r{i}"] for i in range(len(f.files)))
            return CallResult("ok", results=results)
        if reply["status"] == "error":
            return CallResult("error", message=reply["message"])
        return CallResult("crash", message=f"call of {fn} raised {reply['message']}")


def _tail(text):
    text = text.strip()
    return f"\nstderr: {text[-600:]}" if text else ""
