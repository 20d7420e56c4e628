"""Bad programs (tests/diagnostics/*.py): exit code 1, `file:line:col: error:` at the marked line, a caret, no panic.

Each case marks its offending line with `# ERROR: <regex>`; the regex must match the
message on the first line of stderr (case-insensitive).
"""

import re

import pytest

import harness

DIAGNOSTICS = harness.TESTS / "diagnostics"
PANIC_TEXT = ("panicked at", "RUST_BACKTRACE", "stack backtrace")


def marker(path):
    """(line number, phrase regex, code on that line) of the file's `# ERROR:` marker."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        m = re.search(r"#\s*ERROR:\s*(.+?)\s*$", line)
        if m:
            found.append((number, m.group(1), line[: m.start()].strip()))
    assert len(found) == 1, f"{path.name} needs exactly one '# ERROR: <phrase>' marker"
    return found[0]


CASES = sorted(DIAGNOSTICS.glob("*.py"))


@pytest.mark.parametrize("command", ["build", "check"])
@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_diagnostic(agc_bin, tmp_path, case, command):
    line, phrase, code = marker(case)
    rel = case.relative_to(harness.REPO)
    out_dir = tmp_path / "out"
    args = [command, rel] + (["-o", out_dir] if command == "build" else [])
    proc = harness.run_agc(agc_bin, *args, cwd=harness.REPO)
    stderr = proc.stderr
    for text in PANIC_TEXT:
        assert text not in stderr + proc.stdout, f"a Rust panic:\n{stderr}"
    assert proc.returncode == 1, f"exit code {proc.returncode}, expected 1 (a user error); stderr:\n{stderr}"
    first = stderr.splitlines()[0] if stderr else ""
    location = re.match(rf"^(?:{re.escape(str(rel))}|{re.escape(str(case))}):(\d+):(\d+): error: (.*)$", first)
    assert location, f"first line of stderr is not '{rel}:{line}:<col>: error: ...':\n{stderr}"
    assert int(location.group(1)) == line, f"error reported at line {location.group(1)}, expected {line}:\n{stderr}"
    assert re.search(phrase, location.group(3), re.I), f"message does not match /{phrase}/:\n{stderr}"
    lines = stderr.splitlines()
    shown = [i for i, text in enumerate(lines) if code and code in text]
    assert shown, f"stderr does not show the source line {code!r}:\n{stderr}"
    assert any("^" in text for text in lines[shown[0] + 1:]), f"no caret under the source line:\n{stderr}"
    if command == "build":
        assert not out_dir.exists() or not any(out_dir.iterdir()), f"files written: {list(out_dir.iterdir())}"
