"""`agc.build`: run the `agc` compiler binary on a model file."""

import os
import shutil
import subprocess
from pathlib import Path

from ._errors import Error

_REPO_BINARY = Path(__file__).resolve().parents[2] / "target" / "release" / "agc"


def find_binary():
    """The compiler: `$AGC_BIN`, else `<repo>/target/release/agc`, else `agc` on `PATH`."""
    env = os.environ.get("AGC_BIN")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise Error(f"AGC_BIN={env} is not an executable file")
        return path
    if _REPO_BINARY.is_file() and os.access(_REPO_BINARY, os.X_OK):
        return _REPO_BINARY
    on_path = shutil.which("agc")
    if on_path:
        return Path(on_path)
    raise Error(
        f"cannot find the agc compiler: set AGC_BIN, build {_REPO_BINARY} with "
        "`cargo build --release`, or put `agc` on PATH"
    )


def build_command(model_path, out_dir=None, target="cpu", *, name=None, emit=None, opt_level=None, verbose=False,
                  emulate_device=False):
    """The argument list (without the binary) of `agc build` for these options."""
    args = ["build", str(model_path), "-o", str(_out_dir(out_dir))]
    if target != "cpu":
        args += ["--target", str(target)]
    if emulate_device:
        args.append("--emulate-device")
    if name is not None:
        args += ["--name", str(name)]
    if emit:
        kinds = [emit] if isinstance(emit, str) else list(emit)
        args += ["--emit", ",".join(kinds)]
    if opt_level is not None:
        if opt_level not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, not {opt_level!r}")
        args.append(f"-O{opt_level}")
    if verbose:
        args.append("-v")
    return args


def build(model_path, out_dir=None, target="cpu", **options):
    """Compile `model_path`; return the path of `lib<NAME>.so`.

    `options`: `name` (the library name, default the file stem), `emit` (a
    kind or a list of kinds: "ir", "mlir", "llvm", "asm", ...), `opt_level`
    (0-3), `verbose`; for tests, `emulate_device` (with `target="cuda"`: the
    kernels run on the host, the tensors are host memory tagged kDLCUDA).
    `out_dir` defaults to `build/`, as on the command line.
    Raises `agc.Error` with the compiler's diagnostics if it fails.
    """
    args = build_command(model_path, out_dir, target, **options)
    proc = subprocess.run([str(find_binary()), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        detail = proc.stderr.strip() or proc.stdout.strip() or "(no output)"
        raise Error(f"agc build {model_path} failed (exit code {proc.returncode}):\n{detail}", proc.returncode)
    name = options.get("name") or default_name(model_path)
    lib = _out_dir(out_dir) / f"lib{name}.so"
    if not lib.is_file():
        raise Error(f"agc build {model_path} succeeded but wrote no {lib}")
    return lib


def default_name(model_path):
    """The library name `agc build` gives a model: its file stem made a C identifier
    (`my-model.py` -> `my_model`, `2d.py` -> `_2d`)."""
    name = "".join(c if c.isascii() and c.isalnum() else "_" for c in Path(model_path).stem)
    return name if name and not name[0].isdigit() else "_" + name


def _out_dir(out_dir):
    return Path("build") if out_dir is None else Path(out_dir)
