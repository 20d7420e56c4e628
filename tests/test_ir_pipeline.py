"""The IR pass pipeline from the command line: `-v` table, `--ir-after`, `--emit opt-ir`,
`-O0` (no optimising pass) against numpy, and deterministic output."""

import re

import pytest

import harness

GRAD_MODEL = harness.REPO / "tests" / "grad_models" / "attention.py"
PASSES = ("dead-functions", "cse", "simplify", "dce")


def _build(agc_bin, tmp_path, *flags, model=GRAD_MODEL):
    tmp_path.mkdir(parents=True, exist_ok=True)
    return harness.run_agc(agc_bin, "build", model, "-o", tmp_path, *flags, cwd=tmp_path)


def test_verbose_prints_every_pass_with_op_counts(agc_bin, tmp_path):
    proc = _build(agc_bin, tmp_path, "-v")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split()[1:] for line in proc.stderr.splitlines() if line.split()[:1] and line.split()[0] in PASSES}
    assert set(rows) == set(PASSES), proc.stderr
    for name, cols in rows.items():
        before, after = int(cols[0]), int(cols[1])
        assert 0 < after <= before, (name, cols)
    assert "e-nodes" in proc.stderr and "iterations" in proc.stderr
    # The whole build's time and the IR pipeline's share of it.
    total = re.search(r"^build (\d+) ms: IR pipeline ([\d.]+) ms \(([\d.]+)%\), backend (\d+) ms$",
                      proc.stderr, re.M)
    assert total, proc.stderr
    assert float(total.group(2)) <= float(total.group(1)) and int(total.group(4)) <= int(total.group(1))


def test_ir_after_writes_the_ir_of_each_named_pass(agc_bin, tmp_path):
    proc = _build(agc_bin, tmp_path, "--ir-after", "dead-functions,simplify", "--emit", "ir,opt-ir")
    assert proc.returncode == 0, proc.stderr
    staged = (tmp_path / "attention.ir").read_text()
    after_dead = (tmp_path / "attention.after-dead-functions.ir").read_text()
    final = (tmp_path / "attention.opt.ir").read_text()
    assert (tmp_path / "attention.after-simplify.ir").is_file()
    # Dead functions dropped: fewer functions than staged, and the exports kept.
    assert after_dead.count("\nfunc @") < staged.count("\nfunc @")
    assert final.count("export @") == staged.count("export @")


def test_unknown_pass_name_is_a_user_error(agc_bin, tmp_path):
    proc = _build(agc_bin, tmp_path, "--ir-after", "no-such-pass")
    assert proc.returncode == 1
    assert "no pass named 'no-such-pass'" in proc.stderr and "simplify" in proc.stderr
    assert not list(tmp_path.glob("*.so"))


def test_opt_ir_is_byte_identical_across_runs(agc_bin, tmp_path):
    texts = []
    for k in range(2):
        out = tmp_path / str(k)
        proc = _build(agc_bin, out, "--emit", "opt-ir", "--verify-each")
        assert proc.returncode == 0, proc.stderr
        texts.append((out / "attention.opt.ir").read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("model", ["attention.py", "layer_norm.py", "grad_in_staged_loop.py", "gather_grad.py"])
def test_unoptimised_build_matches_numpy(builds, model):
    import agc

    path = harness.REPO / "tests" / "grad_models" / model
    module = harness.import_model(path)
    lib = agc.load(builds.get(path, opt_level=0))
    for name, export in harness.exports(module).items():
        dims = harness.dim_sizes(module)
        inputs = harness.make_inputs(module, export, harness.rng_for(path.stem, name, 0), dims)
        harness.check_call(lib.functions[name], export, inputs, f"{name} at -O0")


def test_agc_opt_on_the_staged_text_gives_the_optimised_text(agc_bin, tmp_path):
    proc = _build(agc_bin, tmp_path, "--emit", "ir,opt-ir")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "again.ir"
    proc = harness.run_agc(agc_bin, "opt", tmp_path / "attention.ir", "--passes", ",".join(PASSES), "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == (tmp_path / "attention.opt.ir").read_text()


def test_agc_opt_rejects_text_that_is_not_ir(agc_bin, tmp_path):
    bad = tmp_path / "bad.ir"
    bad.write_text("module @m {\nfunc @f(%0: f32[3] /*x*/) -> (f32[3]) {\n  %1 = frobnicate %0 : f32[3]\n  return %1\n}\n}\n")
    proc = harness.run_agc(agc_bin, "opt", bad)
    assert proc.returncode == 1
    assert f"{bad}:3: error: unknown op 'frobnicate'" in proc.stderr
    assert "panicked" not in proc.stderr


def test_ir_after_a_pass_that_does_not_run_is_a_user_error(agc_bin, tmp_path):
    proc = _build(agc_bin, tmp_path, "-O0", "--ir-after", "cse")
    assert proc.returncode == 1
    assert "pass 'cse' does not run" in proc.stderr
