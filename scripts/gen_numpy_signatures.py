"""Writes frontend/src/stage/numpy_signatures.rs: numpy's own parameter names of every
`np.<f>` agc supports, read from the installed numpy with `inspect` (ufuncs from their
`nin`/`nout`), so that the front end rejects a keyword numpy rejects.

    python3 scripts/gen_numpy_signatures.py        # rewrites the file
    python3 scripts/gen_numpy_signatures.py --check  # exit 1 if the file is stale
"""

import argparse
import inspect
import re
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
STAGE = REPO / "frontend" / "src" / "stage"
OUT = STAGE / "numpy_signatures.rs"
UFUNC_KEYWORDS = ["out", "where", "casting", "order", "dtype", "subok", "signature"]


def supported_names():
    names = set()
    for path in STAGE.glob("*.rs"):
        for block in re.findall(r"pub(?:\(super\))? const FUNCTIONS: &\[&str\] = &\[(.*?)\];|^const FUNCTIONS: &\[&str\] = &\[(.*?)\];",
                                path.read_text(), re.S | re.M):
            names.update(re.findall(r'"(\w+)"', "".join(block)))
    return sorted(names)


def signature(name):
    """(params, max_positional or None, any_keyword) of np.<name>, or None if not a callable."""
    f = getattr(np, name, None)
    if f is None or isinstance(f, type) or not callable(f):
        return None
    if isinstance(f, np.ufunc):
        extra = ["axes", "axis", "keepdims"] if f.signature else []
        inputs = ["x"] if f.nin == 1 else [f"x{i + 1}" for i in range(f.nin)]
        return inputs + UFUNC_KEYWORDS + extra, f.nin + f.nout, False
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    params, positional, any_keyword = [], 0, False
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            any_keyword = True
        elif p.kind is p.VAR_POSITIONAL:
            positional = None
        else:
            if p.kind is not p.POSITIONAL_ONLY:
                params.append(p.name)
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and positional is not None:
                positional += 1
    return params, positional, any_keyword


def render():
    rows = []
    for name in supported_names():
        sig = signature(name)
        if sig is None:
            continue
        params, positional, any_keyword = sig
        plist = ", ".join(f'"{p}"' for p in params)
        pos = "None" if positional is None else f"Some({positional})"
        rows.append(f'    Signature {{ name: "{name}", params: &[{plist}], max_positional: {pos}, any_keyword: {str(any_keyword).lower()} }},')
    return f"""//! numpy's own signatures of the `np.<f>` agc supports (generated from numpy
//! {np.__version__} by `scripts/gen_numpy_signatures.py`; do not edit by hand), so
//! that a call numpy rejects (a misspelt keyword, too many arguments) is
//! rejected here too instead of being staged with the argument ignored.

/// The parameters of one numpy function.
pub struct Signature {{
    /// The function, `np.<name>`.
    pub name: &'static str,
    /// Parameter names that may be passed by keyword.
    pub params: &'static [&'static str],
    /// How many arguments may be passed by position (`None`: any number).
    pub max_positional: Option<usize>,
    /// The function takes `**kwargs`: any keyword.
    pub any_keyword: bool,
}}

/// Every signature, sorted by name.
#[rustfmt::skip]
pub const SIGNATURES: &[Signature] = &[
{chr(10).join(rows)}
];

/// The signature of `np.<name>`, if numpy's could be read.
pub fn of(name: &str) -> Option<&'static Signature> {{
    SIGNATURES
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &SIGNATURES[i])
}}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    text = render()
    if args.check:
        sys.exit(0 if OUT.exists() and OUT.read_text() == text else 1)
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
