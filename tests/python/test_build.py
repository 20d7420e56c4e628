"""agc.build: option mapping, binary discovery and error reporting, with a stand-in compiler."""

import os
import stat
import textwrap

import pytest

import agc
from agc import _build


def fake_compiler(tmp_path, body):
    script = tmp_path / "fake-agc"
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_build_command_maps_options():
    assert _build.build_command("m.py", "out") == ["build", "m.py", "-o", "out"]
    assert _build.build_command("m.py", None, "cuda", name="lib", emit=["ir", "mlir"], opt_level=3, verbose=True) == [
        "build", "m.py", "-o", "build", "--target", "cuda", "--name", "lib", "--emit", "ir,mlir", "-O3", "-v"]
    assert _build.build_command("m.py", "o", emit="llvm", opt_level=0)[-3:] == ["--emit", "llvm", "-O0"]
    with pytest.raises(ValueError):
        _build.build_command("m.py", "o", opt_level=4)
    with pytest.raises(TypeError):
        _build.build_command("m.py", "o", optimise=True)


def test_build_runs_binary_and_returns_library(tmp_path, monkeypatch):
    log = tmp_path / "args.txt"
    script = fake_compiler(tmp_path, f"""\
        echo "$@" > {log}
        mkdir -p "$4" && touch "$4/lib$6.so"
        """)
    monkeypatch.setenv("AGC_BIN", str(script))
    lib = agc.build(tmp_path / "model.py", tmp_path / "out", name="net", opt_level=2)
    assert lib == tmp_path / "out" / "libnet.so"
    assert log.read_text().split() == ["build", str(tmp_path / "model.py"), "-o", str(tmp_path / "out"),
                                       "--name", "net", "-O2"]


def test_build_default_name_is_the_stem(tmp_path, monkeypatch):
    script = fake_compiler(tmp_path, 'mkdir -p "$4" && touch "$4/libmy_model.so"\n')
    monkeypatch.setenv("AGC_BIN", str(script))
    assert agc.build("some/dir/my_model.py", tmp_path / "o").name == "libmy_model.so"


def test_build_failure_raises_with_stderr(tmp_path, monkeypatch):
    script = fake_compiler(tmp_path, """\
        echo "m.py:3:5: error: undefined name 'q'" >&2
        exit 1
        """)
    monkeypatch.setenv("AGC_BIN", str(script))
    with pytest.raises(agc.Error, match=r"m.py:3:5: error: undefined name 'q'") as info:
        agc.build("m.py", tmp_path / "o")
    assert info.value.status == 1


def test_missing_library_after_success_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("AGC_BIN", str(fake_compiler(tmp_path, "exit 0\n")))
    with pytest.raises(agc.Error, match="wrote no"):
        agc.build("m.py", tmp_path / "o")


def test_binary_discovery(tmp_path, monkeypatch):
    monkeypatch.setenv("AGC_BIN", str(tmp_path / "nope"))
    with pytest.raises(agc.Error, match="AGC_BIN"):
        agc.find_binary()
    script = fake_compiler(tmp_path, "exit 0\n")
    monkeypatch.setenv("AGC_BIN", str(script))
    assert agc.find_binary() == script
    monkeypatch.delenv("AGC_BIN")
    monkeypatch.setattr(_build, "_REPO_BINARY", tmp_path / "missing")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(agc.Error, match="cannot find the agc compiler"):
        agc.find_binary()
    (tmp_path / "bin").mkdir()
    os.symlink(script, tmp_path / "bin" / "agc")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert agc.find_binary() == tmp_path / "bin" / "agc"
