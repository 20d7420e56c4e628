"""The command line and agc.build options: outputs, --name, --emit, -O levels, check, errors."""

import re

import numpy as np
import pytest

import agc
import harness

MODEL = harness.MODELS / "mlp_mnist.py"
PANIC_TEXT = ("panicked at", "RUST_BACKTRACE")


def _check_numbers(lib_path, model=MODEL, export_name="predict"):
    module = harness.import_model(model)
    export = harness.exports(module)[export_name]
    lib = agc.load(lib_path)
    inputs = harness.make_inputs(module, export, harness.rng_for("cli", lib_path.name), harness.dim_sizes(module))
    harness.check_call(lib.functions[export_name], export, inputs, f"{lib_path.name}:{export_name}")
    return lib


def test_build_writes_library_archive_header(builds):
    so = builds.get(MODEL)
    out = so.parent
    assert so.name == "libmlp_mnist.so"
    assert (out / "libmlp_mnist.a").is_file()
    assert (out / "mlp_mnist.h").is_file()


def test_name_option(builds):
    so = builds.get(MODEL, name="digits")
    assert so.name == "libdigits.so"
    assert (so.parent / "digits.h").is_file() and (so.parent / "libdigits.a").is_file()
    lib = _check_numbers(so)
    assert lib.metadata["module"] == "digits"


@pytest.mark.parametrize("level", [0, 3])
def test_opt_levels_agree_with_numpy(builds, level):
    _check_numbers(builds.get(MODEL, opt_level=level))


def test_emit_writes_one_file_per_kind(builds):
    plain = {p.name for p in builds.get(MODEL).parent.iterdir()}
    so = builds.get(MODEL, emit=("ir", "mlir", "llvm", "asm"))
    emitted = {p.name for p in so.parent.iterdir()} - plain
    assert len(emitted) >= 4, f"--emit ir,mlir,llvm,asm wrote only {sorted(emitted)}"
    for path in so.parent.iterdir():
        if path.name in emitted:
            assert path.stat().st_size > 0, f"{path.name} is empty"
    _check_numbers(so)


def test_check_accepts_a_good_model_and_writes_nothing(agc_bin, tmp_path):
    proc = harness.run_agc(agc_bin, "check", MODEL, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "error" not in proc.stderr.lower()
    assert list(tmp_path.iterdir()) == []


def test_missing_model_file_is_a_user_error(agc_bin, tmp_path):
    proc = harness.run_agc(agc_bin, "build", tmp_path / "nope.py", "-o", tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    assert "nope.py" in proc.stderr
    assert not any(t in proc.stderr for t in PANIC_TEXT)


def test_unknown_flag_is_rejected(agc_bin, tmp_path):
    proc = harness.run_agc(agc_bin, "build", MODEL, "--no-such-flag", "-o", tmp_path / "out")
    assert proc.returncode == 1, "a command-line error is the user's error (exit 1; 2 is internal)"
    assert "--no-such-flag" in proc.stderr
    assert not any(t in proc.stderr for t in PANIC_TEXT)
    assert not (tmp_path / "out").exists()
    for args in (("--help",), ("build", "--help"), ("--version",)):
        proc = harness.run_agc(agc_bin, *args)
        assert proc.returncode == 0 and proc.stdout, args
    assert harness.run_agc(agc_bin).returncode == 1  # no subcommand


def test_build_error_raises_agc_error(agc_bin, tmp_path):
    bad = harness.TESTS / "diagnostics" / "undefined_name.py"
    with pytest.raises(agc.Error, match=r"undefined_name.py:8:\d+: error:") as info:
        agc.build(bad, tmp_path / "out")
    assert info.value.status == 1


def test_libraries_of_two_models_in_one_process(builds):
    a = _check_numbers(builds.get(harness.MODELS / "layer_norm.py"), harness.MODELS / "layer_norm.py", "rmsnorm")
    b = _check_numbers(builds.get(harness.MODELS / "gru_cell.py"), harness.MODELS / "gru_cell.py", "gru_cell")
    assert a.name != b.name
    with pytest.raises(agc.Error):
        a.rmsnorm(np.ones((2, 3), np.float32), np.ones(16, np.float32))
    assert b.last_error() == ""


def test_agc_build_names_the_library_as_the_cli_does(tmp_path):
    model = tmp_path / "my-model.py"
    model.write_text(MODEL.read_text())
    so = agc.build(model, tmp_path / "out")
    assert so.name == "libmy_model.so" and so.is_file()
    lib = _check_numbers(so, model=model)
    assert lib.name == "my_model"


def test_a_renamed_library_loads_by_its_soname(builds, tmp_path):
    import shutil

    renamed = tmp_path / "libsomething_else.so"
    shutil.copy(builds.get(MODEL), renamed)
    lib = _check_numbers(renamed)
    assert lib.name == "mlp_mnist" and lib.metadata["module"] == "mlp_mnist"


def test_missing_c_compiler_is_a_user_error(agc_bin, tmp_path):
    import os
    import subprocess

    env = {**os.environ, "CC": "no-such-cc-agc-test"}
    proc = subprocess.run([str(agc_bin), "build", str(MODEL), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "cannot find 'no-such-cc-agc-test'" in proc.stderr and "apt-get install" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_successful_build_prints_nothing(agc_bin, tmp_path):
    """LLVM reports each loop agc asked it to vectorise that it could not (numpy_signal.py has
    such loops): facts about the generated code, logged at debug level, never printed to users."""
    model = harness.TESTS / "models" / "numpy_signal.py"
    proc = harness.run_agc(agc_bin, "build", model, "-o", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == "", proc.stdout + proc.stderr


def test_verbose_output_into_a_pipe_has_no_colour_codes(agc_bin, tmp_path):
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", tmp_path / "out", "-v")
    assert proc.returncode == 0, proc.stderr
    assert "INFO" in proc.stderr and "\x1b[" not in proc.stderr


def test_target_and_fast_math_options(agc_bin, tmp_path):
    """--target-cpu/--target-features pick the code's CPU (recorded in the metadata); --fast-math
    builds code that still agrees with numpy to float32 tolerance; a foreign --target-triple is a
    clear error (cross-compiling is not supported yet), the host's is accepted."""
    out = tmp_path / "v3"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", out, "--target-cpu", "x86-64-v3",
                           "--target-features", "+avx2,+fma", "--target-triple", "x86_64-linux-gnu")
    assert proc.returncode == 0, proc.stderr
    lib = _check_numbers(out / "libmlp_mnist.so")
    assert lib.metadata["target"]["cpu"] == "x86-64-v3" and "+avx2" in lib.metadata["target"]["features"]
    fast = tmp_path / "fast"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", fast, "--fast-math", "--emit", "mlir")
    assert proc.returncode == 0, proc.stderr
    assert "fastmath<reassoc" in (fast / "mlp_mnist.mlir").read_text()
    _check_numbers(fast / "libmlp_mnist.so")
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", tmp_path / "arm", "--target-triple", "aarch64-linux-gnu")
    assert proc.returncode == 1 and "cross-compiling is not supported yet" in proc.stderr
    assert not (tmp_path / "arm").exists()


FAST_MATH_MODEL = """
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32["N"], y: agc.f32["N"]):
    return np.log(np.exp(x)) + (x * y) / y
"""


def test_fast_math_lets_the_optimiser_assume_finite_values(agc_bin, tmp_path):
    """With --fast-math, log(exp(x)) and (x*y)/y become x (the rule hits -v prints), and the
    results agree with numpy's on finite inputs; without it the ops stay."""
    model = tmp_path / "fm.py"
    model.write_text(FAST_MATH_MODEL)
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    y = np.linspace(0.5, 2, 50, dtype=np.float32)
    want = np.log(np.exp(x)) + (x * y) / y
    for flags, fired in ((["--fast-math"], True), ([], False)):
        out = tmp_path / ("fast" if fired else "exact")
        proc = harness.run_agc(agc_bin, "build", model, "-o", out, "-v", *flags)
        assert proc.returncode == 0, proc.stderr
        hits = re.search(r"rule hits: (.*)", proc.stderr).group(1)
        assert ("fm-log-exp" in hits and "fm-mul-div" in hits) == fired, hits
        got = agc.load(out / "libfm.so").f(x, y)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("option, value, expected", [
    ("--target-cpu", "znver9", r"unknown CPU 'znver9'.*did you mean 'znver\d'"),
    ("--target-cpu", "sapphirerapid", r"unknown CPU 'sapphirerapid'.*did you mean 'sapphirerapids'"),
    ("--target-features", "+avx2,+avx9", r"unknown feature 'avx9'"),
    ("--target-features", "avx2", r"'avx2' needs a sign"),
])
def test_unknown_cpu_and_feature_names_are_user_errors(agc_bin, tmp_path, option, value, expected):
    """LLVM only warns about a CPU or feature it does not know and builds for a generic one (or
    stops with 'LLVM ERROR'); agc checks the names against LLVM's lists first: exit 1, a message
    with the closest known name, and nothing written."""
    out = tmp_path / "out"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", out, option, value)
    assert proc.returncode == 1, proc.stderr
    assert re.search(expected, proc.stderr), proc.stderr
    assert "LLVM ERROR" not in proc.stderr and "not a recognized" not in proc.stderr
    assert not out.exists()


def test_native_cpu_is_the_build_machine(agc_bin, tmp_path):
    """--target-cpu native compiles for the build machine's CPU with all its features."""
    out = tmp_path / "native"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", out, "--target-cpu", "native")
    assert proc.returncode == 0, proc.stderr
    assert "not a recognized" not in proc.stderr
    lib = _check_numbers(out / "libmlp_mnist.so")
    assert lib.metadata["target"]["cpu"] not in ("", "native", "generic")


def test_a_cpu_without_the_library_features_gets_a_status(agc_bin, tmp_path):
    """A library compiled for features the CPU lacks (here: masked with AGC_CPU_MASK, or AVX-512
    on a CPU without it) returns AGC_STATUS_UNSUPPORTED_CPU naming them, never an illegal
    instruction. Run in child processes: the check's verdict is kept per process."""
    out = tmp_path / "avx512"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", out, "--target-features", "+avx512f,+avx512bw,+avx512vl")
    assert proc.returncode == 0, proc.stderr
    script = (
        "import sys, numpy as np, agc\n"
        "lib = agc.load(sys.argv[1])\n"
        "args = [np.zeros([d if isinstance(d, int) else 2 for d in p['shape']], p['dtype']) for p in lib.predict.params]\n"
        "try:\n    lib.predict(*args)\n    print('OK')\n"
        "except agc.Error as e:\n    print('STATUS', e.status, e)\n")
    import os
    import subprocess
    import sys

    def call(so, mask):
        env = {**os.environ, "AGC_CPU_MASK": mask}
        return subprocess.run([sys.executable, "-c", script, str(so)], capture_output=True, text=True,
                              env=env, timeout=120)

    masked = call(out / "libmlp_mnist.so", "avx512f")
    assert masked.returncode == 0 and "STATUS 6" in masked.stdout and "avx512f" in masked.stdout, masked
    default = tmp_path / "default"
    proc = harness.run_agc(agc_bin, "build", MODEL, "-o", default)
    assert proc.returncode == 0, proc.stderr
    features = agc.load(default / "libmlp_mnist.so").metadata["target"]["features"]
    present = [f[1:] for f in features.split(",") if f in ("+avx2", "+sse4.2", "+avx")]
    if present:
        masked = call(default / "libmlp_mnist.so", present[0])
        assert "STATUS 6" in masked.stdout and present[0] in masked.stdout, masked
    assert "OK" in call(default / "libmlp_mnist.so", "").stdout
