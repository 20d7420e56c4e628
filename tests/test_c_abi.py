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
    proc = run([exe, 4])
    got = check_driver_output(proc, 4)
    y, idx = expected_affine(4)
    harness.assert_matches(got["into.y"], y, "affine_into y from C++")
    harness.assert_matches(got["into.idx"], idx, "affine_into idx from C++")
    bad = bad_lines(proc.stdout)
    assert bad["null"][0] == 1 and "out0" in bad["null"][1], bad


def test_cpp_header_owns_results_and_throws(lib_dir, exe_dir):
    """cabi.hpp: results as owned tensors (a std::tuple for affine), _into, and cabi::Error with
    the status and message for a bad argument and for out of memory."""
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "hpp.cpp")
    proc = run([exe, 4])
    got = check_driver_output(proc, 4, labels=("affine", "into"))
    harness.assert_matches(got["into.idx"], expected_affine(4)[1], "affine_into idx from C++")
    harness.assert_matches(got["sumsq"], expected_sumsq(5), "sumsq from C++")
    oom = bad_lines(proc.stdout)["oom"]
    assert oom[0] == 2 and "chain" in oom[1] and "out of memory" in oom[1], oom


# The argument of positives in into.c (mirrors its px array).
POSITIVES_X = [1.5, -2.0, 0.0, 3.25, -0.5, 4.0, 2.0]


def bad_lines(stdout):
    """{what: (status, message)} from the drivers' `BAD what status message` lines."""
    return {what: (int(status), message)
            for what, status, message in re.findall(r"^BAD (\S+) (-?\d+) (.*)$", stdout, re.M)}


def check_into_output(proc, B, counted=True):
    """into.c's output for batch B: shapes, results vs numpy and vs cabi_affine, rejected result
    tensors, and (when `counted`: not under valgrind, which replaces the counting malloc) no heap
    allocation in 100 steady-state calls."""
    assert proc.returncode == 0, f"into driver failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    assert "DONE" in proc.stdout, proc.stdout
    shapes = {label: [int(d) for d in dims.split()]
              for label, dims in re.findall(r"^SHAPE (\S+) \d+((?: -?\d+)*)$", proc.stdout, re.M)}
    assert shapes["affine.out0"] == [B, 3] and shapes["affine.out1"] == [B], shapes
    assert shapes["sumsq.out0"] == [], shapes
    assert shapes["positives.out0"] == [-1], f"a data-dependent length is -1: {shapes}"

    got = parse_results(proc.stdout)
    y, idx = expected_affine(B)
    for label in ("into", "offset", "alias", "steady"):
        harness.assert_matches(got[f"{label}.y"], y, f"{label}.y from affine_into")
    harness.assert_matches(got["into.idx"], idx, "into.idx from affine_into")
    np.testing.assert_array_equal(got["into.y"], got["plain.y"], "affine_into and affine differ")
    np.testing.assert_array_equal(got["into.idx"], got["plain.idx"], "affine_into and affine differ")
    harness.assert_matches(got["into.sumsq"], expected_sumsq(5), "sumsq_into")
    module = harness.import_model(MODEL)
    kept, count = harness.eager(harness.exports(module)["positives"], [np.array(POSITIVES_X, np.float32)])
    harness.assert_matches(got["positives.into"], kept, "positives_into")
    harness.assert_matches(got["positives.count"], count, "positives_into count")
    w3 = np.array([module.w_value(i) for i in range(9)], np.float32).reshape(3, 3)
    leaves = np.array([module.x_value(i) for i in range(9)], np.float32).reshape(3, 3)
    dw, dleaves = harness.eager(harness.exports(module)["tree_grad"],
                                [w3, leaves, np.array([1, -1, -1]), np.array([2, -1, -1])])
    harness.assert_matches(got["tree.dw"], dw, "tree_grad_into dw")
    harness.assert_matches(got["tree.dleaves"], dleaves, "tree_grad_into dleaves")

    bad = bad_lines(proc.stdout)
    expected_bad = {"result_shapes.x", "shape", "rank", "dtype", "null", "device", "data", "positives.length"}
    expected_bad |= {"strides"} if B > 1 else set()
    assert set(bad) == expected_bad, bad
    for what, (status, message) in bad.items():
        assert status == 1, f"{what}: AGC_STATUS_INVALID_ARGUMENT (1) expected, got {status}: {message}"
        name = "positives" if what.startswith("positives") else "affine"
        assert message.startswith(f"{name}: "), f"{what}: the message names the export: {message!r}"
        if what != "result_shapes.x":
            assert "'out0'" in message, f"{what}: the message names the result: {message!r}"
    assert f"({B}, 3)" in bad["shape"][1] and f"({B + 1}, 3)" in bad["shape"][1], bad["shape"]
    assert "float64" in bad["dtype"][1], bad["dtype"]
    assert "C-contiguous" in bad.get("strides", (1, "C-contiguous"))[1], bad["strides"]
    n = len(kept)
    assert f"({n},)" in bad["positives.length"][1] and f"({n + 1},)" in bad["positives.length"][1], \
        bad["positives.length"]

    allocs = dict(re.findall(r"^ALLOCS (\S+) (\d+)$", proc.stdout, re.M))
    if counted:
        assert allocs["probe"] == "1", f"the driver's malloc counter does not count: {allocs}"
        assert int(allocs["cold_affine_into"]) > 0, f"the counter does not see the library's mallocs: {allocs}"
        for what in ("affine_into", "sumsq_into", "affine_result_shapes", "tree_grad_into"):
            assert allocs[what] == "0", f"100 steady-state calls of {what} allocated {allocs[what]} times"


@pytest.mark.parametrize("B", [1, 3, 8])
def test_into_and_result_shapes_from_c(lib_dir, exe_dir, B):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "into.c")
    check_into_output(run([exe, B]), B)


def test_into_from_c_against_static_library(lib_dir, exe_dir):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "into.c", static=True)
    check_into_output(run([exe, 2]), 2)


def test_into_under_valgrind(lib_dir, exe_dir):
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "into.c")
    proc = run([valgrind, "--leak-check=full", "--error-exitcode=9", exe, 3], timeout=600)
    assert proc.returncode == 0, f"valgrind exit {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-6000:]}"
    check_into_output(proc, 3, counted=False)
    assert "definitely lost: 0" in proc.stderr or "no leaks are possible" in proc.stderr, proc.stderr[-3000:]


def test_c_program_against_static_library(lib_dir, exe_dir):
    exe = compile_driver({"cabi": lib_dir}, exe_dir, "basic.c", static=True)
    deps = run(["ldd", exe]).stdout
    assert "cabi" not in deps, f"the static build still needs the shared library:\n{deps}"
    check_driver_output(run([exe, 2]), 2)


def test_header_documents_the_exports(lib_dir):
    header = (lib_dir / "cabi.h").read_text()
    for word in ("cabi_affine", "cabi_affine_into", "cabi_affine_result_shapes", "cabi_sumsq", "cabi_last_error", "cabi_release", "cabi_metadata", "cabi_set_num_threads", "B", "N", "x", "w", "v"):
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
    exports = ("affine", "sumsq", "project", "positives", "tree_grad", "chain")
    api = {f"cabi_{e}{suffix}" for e in exports for suffix in ("", "_into", "_result_shapes")}
    api |= {"cabi_last_error", "cabi_release", "cabi_metadata", "cabi_set_num_threads"}
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


@pytest.mark.parametrize("language", ["c11", "c++14"])
def test_every_test_models_header_compiles_strictly(builds, exe_dir, language):
    """The headers (.h in C, .hpp in C++) of every model of tests/models, all included in one
    translation unit, compile with -Wall -Wextra -Werror -pedantic: names that reach C are valid,
    and several libraries' headers coexist."""
    is_cpp = language.startswith("c++")
    libs = [builds.get(p).parent for p in harness.model_paths()]
    suffix = "hpp" if is_cpp else "h"
    headers = sorted({str(h) for lib in libs for h in lib.glob(f"*.{suffix}")})
    assert len(headers) == len(libs), (len(headers), len(libs))
    unit = exe_dir / f"all_headers_{language}.{'cpp' if is_cpp else 'c'}"
    unit.write_text("".join(f'#include "{h}"\n' for h in headers) + "int main(void) { return 0; }\n")
    compiler = shutil.which("c++" if is_cpp else "cc")
    cmd = [compiler, f"-std={language}", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only", str(unit)]
    proc = run(cmd)
    assert proc.returncode == 0, f"{' '.join(cmd[:7])}\n{proc.stderr[-4000:]}"


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
    if is_cpp:  # and the C++ layer, whose functions and parameters carry the same names
        unit = exe_dir / "reserved_hpp.cpp"
        unit.write_text('#include <cerrno>\n#include <cstddef>\n#include "reserved_names.hpp"\nint main() { return 0; }\n')
        cmd = [compiler, f"-std={language}", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{lib}", "-fsyntax-only",
               str(unit)]
        proc = run(cmd)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
