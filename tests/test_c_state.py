"""Contexts from C and C++ (CONTRACT.md section 5, docs/c-abi.md "Contexts: weights and
variables"): tests/c/state.c trains tests/c/state_model.py inside the library and is compared with
the same loop run eagerly; the saved variables restore bit-exactly in a new process and read with
the `safetensors` package; bad uses are error statuses with messages; readers, writers and savers
share one context (tests/c/state_threads.c); external weights (tests/c/state_weights_model.py)
are mapped from a file the test writes; a C++ program owns its context through a unique_ptr
(tests/c/state.cpp)."""

import re
import shutil

import numpy as np
import pytest
import safetensors.numpy

import harness
from test_c_abi import C_DIR, bad_lines, compile_driver, parse_results, run
from test_state import fresh_eager

MODEL = C_DIR / "state_model.py"
WEIGHTS_MODEL = C_DIR / "state_weights_model.py"
STEPS = 1000  # train_step calls of the main run
BATCH = 16
EVAL = 8
FEATURES = 6
UNWRITABLE = "/nonexistent/dir/x.safetensors"
LINKAGE = pytest.mark.parametrize("static", [False, True], ids=["shared", "static"])


@pytest.fixture(scope="module")
def lib_dir(builds):
    return builds.get(MODEL).parent


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("c_state")


@pytest.fixture(scope="module")
def drivers(lib_dir, work):
    """compile(source, static=False, libs=None) -> executable, each compiled once."""
    cache = {}

    def compile(source, static=False, libs=None):
        libs = libs or {"state_model": lib_dir}
        key = (source, static, tuple(sorted((k, str(v)) for k, v in libs.items())))
        if key not in cache:
            folder = work / f"exe{len(cache)}"
            folder.mkdir()
            cache[key] = compile_driver(libs, folder, source, static=static)
        return cache[key]

    return compile


class Data:
    """The training batches and the eval set, and the file state.c reads them from."""

    def __init__(self, path):
        rng = np.random.default_rng(20240611)
        self.x = rng.standard_normal((STEPS, BATCH, FEATURES)).astype(np.float32)
        self.y = ((self.x[..., 0] + self.x[..., 1] > 0).astype(np.int32)
                  + (self.x[..., 2] > 1).astype(np.int32))
        self.eval = rng.standard_normal((EVAL, FEATURES)).astype(np.float32)
        with open(path, "wb") as f:
            f.write(np.array([STEPS, BATCH, EVAL], np.int64).tobytes())
            f.write(self.x.tobytes())
            f.write(self.y.astype(np.int32).tobytes())
            f.write(self.eval.tobytes())
        self.path = path


@pytest.fixture(scope="module")
def data(work):
    return Data(work / "data.bin")


@pytest.fixture(scope="module")
def eager(data):
    """The oracle: the same model file run by CPython and numpy over the same batches."""
    model = fresh_eager(MODEL)
    initial = model.predict(data.eval)
    losses = np.array([model.train_step(data.x[s], data.y[s]) for s in range(STEPS)])
    return {"initial": initial, "losses": losses, "pred": model.predict(data.eval),
            "W": model.W.value, "b": model.b.value, "steps": int(np.asarray(model.step_count()))}


def check_ok(proc):
    assert proc.returncode == 0 and "DONE" in proc.stdout, \
        f"driver failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return parse_results(proc.stdout)


@pytest.fixture(scope="module")
def trained(drivers, data, work):
    """One `state train` run: its results and the file it saved."""
    saved = work / "saved" / "trained.safetensors"
    saved.parent.mkdir()
    got = check_ok(run([drivers("state.c"), "train", STEPS, data.path, saved]))
    return got, saved


def test_training_from_c_matches_eager(trained, eager):
    got, _ = trained
    harness.assert_matches(got["losses"], eager["losses"].astype(np.float32), f"{STEPS} losses from C")
    harness.assert_matches(got["pred"], eager["pred"], "predictions after training")
    assert int(got["steps"]) == STEPS == eager["steps"]
    assert eager["losses"][-100:].mean() < 0.6 * eager["losses"][0], "the model should learn something"


def test_into_with_a_context_equals_the_allocating_call(trained):
    """Context B ran train_step_into, A train_step, on the same batches: bit for bit the same."""
    got, _ = trained
    assert got["losses_into"].tobytes() == got["losses"].tobytes()
    assert got["pred_into"].tobytes() == got["pred"].tobytes(), "predict_into vs predict on context A"
    assert got["pred_b"].tobytes() == got["pred"].tobytes(), "context B (trained by _into) vs A"
    assert int(got["steps_into"]) == STEPS


def test_static_library_trains_the_same(drivers, data, trained, work):
    exe = drivers("state.c", static=True)
    assert "state_model" not in run(["ldd", exe]).stdout
    got = check_ok(run([exe, "train", STEPS, data.path, work / "static.safetensors"]))
    for label in ("losses", "losses_into", "pred", "pred_b", "steps"):
        assert got[label].tobytes() == trained[0][label].tobytes(), f"{label}: static vs shared"


@LINKAGE
def test_into_with_a_context_allocates_nothing_in_the_steady_state(drivers, data, static):
    """CONTRACT section 6: after warm-up, 100 calls of each export's _into on one context (the
    assigning train_step and bump as well as the readers) make no malloc/calloc/realloc/memalign."""
    proc = run([drivers("state.c", static=static), "allocs", data.path])
    got = check_ok(proc)
    allocs = {what: int(n) for what, n in re.findall(r"^ALLOCS (\S+) (\d+)$", proc.stdout, re.M)}
    assert allocs.pop("probe") == 1, f"the driver's malloc counter does not count: {proc.stdout}"
    assert int(got["steps"]) == 105 and float(got["level0"]) == 105.0
    assert set(allocs) == {"train_step_into", "bump_into", "predict_into", "step_count_into", "read_level_into"}
    assert allocs == dict.fromkeys(allocs, 0), f"heap allocations in 100 steady-state calls: {allocs}"


def test_saved_file_is_safetensors(trained, eager, data):
    got, saved = trained
    assert sorted(p.name for p in saved.parent.iterdir()) == [saved.name], "a temporary file was left behind"
    read = safetensors.numpy.load_file(str(saved))
    assert set(read) == {"W", "b", "steps", "level"}
    want = {"W": (np.float32, (6, 3)), "b": (np.float32, (3,)), "steps": (np.int64, ()), "level": (np.float64, (4096,))}
    for name, (dtype, shape) in want.items():
        assert read[name].dtype == dtype and read[name].shape == shape, f"{name}: {read[name].dtype} {read[name].shape}"
    harness.assert_matches(read["W"], eager["W"], "saved W")
    harness.assert_matches(read["b"], eager["b"], "saved b")
    assert int(read["steps"]) == STEPS
    assert not read["level"].any()
    # The C process's predictions are those of the saved W and b.
    harness.assert_matches(got["pred"], data.eval @ read["W"] + read["b"], "eval @ saved W + saved b")


@LINKAGE
def test_restore_in_a_new_process_is_bit_exact(drivers, data, trained, eager, static):
    got, saved = trained
    restored = check_ok(run([drivers("state.c", static=static), "restore", saved, data.path]))
    harness.assert_matches(restored["pred_initial"], eager["initial"], "a new context starts at the initial values")
    assert restored["pred"].tobytes() == got["pred"].tobytes(), "restored predictions differ from the saving process's"
    assert int(restored["steps"]) == STEPS


def test_restore_reads_a_file_numpy_wrote(drivers, data, work):
    rng = np.random.default_rng(3)
    tensors = {"W": rng.standard_normal((6, 3)).astype(np.float32), "b": np.array([1, -2, 0.5], np.float32),
               "steps": np.array(41, np.int64), "level": np.full(4096, 2.0)}
    path = work / "from_numpy.safetensors"
    safetensors.numpy.save_file(tensors, str(path))
    got = check_ok(run([drivers("state.c"), "restore", path, data.path]))
    harness.assert_matches(got["pred"], data.eval @ tensors["W"] + tensors["b"], "predictions from restored W, b")
    assert int(got["steps"]) == 41


@LINKAGE
def test_bad_uses_are_error_statuses(drivers, data, work, static):
    wrong = work / "wrong_shape.safetensors"
    safetensors.numpy.save_file({"W": np.zeros((6, 4), np.float32), "b": np.zeros(3, np.float32),
                                 "steps": np.zeros((), np.int64), "level": np.zeros(4096)}, str(wrong))
    missing = work / "no_such_file.safetensors"
    proc = run([drivers("state.c", static=static), "errors", data.path, wrong, missing, UNWRITABLE])
    got = check_ok(proc)
    bad = bad_lines(proc.stdout)
    expected = {"create_null", "train_step_null_ctx", "predict_null_ctx", "train_step_into_null_ctx",
                "save_null_ctx", "restore_null_ctx", "restore_missing", "restore_shape", "save_unwritable",
                "save_null_path", "restore_null_path", "train_step_shape", "train_step_label",
                "train_step_into_label", "train_step_into_result"}
    assert set(bad) == expected, proc.stdout
    for what, (status, message) in bad.items():
        want = 3 if what.endswith("_label") else 1  # AGC_STATUS_INDEX_OUT_OF_RANGE, else INVALID_ARGUMENT
        assert status == want, f"{what}: status {status}, expected {want}: {message!r}"
        assert message, f"{what}: no message"
    for what in ("train_step_null_ctx", "predict_null_ctx", "train_step_into_null_ctx", "save_null_ctx",
                 "restore_null_ctx", "create_null"):
        assert "ctx" in bad[what][1], f"{what}: the message should name ctx: {bad[what][1]!r}"
    for what in ("train_step_null_ctx", "train_step_into_null_ctx", "train_step_shape", "train_step_label",
                 "train_step_into_label", "train_step_into_result"):
        assert bad[what][1].startswith("train_step: "), f"{what}: the message names the export: {bad[what][1]!r}"
    assert bad["predict_null_ctx"][1].startswith("predict: "), bad["predict_null_ctx"]
    assert str(missing) in bad["restore_missing"][1], bad["restore_missing"]
    assert str(wrong) in bad["restore_shape"][1] and "'W'" in bad["restore_shape"][1], bad["restore_shape"]
    assert re.search(r"6, 4\b.*6, 3\b", bad["restore_shape"][1]), f"both shapes: {bad['restore_shape']}"
    assert UNWRITABLE in bad["save_unwritable"][1], bad["save_unwritable"]
    for what in ("save_null_path", "restore_null_path"):
        assert "path" in bad[what][1], bad[what]
    assert "'x'" in bad["train_step_shape"][1], bad["train_step_shape"]
    assert "out of bounds" in bad["train_step_label"][1], bad["train_step_label"]
    assert "'out0'" in bad["train_step_into_result"][1], bad["train_step_into_result"]
    # No failed call changed a variable; the context still works afterwards.
    unchanged = dict(re.findall(r"^UNCHANGED (\S+) (\d)$", proc.stdout, re.M))
    assert unchanged and set(unchanged.values()) == {"1"}, f"a failed call changed the variables: {unchanged}"
    assert int(got["steps_after"]) == 4
    assert not missing.exists()
    # numpy agrees that such a label is an error (np.eye(3)[5]).
    labels = data.y[0].copy()
    labels[-1] = 5
    with pytest.raises(IndexError):
        fresh_eager(MODEL).train_step(data.x[0], labels)


def valgrind_or_skip():
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.skip("valgrind is not installed (apt-get install valgrind)")
    return valgrind


def memcheck(cmd):
    proc = run([valgrind_or_skip(), "--leak-check=full", "--error-exitcode=9", *cmd], timeout=600)
    assert proc.returncode == 0, f"valgrind exit {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    assert "ERROR SUMMARY: 0 errors" in proc.stderr, proc.stderr[-3000:]
    assert "definitely lost: 0" in proc.stderr or "no leaks are possible" in proc.stderr, proc.stderr[-3000:]
    return proc


@pytest.mark.parametrize("mode", ["train", "errors"])
def test_no_leaks_or_invalid_accesses_under_valgrind(drivers, data, work, mode):
    exe = drivers("state.c")
    if mode == "train":
        proc = memcheck([exe, "train", 20, data.path, work / "memcheck.safetensors"])
        assert int(parse_results(proc.stdout)["steps"]) == 20
    else:
        wrong = work / "memcheck_wrong.safetensors"
        safetensors.numpy.save_file({"W": np.zeros((6, 3), np.float32), "b": np.zeros(4, np.float32),
                                     "steps": np.zeros((), np.int64), "level": np.zeros(4096)}, str(wrong))
        proc = memcheck([exe, "errors", data.path, wrong, work / "missing.safetensors", UNWRITABLE])
        assert len(bad_lines(proc.stdout)) == 15, proc.stdout


# ---------------------------------------------------------------- threads


def check_threads(proc, readers, steps):
    assert proc.returncode == 0 and "DONE" in proc.stdout, \
        f"state_threads failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    lines = re.findall(r"^READER (\d+) reads (\d+) torn (\d+) backwards (\d+) errors (\d+) last (\S+)$",
                       proc.stdout, re.M)
    assert len(lines) == readers, proc.stdout
    for t, reads, torn, backwards, errors, last in lines:
        assert int(reads) > 0, f"reader {t} never read"
        assert (torn, backwards, errors) == ("0", "0", "0"), \
            f"reader {t}: {torn} torn reads, {backwards} values going back, {errors} errors"
        assert float(last) == steps, f"reader {t}'s last read, after the writers finished: {last}"
    saver = re.search(r"^SAVER saves (\d+) torn (\d+) backwards (\d+) errors (\d+) last (\S+): (.*)$", proc.stdout, re.M)
    assert saver, proc.stdout
    assert int(saver.group(1)) > 0 and saver.group(2, 3, 4) == ("0", "0", "0"), \
        f"saved while the writers ran, then restored into another context: {saver.group(0)}"
    assert float(saver.group(5)) == steps, saver.group(0)
    writer = re.search(r"^WRITER bump errors (\d+) last_sum (\S+) train errors (\d+)$", proc.stdout, re.M)
    assert writer and writer.group(1) == "0" and writer.group(3) == "0", proc.stdout
    assert float(writer.group(2)) == 4096.0 * steps
    got = parse_results(proc.stdout)
    np.testing.assert_array_equal(got["final"], [steps, steps])
    assert int(got["steps"]) == steps


@LINKAGE
def test_readers_and_writers_share_one_context(drivers, work, static):
    """8 readers (read_level, read_level_into, step_count) and a saver while bump and train_step
    each run 1000 times on the same context: no torn read or save, nothing goes back, exact final
    values."""
    proc = run([drivers("state_threads.c", static=static), 8, STEPS, work / f"threads_{static}.safetensors"],
               timeout=120)
    check_threads(proc, 8, STEPS)


def test_concurrent_saves_to_one_path(drivers, work):
    """Three threads save one context to the same path while another restores from it: save
    holds the context shared, and writes a temporary file renamed over the path, so every save
    succeeds and a reader never sees half a file."""
    folder = work / "same_path"
    folder.mkdir()
    proc = run([drivers("state_threads.c"), "save", folder / "vars.safetensors", 3, 300], timeout=120)
    assert "DONE" in proc.stdout, f"{proc.stdout}\n{proc.stderr}"
    assert re.search(r"^SAVERS save_errors 0 restore_errors 0$", proc.stdout, re.M), proc.stdout
    assert proc.returncode == 0, proc.stdout
    assert [p.name for p in folder.iterdir()] == ["vars.safetensors"], "temporary files were left behind"


def test_readers_and_writers_under_helgrind(drivers, work):
    valgrind = valgrind_or_skip()
    # Statically linked: the runtime's local symbols name the frames of any report. Fair
    # scheduling: valgrind's default lets a reader that releases and retakes the lock at once
    # keep the CPU, starving the writers for minutes.
    exe = drivers("state_threads.c", static=True)
    # tests/c/helgrind.supp: the CPU check's OnceLock, whose atomics helgrind does not model.
    proc = run([valgrind, "--tool=helgrind", "--fair-sched=yes", f"--suppressions={C_DIR / 'helgrind.supp'}", exe, 2,
                20, work / "helgrind.safetensors"], timeout=600)
    check_threads(proc, 2, 20)
    assert re.search(r"ERROR SUMMARY: 0 errors", proc.stderr), proc.stderr[-8000:]


# ---------------------------------------------------------------- external weights


def weight_tensors(rng):
    return {"W": rng.standard_normal((5, 4)).astype(np.float32), "b": rng.standard_normal(4).astype(np.float32),
            "table": (np.arange(6, dtype=np.int64) * 3 - 4), "unused": np.ones(3)}


@pytest.fixture(scope="module")
def weights_build(agc_bin, work):
    """A copy of state_weights_model.py next to the weights file it reads, built with
    --weights external: (model copy, output folder)."""
    folder = work / "weights_model"
    folder.mkdir()
    model = folder / WEIGHTS_MODEL.name
    model.write_text(WEIGHTS_MODEL.read_text())
    safetensors.numpy.save_file(weight_tensors(np.random.default_rng(11)), str(folder / "state_weights.safetensors"))
    out = folder / "out"
    proc = harness.run_agc(agc_bin, "build", model, "-o", out, "--weights", "external")
    assert proc.returncode == 0, proc.stderr
    assert (out / "state_weights_model.weights").is_file()
    return model, out


def weights_driver(drivers, lib_dir, weights_build, static=False):
    return drivers("state.c", static=static, libs={"state_model": lib_dir, "state_weights_model": weights_build[1]})


def expected_weights_results(model_path, B, tensors=None):
    """The weights model run eagerly on the driver's inputs; `tensors` replaces its weights."""
    module = fresh_eager(model_path)
    if tensors is not None:
        module.P = tensors
    x = np.array([((i * 7) % 11 - 5) / 4.0 for i in range(B * 5)], np.float32).reshape(B, 5)
    idx = np.array([0, 2, 5, 2], np.int64)
    by = np.array([0.5, -1.0, 0.25, 2.0], np.float32)
    return {"apply": module.apply(x), "pick": module.pick(idx), "offset": np.array(module.shift(by)),
            "apply_shifted": module.apply(x)}


@LINKAGE
def test_external_weights_from_c(drivers, lib_dir, weights_build, work, static):
    model, out = weights_build
    saved = work / f"weights_vars_{static}.safetensors"
    proc = run([weights_driver(drivers, lib_dir, weights_build, static), "weights",
                out / "state_weights_model.weights", 3, saved])
    got = check_ok(proc)
    for label, value in expected_weights_results(model, 3).items():
        harness.assert_matches(got[label], value, label)
    # save writes the variables only, never the weights
    read = safetensors.numpy.load_file(str(saved))
    assert set(read) == {"offset"}, set(read)
    np.testing.assert_array_equal(read["offset"], got["offset"])


def test_other_weights_without_a_rebuild(drivers, lib_dir, weights_build, work):
    model, _ = weights_build
    other = weight_tensors(np.random.default_rng(12))
    path = work / "other_weights.safetensors"
    safetensors.numpy.save_file(other, str(path))
    got = check_ok(run([weights_driver(drivers, lib_dir, weights_build), "weights", path, 2]))
    for label, value in expected_weights_results(model, 2, other).items():
        harness.assert_matches(got[label], value, f"{label} with other weights")


@pytest.mark.parametrize("case", ["missing", "shape", "dtype", "absent", "garbage", "null"])
def test_bad_weights_files_fail_create(drivers, lib_dir, weights_build, work, case):
    _, out = weights_build
    stored = safetensors.numpy.load_file(str(out / "state_weights_model.weights"))
    path = work / f"bad_weights_{case}.safetensors"
    named = {"shape": "b", "dtype": "W", "absent": "table"}
    if case == "missing":
        pass
    elif case == "shape":
        safetensors.numpy.save_file({**stored, "b": np.ones(5, np.float32)}, str(path))
    elif case == "dtype":
        safetensors.numpy.save_file({**stored, "W": stored["W"].astype(np.float64)}, str(path))
    elif case == "absent":
        safetensors.numpy.save_file({k: v for k, v in stored.items() if k != "table"}, str(path))
    elif case == "garbage":
        path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all")
    proc = run([weights_driver(drivers, lib_dir, weights_build), "weights", "-" if case == "null" else path])
    assert proc.returncode == 0 and "DONE" in proc.stdout, f"{proc.stdout}\n{proc.stderr}"
    assert "RESULT" not in proc.stdout, proc.stdout
    assert "CTX null" in proc.stdout, "a failed create leaves *ctx NULL"
    status, message = bad_lines(proc.stdout)["create"]
    assert status == 1, (status, message)
    assert message.startswith("state_weights_model_create: "), message
    if case == "null":
        assert "state_weights_model.weights" in message, message
    else:
        assert str(path) in message, f"the message names the file: {message!r}"
    if case in named:
        assert f"'{named[case]}'" in message, f"the message names the tensor: {message!r}"


def test_a_context_of_another_library_is_refused(drivers, lib_dir, weights_build):
    """docs/c-abi.md: a ctx that is not a live context of this library is
    AGC_STATUS_INVALID_ARGUMENT. Two libraries built by one agc in one program, each called with
    the other's (live) context: refused, never computed on variables of another layout."""
    _, out = weights_build
    proc = run([weights_driver(drivers, lib_dir, weights_build), "cross", out / "state_weights_model.weights"])
    assert proc.returncode == 0 and "DONE" in proc.stdout, \
        f"the driver died ({proc.returncode}) in the call after the last CROSS line:\n{proc.stdout}\n{proc.stderr}"
    bad = bad_lines(proc.stdout)
    assert set(bad) == {"predict_other_ctx", "predict_into_other_ctx", "save_other_ctx", "shift_other_ctx"}, proc.stdout
    for what, (status, message) in bad.items():
        assert status == 1 and "ctx" in message, f"{what}: accepted another library's context: {status} {message!r}"


def test_external_weights_under_valgrind(drivers, lib_dir, weights_build, work):
    _, out = weights_build
    exe = weights_driver(drivers, lib_dir, weights_build)
    memcheck([exe, "weights", out / "state_weights_model.weights", 3, work / "valgrind_vars.safetensors"])
    memcheck([exe, "weights", work / "no_such_weights.safetensors"])


# ---------------------------------------------------------------- C++


def test_cpp_program_owns_a_context(drivers, data, eager):
    steps = 50
    got = check_ok(run([drivers("state.cpp"), steps, data.path]))
    harness.assert_matches(got["losses"], eager["losses"][:steps].astype(np.float32), "losses from C++")
    model = fresh_eager(MODEL)
    for s in range(steps):
        model.train_step(data.x[s], data.y[s])
    harness.assert_matches(got["pred"], model.predict(data.eval), "predictions from C++")
    assert int(got["steps"]) == steps


def test_cpp_header_owns_a_context(drivers, work):
    """state_model.hpp: state_model::Context creates and destroys the context (and moves), the
    exports take it first, save/restore round-trip the step counter, a failed restore throws
    state_model::Error with its status and leaves the variables as they were."""
    exe = drivers("state_hpp.cpp")
    proc = run([exe, work / "hpp_saved.safetensors"])
    assert proc.returncode == 0 and "DONE" in proc.stdout, proc.stdout + proc.stderr
    assert "STEPS 3 3 0 3" in proc.stdout, proc.stdout
    status, message = bad_lines(proc.stdout)["restore"]
    assert status != 0 and "missing" in message, (status, message)
    assert "STEPS after 3" in proc.stdout, proc.stdout
