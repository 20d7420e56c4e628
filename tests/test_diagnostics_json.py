"""`--error-format json` and `--color`: how `agc build` and `agc check` print diagnostics.

Every bad program of diagnostics/*.py is built with `--error-format json`: each stderr line must be
a JSON object valid against diagnostics_schema.json (rustc's `--error-format=json` shape), and its
primary span must be where the human format and the `# ERROR:` marker put it, with columns checked
against the source file here (1-based, in characters). `--color always` colours the human format
and changes nothing else; `never` and a stderr that is no terminal (as here) print no escapes.
"""

import json
import os
import pty
import re
import subprocess

import jsonschema
import pytest

import harness
from test_diagnostics import CASES, PANIC_TEXT, marker

SCHEMA = json.loads((harness.TESTS / "diagnostics_schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
COLOUR_CASE = harness.TESTS / "diagnostics" / "misspelt_local.py"
GOOD_MODEL = harness.MODELS / "mlp_mnist.py"


def run(agc_bin, command, path, tmp_path, *options, env=None):
    """`agc <command> <path> <options>` from the repository root (build writes under tmp_path)."""
    out = ["-o", tmp_path / "out"] if command == "build" else []
    return subprocess.run([str(agc_bin), command, str(path), *map(str, out), *options], capture_output=True,
                          text=True, cwd=harness.REPO, timeout=300, env=env)


def json_lines(proc):
    """Each stderr line parsed and checked against the schema."""
    assert proc.stderr.endswith("\n"), f"stderr is not newline-terminated JSON lines:\n{proc.stderr}"
    objects = []
    for line in proc.stderr.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            pytest.fail(f"stderr line is not JSON ({e}):\n{line}")
        errors = sorted(VALIDATOR.iter_errors(obj), key=str)
        assert not errors, f"does not match diagnostics_schema.json: {errors[0].message}\n{line}"
        objects.append(obj)
    return objects


def char_column(source_bytes, byte_offset):
    """1-based character column of a byte offset, counted here from the file's bytes."""
    line_start = source_bytes.rfind(b"\n", 0, byte_offset) + 1
    return len(source_bytes[line_start:byte_offset].decode("utf-8")) + 1


@pytest.mark.parametrize("command", ["build", "check"])
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_json_diagnostic(agc_bin, tmp_path, case, command):
    line, phrase, _ = marker(case)
    rel = case.relative_to(harness.REPO)
    human = run(agc_bin, command, rel, tmp_path)
    proc = run(agc_bin, command, rel, tmp_path, "--error-format", "json")
    for text in PANIC_TEXT:
        assert text not in proc.stderr + proc.stdout, f"a Rust panic:\n{proc.stderr}"
    assert proc.returncode == 1 == human.returncode, f"exit code {proc.returncode}, expected 1:\n{proc.stderr}"
    assert proc.stdout == ""
    objects = json_lines(proc)
    assert len(objects) == 1, f"expected one diagnostic, got {len(objects)}:\n{proc.stderr}"
    d = objects[0]
    assert d["level"] == "error"
    assert d["rendered"] == human.stderr, "`rendered` differs from the human format"

    # The headline: the message, then each help in parentheses, as the human format's first line.
    helps = [c["message"] for c in d["children"] if c["level"] == "help"]
    headline = d["message"] + "".join(f" ({h})" for h in helps)
    first = re.match(r"^(.*):(\d+):(\d+): error: (.*)$", human.stderr.splitlines()[0])
    assert first, human.stderr
    assert first.group(4) == headline
    assert re.search(phrase, headline, re.I), f"message does not match /{phrase}/: {headline}"
    for note in (c["message"] for c in d["children"] if c["level"] == "note"):
        assert f"= note: {note}" in human.stderr

    primary = [s for s in d["spans"] if s["is_primary"]]
    assert len(primary) == 1, d["spans"]
    span = primary[0]
    assert span["file_name"] == first.group(1) == str(rel)
    assert span["line_start"] == int(first.group(2)) == line, f"primary span at line {span['line_start']}"
    assert span["column_start"] == int(first.group(3))
    # Independent of agc: the columns and the line text from the file's own bytes.
    source = case.read_bytes()
    assert 0 <= span["byte_start"] <= span["byte_end"] <= len(source)
    assert source.count(b"\n", 0, span["byte_start"]) + 1 == span["line_start"]
    assert source.count(b"\n", 0, span["byte_end"]) + 1 == span["line_end"]
    assert char_column(source, span["byte_start"]) == span["column_start"]
    assert char_column(source, span["byte_end"]) == span["column_end"]
    lines = source.decode("utf-8").split("\n")
    assert [t["text"] for t in span["text"]] == lines[span["line_start"] - 1:span["line_end"]]
    assert span["text"][0]["highlight_start"] == span["column_start"]
    assert span["text"][-1]["highlight_end"] == span["column_end"]


def test_json_error_without_a_place_in_the_source(agc_bin, tmp_path):
    for command in ("build", "check"):
        proc = run(agc_bin, command, tmp_path / "nope.py", tmp_path, "--error-format", "json")
        assert proc.returncode == 1, proc.stderr
        [d] = json_lines(proc)
        assert d["spans"] == [] and "nope.py" in d["rendered"] and d["level"] == "error"


def test_json_check_of_a_good_model_prints_nothing(agc_bin, tmp_path):
    proc = run(agc_bin, "check", GOOD_MODEL, tmp_path, "--error-format", "json")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


@pytest.mark.parametrize("command", ["build", "check"])
def test_color_always_colours_only(agc_bin, tmp_path, command):
    plain = run(agc_bin, command, COLOUR_CASE, tmp_path)
    never = run(agc_bin, command, COLOUR_CASE, tmp_path, "--color", "never")
    always = run(agc_bin, command, COLOUR_CASE, tmp_path, "--color", "always")
    assert "\x1b" not in plain.stderr and never.stderr == plain.stderr
    assert always.returncode == 1
    assert ANSI.search(always.stderr), f"no ANSI escapes with --color always:\n{always.stderr!r}"
    assert ANSI.sub("", always.stderr) == plain.stderr, "--color always changed the text, not only its colour"
    # The error label and the carets are coloured.
    assert re.search(r"\x1b\[[0-9;]*m(\x1b\[[0-9;]*m)*error:", always.stderr), repr(always.stderr)
    assert re.search(r"\x1b\[[0-9;]*m(\x1b\[[0-9;]*m)*\^+", always.stderr), repr(always.stderr)
    # JSON is never coloured, `rendered` included.
    proc = run(agc_bin, command, COLOUR_CASE, tmp_path, "--color", "always", "--error-format", "json")
    assert "\x1b" not in proc.stderr
    json_lines(proc)


def stderr_on_a_terminal(agc_bin, tmp_path, *options, env):
    """stderr of `agc check COLOUR_CASE` when stderr is a pseudo-terminal."""
    main, secondary = pty.openpty()
    try:
        proc = subprocess.run([str(agc_bin), "check", str(COLOUR_CASE), *options], stdout=subprocess.PIPE,
                              stderr=secondary, cwd=harness.REPO, timeout=300, env=env)
    finally:
        os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the terminal's other end is closed and all of it was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert proc.returncode == 1
    return b"".join(chunks).decode()


def test_color_auto_follows_the_terminal_and_no_color(agc_bin, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    assert ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, env=env)), "auto: no colour on a terminal"
    assert ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, "--color", "auto", env=env))
    no_color = dict(env, NO_COLOR="1")
    assert not ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, env=no_color)), "auto ignored NO_COLOR"
    assert not ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, env=dict(env, TERM="dumb")))
    assert not ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, "--color", "never", env=env))
    assert ANSI.search(stderr_on_a_terminal(agc_bin, tmp_path, "--color", "always", env=no_color)), \
        "an explicit --color always wins over NO_COLOR"


@pytest.mark.parametrize("command", ["build", "check"])
@pytest.mark.parametrize("option, value", [("--color", "blue"), ("--error-format", "xml"), ("--color", ""),
                                           ("--error-format", "JSON ")])
def test_bad_option_value_is_a_usage_error(agc_bin, tmp_path, command, option, value):
    proc = run(agc_bin, command, COLOUR_CASE, tmp_path, option, value)
    assert proc.returncode == 1, f"exit {proc.returncode}: a bad option value is the user's error\n{proc.stderr}"
    expected = f"invalid value '{value}' for '{option} " if value else f"a value is required for '{option} "
    assert expected in proc.stderr, proc.stderr
    assert "possible values" in proc.stderr
    assert not any(t in proc.stderr for t in PANIC_TEXT)
    assert not (tmp_path / "out").exists()
