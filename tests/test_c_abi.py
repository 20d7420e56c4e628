"""The C ABI from C and C++ (tests/c): shared and static linking, errors, leaks, threads, dependencies."""

import re
import shutil
import subprocess

import numpy as np
import pytest

import harness

C_DIR = harness.TESTS / "c"
MODEL = C_DIR / "cabi.py"
SECOND = C_DIR / "second.py"
ALLOWED_DEPENDENCIES = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1"}


@pytest.fixture(scope="module")
def lib_dir(builds):
    return builds.get(MODEL).parent


@pytest.fixture(scope="module")
def second_dir(builds):
    return builds.get(SECOND).parent


@pytest.fixture(scope="module")
def exe_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("c_drivers")


def compile_driver(libs, exe_dir, source, static=False):
    """Compile tests/c/`source` against the libraries `libs` ({name: dir}) as docs/c-abi.md says."""
    is_cpp = source.endswith(".cpp")
    compiler = shutil.which("c++" if is_cpp else "cc")
    assert compiler, f"no {'C++' if is_cpp else 'C'} compiler on PATH"
    exe = exe_dir / (source.replace(".", "_") + ("_static" if static else ""))
    std = "-std=c++17" if is_cpp else "-std=c11"
    cmd = [compiler, std, "-g", "-O1", "-Wall", "-Wextra", f"-I{C_DIR}"]
    cmd += [f"-I{d}" for d in libs.values()] + [str(C_DIR / source), "-o", str(exe)]
    for name, d in libs.items():
        cmd += [str(d / f"lib{name}.a")] if static else [f"-L{d}", f"-l{name}", f"-Wl,-rpath,{d}"]
    cmd += ["-lm"] if static else []
    cmd += ["-lpthread"] if source == "threads.c" else []
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return exe


def run(cmd, timeout=300):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    return proc


def parse_results(stdout):
    """{label: ndarray} from the drivers' `RESULT label dtype ndim dims... : values...` lines."""
    out = {}
    for line in stdout.splitlines():
        if not line.startswith("RESULT "):
            continue
        head, _, values = line.partition(" :")
        _, label, dtype, ndim, *dims = head.split()
        assert len(dims) == int(ndim), line
        dtype = np.dtype(dtype)
        parse = float if dtype.kind == "f" else int
        data = np.array([parse(v) for v in values.split()], dtype=dtype)
        out[label] = data.reshape([int(d) for d in dims])
    return out


def expected_affine(B, t=0):
    module = harness.import_model(MODEL)
    x = np.array([module.x_value(i, t) for i in range(B * 4)], np.float32).reshape(B, 4)
    w = np.array([module.w_value(i) for i in range(12)], np.float32).reshape(4, 3)
    b = np.array([module.b_value(i) for i in range(3)], np.float32)
    return harness.eager(harness.exports(module)["affine"], [x, w, b])


def expected_sumsq(n):
    module = harness.import_model(MODEL)
    v = np.array([module.v_value(i) for i in range(n)], np.float64)
    return harness.eager(harness.exports(module)["sumsq"], [v])[0]


def check_driver_output(proc, B, labels=("affine",)):
    assert proc.returncode == 0, f"driver failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    assert "DONE" in proc.stdout
    got = parse_results(proc.stdout)
    y, idx = expected_affine(B)
    for label in labels:
        harness.assert_matches(got[f"{label}.y"], y, f"{label}.y from C")
    harness.assert_matches(got["affine.idx"], idx, "affine.idx from C")
    errors = re.findall(r"^ERROR (-?\d+) (.*)$", proc.stdout, re.M)
    assert errors, proc.stdout
    for status, message in errors:
        assert int(status) == 1, f"a bad tensor is AGC_STATUS_INVALID_ARGUMENT (1), got {status}: {message!r}"
        assert re.search(r"\bx\b", message), f"the message should name parameter x: {message!r}"
    if len(errors) > 1:  # basic.c's ndim 0x7fffffff case
        assert "ndim 2147483647" in errors[1][1], errors[1][1]
    return got


@pytest.mark.parametrize("B", [1, 3, 8])
def test_c_program_against_shared_library(lib_dir, exe_dir, B):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "basic.c")
    got = check_driver_output(run([exe, B]), B, labels=("affine", "offset", "strided"))
    harness.assert_matches(got["sumsq"], expected_sumsq(5), "sumsq from C")


def test_cpp_program_against_shared_library(lib_dir, exe_dir):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "basic.cpp")
    check_driver_output(run([exe, 4]), 4)


def test_c_program_against_static_library(lib_dir, exe_dir):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "basic.c", static=True)
    deps = run(["ldd", exe]).stdout
    assert "cabi" not in deps, f"the static build still needs the shared library:\n{deps}"
    check_driver_output(run([exe, 2]), 2)


def test_header_documents_the_exports(lib_dir):
    header = (lib_dir / "cabi.h").read_text()
    for word in ("cabi_affine", "cabi_sumsq", "cabi_last_error", "cabi_release", "cabi_metadata", "cabi_set_num_threads", "B", "N", "x", "w", "v"):
        assert re.search(rf"\b{word}\b", header), f"cabi.h does not mention {word}"


@pytest.mark.parametrize("language", ["c99", "c++11"])
@pytest.mark.parametrize("dlpack_first", [False, True], ids=["own-types", "dlpack-first"])
def test_headers_compile_alone_and_together(lib_dir, second_dir, exe_dir, language, dlpack_first):
    compiler = shutil.which("c++" if language.startswith("c++") else "cc")
    cmd = [compiler, f"-std={language}", "-x", "c++" if language.startswith("c++") else "c", "-Wall", "-Wextra",
           "-Werror", f"-I{lib_dir}", f"-I{second_dir}", f"-I{C_DIR}", "-c", str(C_DIR / "header_only.c"),
           "-o", str(exe_dir / f"header_{language}_{dlpack_first}.o")]
    if dlpack_first:
        cmd.append("-DAGC_TEST_DLPACK_FIRST")
    proc = run(cmd)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"


@pytest.mark.parametrize("static", [False, True], ids=["shared", "static"])
def test_two_libraries_in_one_program(lib_dir, second_dir, exe_dir, static):
    exe = compile_driver({"cabi": lib_dir, "second": second_dir}, exe_dir, "two_libs.c", static=static)
    proc = run([exe])
    assert proc.returncode == 0, f"two_libs failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    got = parse_results(proc.stdout)
    harness.assert_matches(got["affine.y"], expected_affine(2)[0], "affine.y")
    module = harness.import_model(SECOND)
    m = np.arange(1.0, 7.0).reshape(3, 2)
    s = np.array([0.5, -1.0, 2.0])
    harness.assert_matches(got["scale_rows"], harness.eager(harness.exports(module)["scale_rows"], [m, s])[0],
                           "scale_rows")
    harness.assert_matches(got["second.affine"], harness.eager(harness.exports(module)["affine"], [m, s])[0],
                           "second.affine")


def test_no_leaks_or_invalid_accesses_under_valgrind(lib_dir, exe_dir):
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "leak.c")
    proc = run([valgrind, "--leak-check=full", "--error-exitcode=9", exe, 1000], timeout=600)
    assert proc.returncode == 0, f"valgrind exit {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-6000:]}"
    assert "DONE 1000" in proc.stdout
    assert "definitely lost: 0" in proc.stderr or "no leaks are possible" in proc.stderr, proc.stderr[-3000:]


def test_concurrent_calls_from_eight_threads(lib_dir, exe_dir):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "threads.c")
    proc = run([exe])
    assert proc.returncode == 0, f"threads driver failed:\n{proc.stdout}\n{proc.stderr}"
    got = parse_results(proc.stdout)
    for t in range(8):
        y, idx = expected_affine(t + 1, t)
        harness.assert_matches(got[f"thread{t}.y"], y, f"thread {t}")
        harness.assert_matches(got[f"thread{t}.idx"], idx, f"thread {t}")
    assert len(re.findall(r"THREAD \d+ mismatches 0 errors 0", proc.stdout)) == 8, proc.stdout


def test_shared_library_dependencies(lib_dir):
    proc = run(["ldd", lib_dir / "libcabi.so"])
    assert proc.returncode == 0, proc.stderr
    names = []
    for line in proc.stdout.splitlines():
        name = line.split()[0]
        if not re.match(r"^/.*ld-linux.*\.so", name) and not name.startswith("ld-linux"):
            names.append(name.split("/")[-1])
    extra = set(names) - ALLOWED_DEPENDENCIES
    assert not extra, f"libcabi.so depends on {sorted(extra)}:\n{proc.stdout}"


def test_only_the_api_is_exported(lib_dir):
    nm = shutil.which("nm")
    assert nm, "nm (binutils) is needed"
    proc = run([nm, "-D", "--defined-only", lib_dir / "libcabi.so"])
    assert proc.returncode == 0, proc.stderr
    # Every symbol starts with the library's NAME (CONTRACT section 3).
    api = {"cabi_affine", "cabi_sumsq", "cabi_project", "cabi_tree_grad", "cabi_last_error", "cabi_release",
           "cabi_metadata", "cabi_set_num_threads"}
    linker = {"_init", "_fini", "_edata", "_end", "__bss_start"}
    symbols = {line.split()[-1].split("@")[0] for line in proc.stdout.splitlines() if line.strip()}
    assert api <= symbols, f"missing API symbols: {sorted(api - symbols)}"
    leaked = symbols - api - linker
    assert not leaked, f"symbols beyond the API are exported: {sorted(leaked)[:20]}"


def test_shared_library_has_its_soname(lib_dir):
    readelf = shutil.which("readelf")
    assert readelf, "readelf (binutils) is needed"
    proc = run([readelf, "-d", lib_dir / "libcabi.so"])
    assert re.search(r"\(SONAME\)\s+Library soname: \[libcabi\.so\]", proc.stdout), proc.stdout


@pytest.mark.parametrize("language", ["c11", "c++17"])
def test_parameters_with_reserved_names_get_a_header_that_compiles(builds, exe_dir, language):
    """errno, NULL, _Bool, DLTensor, int32_t, ...: renamed in the header, which compiles after the
    standard headers that define them."""
    lib = builds.get(C_DIR / "reserved_names.py").parent
    header = (lib / "reserved_names.h").read_text()
    for name in ("NULL_", "errno_", "DLTensor_", "p_Bool", "p_Atomic", "int32_t_", "AGC_STATUS_OK_", "int_"):
        assert re.search(rf"const DLTensor\* {name}\b", header), f"no parameter {name} in:\n{header}"
    is_cpp = language.startswith("c++")
    compiler = shutil.which("c++" if is_cpp else "cc")
    cmd = [compiler, f"-std={language}", "-x", "c++" if is_cpp else "c", "-Wall", "-Wextra", "-Werror", "-pedantic",
           f"-I{lib}", "-c", str(C_DIR / "reserved_names.c"), "-o", str(exe_dir / f"reserved_{language}.o")]
    proc = run(cmd)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
