"""The C-ABI misuse catalogue (tests/c/misuse.c) against the cabi library: every numbered case of
wrong arguments, result tensors, shape arrays, releases and threads returns its documented status
with a message and NULL results, and leaves the library working. Run natively against the shared
and the static library (built with -Werror), under valgrind, and under AddressSanitizer +
UndefinedBehaviorSanitizer."""

import os
import re
import shutil
import subprocess

import pytest

import harness

C_DIR = harness.TESTS / "c"
MODEL = C_DIR / "cabi.py"
SOURCE = C_DIR / "misuse.c"
MIN_CASES = 60
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]


@pytest.fixture(scope="module")
def lib_dir(builds):
    return builds.get(MODEL).parent


@pytest.fixture(scope="module")
def exe_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("c_misuse")


def compiler():
    cc = shutil.which("cc")
    assert cc, "no C compiler on PATH"
    return cc


def compile_misuse(lib_dir, exe_dir, static=False, flags=()):
    """misuse.c built warning-free against libcabi (.so, or .a when `static`), with extra `flags`."""
    exe = exe_dir / ("misuse" + ("_static" if static else "") + ("_sanitized" if flags else ""))
    cmd = [compiler(), "-std=c11", "-g", "-O1", "-Wall", "-Wextra", "-Werror", *flags, f"-I{C_DIR}", f"-I{lib_dir}",
           str(SOURCE), "-o", str(exe)]
    cmd += [str(lib_dir / "libcabi.a")] if static else [f"-L{lib_dir}", "-lcabi", f"-Wl,-rpath,{lib_dir}"]
    cmd += ["-lpthread", "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return exe


def run(cmd, env=None, timeout=120):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout,
                          env=None if env is None else {**os.environ, **env})


def check_catalogue(proc):
    """Every case printed `case N: ok`, numbered 1..n with n >= MIN_CASES, and the driver exited 0."""
    verdicts = re.findall(r"^case (\d+): (.*)$", proc.stdout, re.M)
    failed = [f"case {n}: {v}" for n, v in verdicts if v != "ok"]
    assert not failed, "\n".join(failed) + f"\n{proc.stderr[-3000:]}"
    assert [int(n) for n, _ in verdicts] == list(range(1, len(verdicts) + 1)), proc.stdout
    assert len(verdicts) >= MIN_CASES, f"only {len(verdicts)} misuse cases"
    assert f"CASES {len(verdicts)} FAILED 0" in proc.stdout, proc.stdout[-2000:]
    assert proc.returncode == 0, f"misuse exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


@pytest.mark.parametrize("static", [False, True], ids=["shared", "static"])
def test_misuse_catalogue(lib_dir, exe_dir, static):
    check_catalogue(run([compile_misuse(lib_dir, exe_dir, static=static)]))


def test_misuse_under_valgrind(lib_dir, exe_dir):
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    exe = compile_misuse(lib_dir, exe_dir)
    proc = run([valgrind, "--leak-check=full", "--error-exitcode=9", exe], timeout=300)
    check_catalogue(proc)
    assert "ERROR SUMMARY: 0 errors" in proc.stderr, proc.stderr[-3000:]
    assert "definitely lost: 0" in proc.stderr or "no leaks are possible" in proc.stderr, proc.stderr[-3000:]


def sanitizers_work(exe_dir):
    """Whether the C compiler builds and runs a trivial program with ASan + UBSan."""
    src = exe_dir / "trivial_sanitized.c"
    src.write_text("#include <stdlib.h>\nint main(void) { char* p = malloc(4); p[0] = 0; free(p); return 0; }\n")
    exe = exe_dir / "trivial_sanitized"
    built = subprocess.run([compiler(), *SANITIZE, str(src), "-o", str(exe)], capture_output=True, text=True)
    return built.returncode == 0 and run([exe]).returncode == 0


def test_misuse_under_address_and_undefined_behavior_sanitizers(lib_dir, exe_dir):
    if not sanitizers_work(exe_dir):
        pytest.skip("the C compiler cannot build a program with -fsanitize=address,undefined")
    exe = compile_misuse(lib_dir, exe_dir, static=True, flags=SANITIZE)
    # allocator_may_return_null: the out-of-memory case needs malloc to fail, not ASan to abort.
    env = {"ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1",
           "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    proc = run([exe], env=env)
    check_catalogue(proc)
    for report in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
        assert report not in proc.stderr, proc.stderr[-6000:]
